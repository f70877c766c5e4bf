//===- family.cpp - The quant_weight template family ----------------------===//
//
// The rotating quantizer (templates/common/rotating_quantizer/) over N
// fixed weight rows, with quant_weight's decisions (rules.cpp).
//
//===----------------------------------------------------------------------===//

#include "templates/quant_weight/family.h"

#include "templates/common/rotating_quantizer/emitter.h"
#include "templates/quant_weight/rules.h"

// GPUModuleOp travels by value: its complete type.
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mxf {

Status buildQuantWeightKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                              llvm::StringRef kernelName) {
  if (Status supported = checkQuantWeightSupported(spec); !supported.ok())
    return supported;
  return buildRotatingQuantizerKernel(module, spec, kernelName, quantWeightQuantizer());
}

TemplateFamily quant_weight::family() { return {quant_weight::rules(), buildQuantWeightKernel}; }

} // namespace mxf
