//===- family.h - The rmsnorm_rotate_quant template family -------*- C++ -*-===//
#ifndef MXFORGE_TEMPLATES_RMSNORM_ROTATE_QUANT_FAMILY_H
#define MXFORGE_TEMPLATES_RMSNORM_ROTATE_QUANT_FAMILY_H

#include "templates/registry.h"
#include "templates/rmsnorm_rotate_quant/rules.h"

namespace mxf {

namespace rmsnorm_rotate_quant {
/// rmsnorm_rotate_quant's registry entry: its rules (rules.h) and builder.
TemplateFamily family();
} // namespace rmsnorm_rotate_quant

/// Appends `gpu.func @<kernelName>(x, [residual], gamma, [r], q, s,
/// [residual_out], m, ..., eps) kernel` to `module`: the norm in front of
/// the rotating quantizer's dense body. Fails for specs
/// checkRmsnormRotateQuantSupported refuses, never halfway through.
Status buildRmsnormRotateQuantKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                                     llvm::StringRef kernelName);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_RMSNORM_ROTATE_QUANT_FAMILY_H
