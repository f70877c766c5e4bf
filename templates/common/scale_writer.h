//===- scale_writer.h - E8M0 scale bytes, plain, shuffled or tiled: stores and loads -*- C++ -*-===//
//
// Where a (row, scale block) byte goes: [rows, K/32] row-major, AITER's
// mx_scale_shuffle_idx layout (numerics a4w4ScaleIndex) into the padded
// [pad256(rows), pad8(K/32)] matrix, or AITER's A6W6 tiles (numerics
// a6w6ScaleOffset: 1024 bytes per 256-row x 128-K tile, at
// (row%256/128)*512 + (j%4)*128 + (row%16)*8 + row%128/16). For the last
// two, the row's part of the index is computed once per lane at
// construction; each store adds the block's part.
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
    if (layout == ScaleLayout::A6W6Tiles)
      prepareTiledScales({divBy(row, 16), remBy(row, 16)});
  }

  /// The same for a row given by group (see GroupedRow); only the A6W6
  /// tiles take it.
  ScaleWriter(mlir::ImplicitLocOpBuilder &b, ScaleLayout layout, Value scales, GroupedRow grouped)
      : IrBuilder(b), layout(layout), s(scales),
        row(add(mulBy(grouped.group, 16), grouped.inGroup)) {
    assert(layout == ScaleLayout::A6W6Tiles && "only the A6W6 tiles take a grouped row");
    prepareTiledScales(grouped);
  }

  /// Stores `byte` (i8) as the scale of block `scaleBlock` (index) of the row.
  void store(Value scaleBlock, Value byte) {
    if (layout == ScaleLayout::Plain) {
      mlir::memref::StoreOp::create(b, byte, s, mlir::ValueRange{row, scaleBlock});
      return;
    }
    mlir::memref::StoreOp::create(b, byte, flatScales, mlir::ValueRange{flatIndex(scaleBlock)});
  }

  /// The scale byte (i8) of block `scaleBlock` of the row: how the GEMM
  /// reads its weights' scales, from the same index as the store.
  Value load(Value scaleBlock) {
    if (layout == ScaleLayout::Plain)
      return mlir::memref::LoadOp::create(b, s, mlir::ValueRange{row, scaleBlock});
    return mlir::memref::LoadOp::create(b, flatScales, mlir::ValueRange{flatIndex(scaleBlock)});
  }

private:
  /// The index into the flat array: the row's part (computed once) plus the
  /// block's, of AITER mx_scale_shuffle_idx (numerics a4w4ScaleIndex) or of
  /// the A6W6 tiles (a6w6ScaleOffset).
  Value flatIndex(Value scaleBlock) {
    if (layout == ScaleLayout::A6W6Tiles) // K tile j/4 (1024 bytes), then j%4; 32-bit
      return offset32(add(tiledRowOffset, add(mulBy(divBy(scaleBlock, 4), 1024),
                                              mulBy(remBy(scaleBlock, 4), 128))));
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

  /// A6W6 tiles: the row's part; a row tile is 256 rows of the argument's
  /// columns (its K tiles' 1024 bytes each, guards included). Row r of the
  /// tile is at (r/128)*512 + (r%16)*8 + (r%128)/16; with r = 16*group +
  /// inGroup that is the group's (group%16/8)*512 + group%8 plus the lane's
  /// inGroup*8, summed last.
  void prepareTiledScales(GroupedRow grouped) {
    llvm::SmallVector<mlir::ReassociationIndices, 1> bothDims{{0, 1}};
    flatScales = mlir::memref::CollapseShapeOp::create(b, s, bothDims);
    const int64_t cols = llvm::cast<mlir::MemRefType>(s.getType()).getDimSize(1);
    Value groupInTile = remBy(grouped.group, 16);
    Value groupPart = add(add(mulBy(divBy(grouped.group, 16), 256 * cols),
                              mulBy(divBy(groupInTile, 8), 512)),
                          remBy(groupInTile, 8));
    tiledRowOffset = add(groupPart, mulBy(grouped.inGroup, 8));
  }

  ScaleLayout layout;
  Value s, row;
  Value flatScales;        // a4w4_shuffle and the A6W6 tiles
  Value shuffledRowOffset; // a4w4_shuffle only
  Value tiledRowOffset;    // A6W6 tiles only
};

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_SCALE_WRITER_H
