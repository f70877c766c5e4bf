//===- rotate_quant_template.h - Fused rotate + MX quant for gfx950 -*- C++ -*-===//
//
// Builds the gpu.func of a rotate_quant kernel: load bf16 rows, rotate each
// RS block on the matrix cores, compute the block scales with the spec's
// rule and convert to fp4 with v_cvt_scalef32_pk_fp4_f32, all in registers
// (docs/templates.md has the lane mapping and the summation order).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_TEMPLATE_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_TEMPLATE_H

#include "support/status.h"
#include "spec/kernel_spec.h"

#include "llvm/ADT/StringRef.h"

namespace mlir {
class OpBuilder;
class Location;
namespace gpu {
class GPUModuleOp;
} // namespace gpu
} // namespace mlir

namespace mxf {

/// Appends `gpu.func @<kernelName>(x, [r], q, s, m) kernel` to `module`.
/// Arguments are memrefs with the spec's static shapes (M = the bucket) and
/// the actual row count m : i32. Fails for specs the template does not
/// support (checkRotateQuantSupported), never halfway through.
Status buildRotateQuantKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                              llvm::StringRef kernelName);

/// Appends `gpu.func @<kernelName>(w, [r], q, s, w_stride) kernel`: the same
/// rotation and quantization over the spec's N rows of w (a build-time
/// constant, so no m argument), codes in the spec's weight layout (plain or
/// preshuffle_16x16), scales in its scale layout (a4w4_shuffle rows padded
/// to 256 with 0x7F). Fails for specs checkQuantWeightSupported refuses.
Status buildQuantWeightKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                              llvm::StringRef kernelName);

/// Appends `gpu.func @<kernelName>(x, [r], topk_ids, topk_weights,
/// [expert_mask], q, s, sorted_ids, sorted_weights, sorted_expert_ids,
/// num_valid_ids, m, [x_stride, q_stride]) kernel`: AITER's MoE sort of the
/// routing, done again by every workgroup in LDS, and the rotating quantizer
/// over the tokens (stage 1) or the routed (token, slot) rows (stage 2),
/// codes in input-row order and scales scattered to the sorted rows. Fails
/// for specs checkRotateQuantMoeSupported refuses.
Status buildRotateQuantMoeKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                                 llvm::StringRef kernelName);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_TEMPLATE_H
