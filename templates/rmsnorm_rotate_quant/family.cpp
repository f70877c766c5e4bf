//===- family.cpp - The rmsnorm_rotate_quant template family --------------===//
//
// The rotating quantizer's kernel (templates/common/rotating_quantizer/)
// with its dense body and the norm in front (norm_front_end.h).
//
//===----------------------------------------------------------------------===//

#include "templates/rmsnorm_rotate_quant/family.h"

#include "templates/common/rotating_quantizer/emitter.h"
#include "templates/rmsnorm_rotate_quant/norm_front_end.h"
#include "templates/rmsnorm_rotate_quant/rules.h"

// GPUModuleOp travels by value: its complete type.
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mxf {
namespace {

void emitNormBody(const QuantizerKernel &kernel) { emitDenseBody(kernel, emitNormFrontEnd); }

} // namespace

Status buildRmsnormRotateQuantKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                                     llvm::StringRef kernelName) {
  if (Status supported = checkRmsnormRotateQuantSupported(spec); !supported.ok())
    return supported;
  return buildRotatingQuantizerKernel(module, spec, kernelName, rmsnormRotateQuantQuantizer(),
                                      emitNormBody);
}

TemplateFamily rmsnorm_rotate_quant::family() {
  return {rmsnorm_rotate_quant::rules(), buildRmsnormRotateQuantKernel};
}

} // namespace mxf
