//===- family.h - The rotate_quant_moe template family ------------*- C++ -*-===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_FAMILY_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_FAMILY_H

#include "templates/registry.h"

namespace mxf {

namespace rotate_quant_moe {
TemplateFamily family();
} // namespace rotate_quant_moe

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

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_FAMILY_H
