//===- family.cpp - The rotate_quant_moe template family ------------------===//
//
// The rotating quantizer's kernel (templates/common/rotating_quantizer/)
// with rotate_quant_moe's body (moe_body.h: the sort in front of the shared
// stages) and its decisions (rules.cpp).
//
//===----------------------------------------------------------------------===//

#include "templates/rotate_quant_moe/family.h"

#include "templates/common/rotating_quantizer/emitter.h"
#include "templates/rotate_quant_moe/moe_body.h"
#include "templates/rotate_quant_moe/rules.h"

// GPUModuleOp travels by value: its complete type.
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mxf {

Status buildRotateQuantMoeKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                                 llvm::StringRef kernelName) {
  if (Status supported = checkRotateQuantMoeSupported(spec); !supported.ok())
    return supported;
  return buildRotatingQuantizerKernel(module, spec, kernelName, rotateQuantMoeQuantizer(),
                                      emitMoeBody);
}

TemplateFamily rotate_quant_moe::family() {
  return {rotate_quant_moe::rules(), buildRotateQuantMoeKernel};
}

} // namespace mxf
