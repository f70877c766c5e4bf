//===- rotation_selection.h - Selective rotation's kernel-wide branch -*- C++ -*-===//
//
// select=flag|mask (docs/templates.md, "Selective rotation"): a launch
// chooses between the rotating body and the quant-only one with one
// kernel-wide value, so that each family's body branches once, uniformly
// over the workgroup (its barriers stay legal), on this.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_ROTATION_SELECTION_H
#define MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_ROTATION_SELECTION_H

#include "templates/common/kernel_arguments.h"

#include "spec/kernel_spec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mxf {

/// Whether this launch rotates (i1; precondition: spec.select is not off):
/// the by-value `rotate`, or layer_mask[layer] with the index clamped into
/// the mask, so that a bad index can never read outside it (the launcher
/// refuses one first).
inline mlir::Value emitRotationSelected(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec,
                                        const KernelArguments &args) {
  namespace arith = mlir::arith;
  mlir::Value zero = arith::ConstantIntOp::create(b, b.getI32Type(), 0);
  if (spec.select == RotationSelect::Flag)
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ne, args.get("rotate"), zero);
  mlir::Value layer = arith::IndexCastOp::create(b, b.getIndexType(), args.get("layer"));
  // Unsigned min: a negative index becomes huge and clamps to the last.
  layer = arith::MinUIOp::create(b, layer, arith::ConstantIndexOp::create(b, spec.layers - 1));
  mlir::Value entry =
      mlir::memref::LoadOp::create(b, args.get("layer_mask"), mlir::ValueRange{layer});
  return arith::CmpIOp::create(b, arith::CmpIPredicate::ne, entry, zero);
}

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_ROTATION_SELECTION_H
