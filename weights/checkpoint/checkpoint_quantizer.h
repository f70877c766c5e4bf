//===- checkpoint_quantizer.h - A safetensors checkpoint in, a quantized one out -*- C++ -*-===//
//
// Reads one .safetensors file or a sharded checkpoint (its
// model.safetensors.index.json), quantizes the tensors whose full name
// matches a pattern with a quant_weight spec (K and N from each tensor's
// [N, K] shape) on the host path (weights/host_quantizer.h) or through a
// kernel the caller provides, and writes the checkpoint in the Quark MXFP4
// convention (docs/weights.md): `<p>.weight` becomes the packed codes (U8)
// and `<p>.weight_scale` the E8M0 scales (U8); every other tensor is copied
// byte for byte, and a config.json with Quark's quantization_config is
// written. Everything is checked before anything is written; outputs are
// staged next to their destination and renamed only when all are complete.
//
// Plain C++ (no LLVM): `mxforge quantize`, the C API's
// mxf_quantize_checkpoint and Python's mxforge.quantize_checkpoint all run
// this. Messages name the options by their command-line flags (--tensors,
// --force, ...), which the C API and Python keep as field and keyword names.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_WEIGHTS_CHECKPOINT_CHECKPOINT_QUANTIZER_H
#define MXFORGE_WEIGHTS_CHECKPOINT_CHECKPOINT_QUANTIZER_H

#include "spec/kernel_spec.h"
#include "support/status.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace mxf::weights {

/// A quant_weight kernel that quantizes tensors instead of the host path
/// (`mxforge quantize --device emu`: the gfx950 kernel on the emulator).
/// The bytes must be the host path's.
class WeightKernel {
public:
  virtual ~WeightKernel() = default;
  /// Whether it can quantize tensors of `spec` (the tensor's K and N); the
  /// message names the key.
  virtual Status checkSupported(const KernelSpec &spec) = 0;
  /// Quantizes w [N, K] (bf16, dense) with `spec`: codes and scales in the
  /// spec's layouts, exactly as many bytes as kernelOperands says.
  virtual Status quantize(const KernelSpec &spec, const uint16_t *w, const uint16_t *rotation,
                          uint64_t rotationElements, uint8_t *codes, uint64_t codeBytes,
                          uint8_t *scales, uint64_t scaleBytes) = 0;
};

/// Where text goes: the summary (and --check's table) and the notes and
/// progress line. Either may be empty (the text is dropped).
using TextSink = std::function<void(std::string_view text)>;

/// The most threads one quantize run uses; more is refused (a typo, and
/// every thread holds a tensor's working set). The CLI, the C API and Python
/// take theirs from here.
constexpr unsigned kMaxQuantizeThreads = 1024;

struct QuantizeOptions {
  std::string in, out, spec, tensors;
  std::optional<std::string> rotation; // FILE.npy, FILE.safetensors[:TENSOR]
  /// FILE.npy: int32 [layers], 1 = rotate (what `mxforge calibrate --mask`
  /// writes). Each tensor of a layer whose entry is 0 is quantized without
  /// the spec's rotation (weights/checkpoint/layer_mask.h).
  std::optional<std::string> layerMask;
  unsigned threads = 0; // 0: every hardware thread; at most kMaxQuantizeThreads
  bool force = false, check = false;
  /// A progress line on the notes sink, rewritten per tensor: tensors done,
  /// GB/s of input, time left (the caller decides: a terminal).
  bool progress = false;
  /// Quantizes the tensors instead of the host path when set (its
  /// checkSupported runs on every selected tensor before anything is
  /// written). Not owned.
  WeightKernel *kernel = nullptr;
};

/// Runs the whole quantization; `out` gets the summary (and --check's
/// table), `notes` what a user should know (a removed stale temporary, where
/// config.json went) and the progress line.
Status quantizeCheckpoint(const QuantizeOptions &options, const TextSink &out,
                          const TextSink &notes);

} // namespace mxf::weights

#endif // MXFORGE_WEIGHTS_CHECKPOINT_CHECKPOINT_QUANTIZER_H
