//===- quantize_kernel.h - quantize's tensors through the gfx950 kernel -*- C++ -*-===//
//
// `mxforge quantize --device emu`: each tensor is quantized by the
// quant_weight kernel, run on the gfx950 emulator, instead of the host path.
// The two must agree byte for byte (the quantize lit tests compare them); an
// engine that quantizes at load time on the GPU gets the same checkpoint as
// one prepared offline.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TOOLS_MXFORGE_QUANTIZE_KERNEL_H
#define MXFORGE_TOOLS_MXFORGE_QUANTIZE_KERNEL_H

#include "abi/code_object.h"
#include "support/status.h"
#include "runtime/device.h"
#include "spec/kernel_spec.h"
#include "weights/checkpoint/checkpoint_quantizer.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace mxf::cli {

class KernelWeightQuantizer final : public weights::WeightKernel {
public:
  /// Opens the emulator device (all cores).
  static Result<KernelWeightQuantizer> open();

  Status checkSupported(const KernelSpec &spec) override;
  /// Compiles each spec's kernel once and runs it on the emulator.
  Status quantize(const KernelSpec &spec, const uint16_t *w, const uint16_t *rotation,
                  uint64_t rotationElements, uint8_t *codes, uint64_t codeBytes, uint8_t *scales,
                  uint64_t scaleBytes) override;

private:
  std::unique_ptr<runtime::Device> device_;
  std::map<std::string, CodeObject> compiled_; // by canonical spec
};

} // namespace mxf::cli

#endif // MXFORGE_TOOLS_MXFORGE_QUANTIZE_KERNEL_H
