//===- emitter.h - The rotating quantizer's kernel builder ------*- C++ -*-===//
//
// Builds the gpu.func of a kernel of the rotating quantizer: load bf16
// rows, rotate each RS block on the matrix cores, compute the block scales
// with the spec's rule and convert with the scaled converts, all in
// registers (docs/templates.md has the lane mapping and the summation
// order). rotate_quant, quant_weight and rotate_quant_moe are this kernel
// with their QuantizerFamily's decisions; rotate_quant_moe brings its own
// body (the sort in front of the stages). Each family checks its specs
// before calling it.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_EMITTER_H
#define MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_EMITTER_H

#include "templates/common/rotating_quantizer/quantizer_family.h"
#include "templates/common/rotating_quantizer/tiling.h"

#include "support/status.h"
#include "spec/kernel_spec.h"

#include "llvm/ADT/StringRef.h"
#include "mlir/IR/Value.h"

namespace mlir {
class ImplicitLocOpBuilder;
namespace gpu {
class GPUModuleOp;
} // namespace gpu
} // namespace mlir

namespace mxf {

class KernelArguments;

/// What a family's body builds on, inside the kernel's gpu.func (the
/// builder at its start): the stages (rotation_stage.h, block_converter.h,
/// global_store.h) take these.
struct QuantizerKernel {
  mlir::ImplicitLocOpBuilder &b;
  const KernelSpec &spec;
  const KernelTiling &tiling;
  const QuantizerFamily &family;
  const KernelArguments &args;
  mlir::Value rotationLds; // where R is staged (tiling.ldsBytes), or null
  mlir::Value frontLds;    // the family's front end's buffer (frontLdsBytes), or null
};

/// A family's kernel body; null: the dense body of rotate_quant and
/// quant_weight.
using QuantizerBody = void (*)(const QuantizerKernel &kernel);

class RotationStage;

/// The lane's place in the dense body, for a front end.
struct DenseRows {
  mlir::Value tid;       // the thread in the workgroup
  mlir::Value token;     // l % 16: the lane's row in its 16-row tile
  mlir::Value row;       // the lane's row (may lie past m)
  mlir::Value loadRow;   // the row it loads: min(row, m - 1)
  mlir::Value rows;      // m, the launch's rows (index)
  mlir::Value firstUnit; // the workgroup's first unit: its units are
                         // firstUnit .. firstUnit + waves - 1
};

/// What a family runs in front of the dense body's units
/// (rmsnorm_rotate_quant's residual add and norm): every wave of every
/// workgroup runs it (barriers are legal) after the lane's set-up, before
/// any unit, and it may give the stage its row source.
using DenseFrontEnd = void (*)(const QuantizerKernel &kernel, const DenseRows &rows,
                               RotationStage &rotation);

/// The dense body (rotate_quant's and quant_weight's: one workgroup per
/// 16-row tile and `waves` units of a row) with `frontEnd` in front.
void emitDenseBody(const QuantizerKernel &kernel, DenseFrontEnd frontEnd);

/// Appends `gpu.func @<kernelName>(<kernelOperands(spec)>, <scalars>) kernel`
/// to `module`: arguments are memrefs with the spec's static shapes (M =
/// the bucket) and the by-value arguments of abi/operands.h, with `body`
/// (or the dense body) inside. Precondition: the family's checks accept
/// `spec`.
Status buildRotatingQuantizerKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                                    llvm::StringRef kernelName, const QuantizerFamily &family,
                                    QuantizerBody body = nullptr);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_EMITTER_H
