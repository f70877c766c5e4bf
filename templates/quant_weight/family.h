//===- family.h - The quant_weight template family ----------------*- C++ -*-===//
#ifndef MXFORGE_TEMPLATES_QUANT_WEIGHT_FAMILY_H
#define MXFORGE_TEMPLATES_QUANT_WEIGHT_FAMILY_H

#include "templates/registry.h"

namespace mxf {

namespace quant_weight {
TemplateFamily family();
} // namespace quant_weight

/// Appends `gpu.func @<kernelName>(w, [r], q, s, w_stride) kernel`: the
/// rotation and quantization over the spec's N rows of w (a build-time
/// constant, so no m argument), codes in the spec's weight layout, scales in
/// its scale layout (a4w4_shuffle rows padded to 256 with 0x7F). Fails for
/// specs checkQuantWeightSupported refuses.
Status buildQuantWeightKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                              llvm::StringRef kernelName);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_QUANT_WEIGHT_FAMILY_H
