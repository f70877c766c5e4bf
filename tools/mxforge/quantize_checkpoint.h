//===- quantize_checkpoint.h - mxforge quantize: checkpoint in, checkpoint out -*- C++ -*-===//
//
// Reads one .safetensors file or a sharded checkpoint (its
// model.safetensors.index.json), quantizes the tensors whose full name
// matches a pattern with a quant_weight spec (K and N from each tensor's
// [N, K] shape) on the host path (weights/host_quantizer.h), and writes the
// checkpoint in the Quark MXFP4 convention (docs/weights.md): `<p>.weight`
// becomes the packed codes (U8) and `<p>.weight_scale` the E8M0 scales
// (U8); every other tensor is copied byte for byte. Everything is checked
// before anything is written; outputs are staged next to their destination
// and renamed only when all are complete.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TOOLS_MXFORGE_QUANTIZE_CHECKPOINT_H
#define MXFORGE_TOOLS_MXFORGE_QUANTIZE_CHECKPOINT_H

#include "support/status.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mxf::cli {

struct QuantizeOptions {
  std::string in, out, spec, tensors;
  std::optional<std::string> rotation; // FILE.npy, FILE.safetensors[:TENSOR]
  unsigned threads = 0;                // 0: every hardware thread
  bool force = false, check = false;
  bool progress = false; // a progress line on `err` (the caller decides: a terminal)
  /// Where the tensors are quantized: the host path ("host", weights/) or
  /// the gfx950 quant_weight kernel on the emulator ("emu"); the bytes are
  /// the same.
  std::string device = "host";
};

/// Runs the whole command; `out` gets the summary (and --check's table).
Status quantizeCheckpoint(const QuantizeOptions &options, llvm::raw_ostream &out,
                          llvm::raw_ostream &err);

} // namespace mxf::cli

#endif // MXFORGE_TOOLS_MXFORGE_QUANTIZE_CHECKPOINT_H
