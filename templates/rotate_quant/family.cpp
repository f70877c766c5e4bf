//===- family.cpp - The rotate_quant template family ----------------------===//

#include "templates/rotate_quant/family.h"

#include "templates/common/rotating_quantizer/emitter.h"
#include "templates/rotate_quant/rules.h"

// GPUModuleOp travels by value: its complete type.
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mxf {

Status buildRotateQuantKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                              llvm::StringRef kernelName) {
  if (Status supported = checkRotateQuantSupported(spec); !supported.ok())
    return supported;
  return buildRotatingQuantizerKernel(module, spec, kernelName, rotateQuantQuantizer());
}

TemplateFamily rotate_quant::family() { return {rotate_quant::rules(), buildRotateQuantKernel}; }

} // namespace mxf
