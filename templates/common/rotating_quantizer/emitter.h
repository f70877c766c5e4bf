//===- emitter.h - The rotating quantizer's kernel builder ------*- C++ -*-===//
//
// Builds the gpu.func of a kernel of the rotating quantizer: load bf16
// rows, rotate each RS block on the matrix cores, compute the block scales
// with the spec's rule and convert with the scaled converts, all in
// registers (docs/templates.md has the lane mapping and the summation
// order). rotate_quant, quant_weight and rotate_quant_moe are this kernel
// with their QuantizerFamily's decisions (and the MoE family's row sorter);
// each family checks its specs before calling it.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_EMITTER_H
#define MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_EMITTER_H

#include "templates/common/rotating_quantizer/quantizer_family.h"
#include "templates/common/rotating_quantizer/row_sorter.h"

#include "support/status.h"
#include "spec/kernel_spec.h"

#include "llvm/ADT/StringRef.h"

namespace mlir::gpu {
class GPUModuleOp;
} // namespace mlir::gpu

namespace mxf {

/// Appends `gpu.func @<kernelName>(<kernelOperands(spec)>, <scalars>) kernel`
/// to `module`: arguments are memrefs with the spec's static shapes (M =
/// the bucket) and the by-value arguments of abi/operands.h. With
/// `makeSorter`, the rows are sorted first and every scale byte is
/// scattered to the sorted rows of its input row. Precondition: the
/// family's checks accept `spec`.
Status buildRotatingQuantizerKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                                    llvm::StringRef kernelName, const QuantizerFamily &family,
                                    RowSorterFactory makeSorter = nullptr);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_EMITTER_H
