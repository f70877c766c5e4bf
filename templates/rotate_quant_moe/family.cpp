//===- family.cpp - The rotate_quant_moe template family ------------------===//
//
// The rotating quantizer (templates/common/rotating_quantizer/) with the
// MoE sorter (moe_sorter.h) in front of it and rotate_quant_moe's decisions
// (rules.cpp).
//
//===----------------------------------------------------------------------===//

#include "templates/rotate_quant_moe/family.h"

#include "templates/common/rotating_quantizer/emitter.h"
#include "templates/rotate_quant_moe/moe_sorter.h"
#include "templates/rotate_quant_moe/rules.h"

// GPUModuleOp travels by value: its complete type.
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mxf {

Status buildRotateQuantMoeKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                                 llvm::StringRef kernelName) {
  if (Status supported = checkRotateQuantMoeSupported(spec); !supported.ok())
    return supported;
  return buildRotatingQuantizerKernel(module, spec, kernelName, rotateQuantMoeQuantizer(),
                                      makeMoeSorter);
}

TemplateFamily rotate_quant_moe::family() {
  return {rotate_quant_moe::rules(), buildRotateQuantMoeKernel};
}

} // namespace mxf
