//===- scale_writer.h - E8M0 scale bytes, plain or a4w4_shuffle: stores and loads -*- C++ -*-===//
//
// Where a (row, scale block) byte goes: [rows, K/32] row-major, or AITER's
// mx_scale_shuffle_idx layout (numerics a4w4ScaleIndex) into the padded
// [pad256(rows), pad8(K/32)] matrix. For the shuffle, the row's part of the
// index is computed once per lane at construction; each store adds the
// block's part.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_SCALE_WRITER_H
#define MXFORGE_TEMPLATES_COMMON_SCALE_WRITER_H

#include "templates/common/ir_builder.h"

#include "numerics/options.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mxf {

class ScaleWriter : private IrBuilder {
public:
  /// `scales`: the static [rows, cols] i8 scale argument; `row`: this lane's
  /// row (index).
  ScaleWriter(mlir::ImplicitLocOpBuilder &b, ScaleLayout layout, Value scales, Value row)
      : IrBuilder(b), layout(layout), s(scales), row(row) {
    if (layout == ScaleLayout::A4W4Shuffle)
      prepareShuffledScales();
  }

  /// Stores `byte` (i8) as the scale of block `scaleBlock` (index) of the row.
  void store(Value scaleBlock, Value byte) {
    if (layout == ScaleLayout::Plain) {
      mlir::memref::StoreOp::create(b, byte, s, mlir::ValueRange{row, scaleBlock});
      return;
    }
    mlir::memref::StoreOp::create(b, byte, flatScales, mlir::ValueRange{shuffledIndex(scaleBlock)});
  }

  /// The scale byte (i8) of block `scaleBlock` of the row: how the GEMM
  /// reads its weights' scales, from the same index as the store.
  Value load(Value scaleBlock) {
    if (layout == ScaleLayout::Plain)
      return mlir::memref::LoadOp::create(b, s, mlir::ValueRange{row, scaleBlock});
    return mlir::memref::LoadOp::create(b, flatScales, mlir::ValueRange{shuffledIndex(scaleBlock)});
  }

private:
  /// AITER mx_scale_shuffle_idx (numerics a4w4ScaleIndex): the row's part
  /// (prepareShuffledScales) plus the block's, into the flat array.
  Value shuffledIndex(Value scaleBlock) {
    Value index = add(shuffledRowOffset, mulBy(divBy(scaleBlock, 8), 256));
    index = add(index, mulBy(remBy(scaleBlock, 4), 64));
    return add(index, mulBy(divBy(remBy(scaleBlock, 8), 4), 2));
  }

  /// a4w4_shuffle: the scale argument as one flat array, and this lane's
  /// row's part of every shuffled index, computed once. The index is flat
  /// by nature; splitting it into the argument's (row, column) only for the
  /// memref lowering to multiply them back took a 64-bit division and
  /// remainder by the padded column count per store (six stores at RS=64).
  void prepareShuffledScales() {
    llvm::SmallVector<mlir::ReassociationIndices, 1> bothDims{{0, 1}};
    flatScales = mlir::memref::CollapseShapeOp::create(b, s, bothDims);
    const int64_t paddedCols = llvm::cast<mlir::MemRefType>(s.getType()).getDimSize(1);
    shuffledRowOffset = add(add(mulBy(divBy(row, 32), paddedCols * 32), mulBy(remBy(row, 16), 4)),
                            divBy(remBy(row, 32), 16));
  }

  ScaleLayout layout;
  Value s, row;
  Value flatScales, shuffledRowOffset; // a4w4_shuffle only
};

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_SCALE_WRITER_H
