//===- rotate_quant_gemm_template.h - Fused rotate + MX quant + A4W4 GEMM -*- C++ -*-===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_TEMPLATE_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_TEMPLATE_H

#include "support/status.h"
#include "spec/kernel_spec.h"

#include "llvm/ADT/StringRef.h"

namespace mlir::gpu {
class GPUModuleOp;
} // namespace mlir::gpu

namespace mxf {

/// Appends `gpu.func @<kernelName>(x, [r], w_q, w_s, y, m, x_stride, y_stride)
/// kernel`: y = bf16(dequant(Q(x.R)) . dequant(W)^T), the activation side by
/// rotate_quant's emitter into LDS, the product on
/// v_mfma_scale_f32_16x16x128_f8f6f4. Fails for specs
/// checkRotateQuantGemmSupported refuses, never halfway through.
Status buildRotateQuantGemmKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                                  llvm::StringRef kernelName);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_TEMPLATE_H
