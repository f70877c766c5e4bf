//===- family.h - The rotate_quant template family ----------------*- C++ -*-===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_FAMILY_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_FAMILY_H

#include "templates/registry.h"
#include "templates/rotate_quant/rules.h"

namespace mxf {

namespace rotate_quant {
/// rotate_quant's registry entry: its rules (rules.h) and its builder.
TemplateFamily family();
} // namespace rotate_quant

/// Appends `gpu.func @<kernelName>(x, [r], q, s, m, ...) kernel` to
/// `module`: the rotating quantizer with rotate_quant's decisions. Fails for
/// specs checkRotateQuantSupported refuses, never halfway through.
Status buildRotateQuantKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                              llvm::StringRef kernelName);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_FAMILY_H
