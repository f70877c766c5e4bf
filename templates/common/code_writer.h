//===- code_writer.h - Packed codes: row-major, preshuffled, tiled; stores and loads -*- C++ -*-===//
//
// Where a lane's codes of one (row, 32-channel scale block) go. A block's 32
// codes are 16 bytes (fp4) or 24 bytes (fp6); a lane holds two pieces of 4
// codes (BlockQuantizer), channels 4g.. and 16+4g.., which sit at bytes
// g*piece and half + g*piece of the block (piece = 2 or 3 bytes, half = 8
// or 12). The layouts:
//  - plain: [rows, K*bits/8], the block at byte j*blockBytes of its row;
//  - preshuffle_16x16 (fp4; AITER's shuffle_weight(layout=(16,16)), numerics
//    weightIndex16x16): the view (n/16, 16, kBytes/32, 2, 16) puts byte
//    (row, 16j + c) at (row/16)*16*kBytes + (row%16)*16 + 256*j + c, so a
//    block stays 16 contiguous bytes and the two stores are the plain
//    layout's at another address;
//  - w6a16_16x128 (fp6; numerics w6a16TileIndex, docs/layouts.md): tiles of
//    16 rows x 4 blocks, tile (row/16, j/4) at 1536 bytes each in row-tile
//    major order; block (row, j) is lane L = row%16 + 16*(j%4) of its tile,
//    its bytes 0..15 at 16L and 16..23 at 1024 + 8L. A lane's second piece
//    straddles byte 16 when g = 1, so that piece is stored byte by byte.
//  - mxfp6_c0c1_256_padk2 (rotate_quant's layout=; AITER's A6W6 operand,
//    numerics a6w6CodeOffset): the same 16 + 8 split in bigger tiles, 256
//    rows x 4 blocks of 24576 bytes, ceil(K/128) + 2 of them per row tile;
//    block (row, j) is blk = (row%256/16)*64 + (j%4)*16 + row%16 of its
//    tile, bytes 0..15 at 16*blk (region C0) and 16..23 at 16384 + 8*blk
//    (C1). Per block only the tile stride differs from w6a16_16x128.
// As in ScaleWriter, the row's part of every index is computed once per lane.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_CODE_WRITER_H
#define MXFORGE_TEMPLATES_COMMON_CODE_WRITER_H

#include "templates/common/ir_builder.h"

#include "numerics/formats.h"
#include "numerics/options.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cassert>

namespace mxf {

/// Which 8 channels of a block a lane of group g = lane/16 holds.
enum class LaneChannels {
  MfmaTiles,  // 4g..4g+3 and 16+4g..16+4g+3: the MFMA result layout
  Contiguous, // 8g..8g+7: the butterfly's (and a load's) layout
};

/// Where codes go: a weight layout (quant_weight's output, the GEMM's
/// input), or AITER's A6W6 operand tiles (rotate_quant's
/// layout=mxfp6_c0c1_256_padk2).
enum class CodeLayout : uint8_t { Plain, Preshuffle16x16, W6A16Tile16x128, A6W6Tiles };

inline CodeLayout codeLayoutOf(WeightLayout layout) {
  switch (layout) {
  case WeightLayout::Preshuffle16x16:
    return CodeLayout::Preshuffle16x16;
  case WeightLayout::W6A16Tile16x128:
    return CodeLayout::W6A16Tile16x128;
  case WeightLayout::Plain:
    break;
  }
  return CodeLayout::Plain;
}

class CodeWriter : private IrBuilder {
public:
  /// `codes`: the [rows, K*bits/8] i8 code buffer (a static memref or a
  /// row-strided view; the tiled layouts are dense by definition, so only a
  /// static one, whose shape for the A6W6 tiles is the ABI's); `row`: this
  /// lane's row (index).
  CodeWriter(mlir::ImplicitLocOpBuilder &b, ElemFormat format, CodeLayout layout, Value codes,
             Value row)
      : IrBuilder(b), layout(layout), q(codes), row(row),
        blockBytes(formatInfo(format).bits * 32 / 8), pieceBytes(blockBytes / 8) {
    if (layout != CodeLayout::Plain)
      prepareTiledRow();
  }

  /// The same for a row given by group (see GroupedRow); only the A6W6 tiles
  /// take it (their padding rows are uniform groups).
  CodeWriter(mlir::ImplicitLocOpBuilder &b, ElemFormat format, CodeLayout layout, Value codes,
             GroupedRow grouped)
      : IrBuilder(b), layout(layout), q(codes), row(add(mulBy(grouped.group, 16), grouped.inGroup)),
        blockBytes(formatInfo(format).bits * 32 / 8), pieceBytes(blockBytes / 8) {
    assert(layout == CodeLayout::A6W6Tiles && "only the A6W6 tiles take a grouped row");
    prepareA6W6Row(grouped);
  }

  /// Stores a lane's two pieces (`bytes`: vector<2*piece x i8>) of scale
  /// block `scaleBlock` (index) of the row; `group` is g = lane/16 (index).
  /// With contiguous channels the two pieces are one run of 2*piece bytes at
  /// byte 2g*piece of the block.
  void storeLaneCodes(Value scaleBlock, Value group, Value bytes,
                      LaneChannels channels = LaneChannels::MfmaTiles) {
    const int64_t half = blockBytes / 2;
    if (splitsBlocks())
      return storeSplitBlock(scaleBlock, group, bytes, channels);
    if (channels == LaneChannels::Contiguous) {
      Value inBlock = mulBy(group, 2 * pieceBytes);
      if (layout == CodeLayout::Plain) {
        Value base = add(mulBy(scaleBlock, blockBytes), inBlock);
        mlir::vector::StoreOp::create(b, bytes, q, mlir::ValueRange{row, base});
        return;
      }
      Value base = add(add(rowOffset, mulBy(scaleBlock, 256)), inBlock);
      mlir::vector::StoreOp::create(b, bytes, flatCodes, mlir::ValueRange{base});
      return;
    }
    if (layout == CodeLayout::Plain) {
      Value base = add(mulBy(scaleBlock, blockBytes), mulBy(group, pieceBytes));
      mlir::vector::StoreOp::create(b, slice(bytes, 0, pieceBytes), q, mlir::ValueRange{row, base});
      mlir::vector::StoreOp::create(b, slice(bytes, pieceBytes, pieceBytes), q,
                                    mlir::ValueRange{row, add(base, idx(half))});
      return;
    }
    Value base = add(add(rowOffset, mulBy(scaleBlock, 256)), mulBy(group, pieceBytes));
    mlir::vector::StoreOp::create(b, slice(bytes, 0, pieceBytes), flatCodes,
                                  mlir::ValueRange{base});
    mlir::vector::StoreOp::create(b, slice(bytes, pieceBytes, pieceBytes), flatCodes,
                                  mlir::ValueRange{add(base, idx(half))});
  }

  /// Stores a whole block (`bytes`: vector<blockBytes x i8>) of the row:
  /// the 16-byte head and 8-byte tail where a layout splits blocks, one
  /// store where it keeps them contiguous. (A lane writes a whole block:
  /// the A6W6 tiles' padding, where lane (r16, g) fills block 4t + g.)
  void storeBlock(Value scaleBlock, Value bytes) {
    if (splitsBlocks()) {
      assert(blockBytes == 24 && "the split layouts are of fp6 blocks");
      const SplitBases at = splitBases(scaleBlock);
      mlir::vector::StoreOp::create(b, slice(bytes, 0, 16), flatCodes,
                                    mlir::ValueRange{splitOffset(at.head)});
      mlir::vector::StoreOp::create(b, slice(bytes, 16, 8), flatCodes,
                                    mlir::ValueRange{splitOffset(at.tail)});
      return;
    }
    if (layout == CodeLayout::Plain) {
      mlir::vector::StoreOp::create(b, bytes, q,
                                    mlir::ValueRange{row, mulBy(scaleBlock, blockBytes)});
      return;
    }
    mlir::vector::StoreOp::create(b, bytes, flatCodes,
                                  mlir::ValueRange{add(rowOffset, mulBy(scaleBlock, 256))});
  }

  /// What storeLaneCodes wrote, read back whole: the blockBytes bytes of
  /// scale block `scaleBlock` of the row (vector<blockBytes x i8>): one load
  /// where the layout keeps a block contiguous (plain, preshuffle_16x16),
  /// the 16-byte head and the 8-byte tail of w6a16_16x128 and the A6W6
  /// tiles (one dwordx4 and one dwordx2). rotate_quant_gemm reads its
  /// weights through this.
  Value loadBlock(Value scaleBlock) {
    auto type = mlir::VectorType::get({blockBytes}, b.getI8Type());
    if (splitsBlocks()) {
      const SplitBases at = splitBases(scaleBlock);
      Value head = mlir::vector::LoadOp::create(
          b, mlir::VectorType::get({16}, b.getI8Type()), flatCodes,
          mlir::ValueRange{splitOffset(at.head)});
      Value tail = mlir::vector::LoadOp::create(
          b, mlir::VectorType::get({8}, b.getI8Type()), flatCodes,
          mlir::ValueRange{splitOffset(at.tail)});
      llvm::SmallVector<int64_t, 24> both;
      for (int64_t i = 0; i < 24; ++i)
        both.push_back(i);
      return mlir::vector::ShuffleOp::create(b, head, tail, both);
    }
    if (layout == CodeLayout::Plain)
      return mlir::vector::LoadOp::create(b, type, q,
                                          mlir::ValueRange{row, mulBy(scaleBlock, blockBytes)});
    return mlir::vector::LoadOp::create(b, type, flatCodes,
                                        mlir::ValueRange{add(rowOffset, mulBy(scaleBlock, 256))});
  }

private:
  /// The layouts that keep a block's first 16 bytes and its last 8 in two
  /// regions of a tile.
  bool splitsBlocks() const {
    return layout == CodeLayout::W6A16Tile16x128 || layout == CodeLayout::A6W6Tiles;
  }

  void prepareTiledRow() {
    llvm::SmallVector<mlir::ReassociationIndices, 1> bothDims{{0, 1}};
    flatCodes = mlir::memref::CollapseShapeOp::create(b, q, bothDims);
    const int64_t rowBytes = llvm::cast<mlir::MemRefType>(q.getType()).getDimSize(1);
    if (layout == CodeLayout::Preshuffle16x16) {
      rowOffset = add(mulBy(divBy(row, 16), 16 * rowBytes), mulBy(remBy(row, 16), 16));
      return;
    }
    if (layout == CodeLayout::A6W6Tiles)
      return prepareA6W6Row({divBy(row, 16), remBy(row, 16)});
    // W6A16: 16 rows of rowBytes are rowBytes/24 blocks = rowBytes/96 tiles
    // of 1536 bytes, i.e. 16 * rowBytes bytes per row tile.
    Value tileRow = mulBy(divBy(row, 16), 16 * rowBytes);
    rowOffset = add(tileRow, mulBy(remBy(row, 16), 16));
    secondRegionRowOffset = add(tileRow, add(idx(1024), mulBy(remBy(row, 16), 8)));
    tileBytes = 1536;
  }

  /// A6W6: a row tile is 256 rows of rowBytes (its K tiles, guards
  /// included); in a K tile, block (row, j) is blk = (group%16)*64 + (j%4)*16
  /// + inGroup. The group's part (uniform where the group is) and the
  /// lane's are summed last.
  void prepareA6W6Row(GroupedRow grouped) {
    llvm::SmallVector<mlir::ReassociationIndices, 1> bothDims{{0, 1}};
    flatCodes = mlir::memref::CollapseShapeOp::create(b, q, bothDims);
    const int64_t rowBytes = llvm::cast<mlir::MemRefType>(q.getType()).getDimSize(1);
    Value tileRow = mulBy(divBy(grouped.group, 16), 256 * rowBytes);
    Value groupInTile = remBy(grouped.group, 16);
    rowOffset = add(add(tileRow, mulBy(groupInTile, 64 * 16)), mulBy(grouped.inGroup, 16));
    secondRegionRowOffset = add(add(tileRow, add(idx(16384), mulBy(groupInTile, 64 * 8))),
                                mulBy(grouped.inGroup, 8));
    tileBytes = 24576;
  }

  /// An offset into the split layouts' flat buffer: 32-bit for the A6W6
  /// tiles (IrBuilder::offset32: a 256-row tile set is far below 4 GiB), so
  /// their byte-wise stores address an SGPR base plus one VGPR, not a
  /// 64-bit pair each (W6A16 keeps its 64-bit offsets).
  Value splitOffset(Value offset) {
    return layout == CodeLayout::A6W6Tiles ? offset32(offset) : offset;
  }

  /// Where block `scaleBlock` of the row starts in both regions of its tile
  /// (tile j/4; in it, block j%4 is 16 rows' blocks further on: 256 bytes
  /// of the first region, 128 of the second).
  struct SplitBases {
    Value head, tail;
  };
  SplitBases splitBases(Value scaleBlock) {
    Value tile = mulBy(divBy(scaleBlock, 4), tileBytes);
    Value blockInTile = remBy(scaleBlock, 4);
    return {add(add(rowOffset, tile), mulBy(blockInTile, 16 * 16)),
            add(add(secondRegionRowOffset, tile), mulBy(blockInTile, 16 * 8))};
  }

  /// A lane of group g holds bytes 3g..3g+2 (always among the first 16) and
  /// 12+3g..14+3g of the block: the first piece is one store, the second
  /// goes byte by byte, since at g = 1 it crosses byte 16 into the lane's
  /// last 8.
  void storeSplitBlock(Value scaleBlock, Value group, Value bytes, LaneChannels channels) {
    const SplitBases at = splitBases(scaleBlock);
    Value firstBase = at.head, secondBase = at.tail;
    auto storeByte = [&](Value c, int64_t i) {
      Value inFirst = cmp(mlir::arith::CmpIPredicate::ult, c, idx(16));
      Value index = mlir::arith::SelectOp::create(b, inFirst, add(firstBase, c),
                                                  add(secondBase, add(c, idx(-16))));
      Value byte = mlir::vector::ExtractOp::create(b, bytes, i);
      mlir::memref::StoreOp::create(b, byte, flatCodes, mlir::ValueRange{splitOffset(index)});
    };
    if (channels == LaneChannels::Contiguous) {
      // Bytes 6g..6g+5: group 2's run crosses byte 16.
      for (int64_t i = 0; i < 2 * pieceBytes; ++i)
        storeByte(add(mulBy(group, 2 * pieceBytes), idx(i)), i);
      return;
    }
    Value firstByte = mulBy(group, pieceBytes);
    mlir::vector::StoreOp::create(b, slice(bytes, 0, pieceBytes), flatCodes,
                                  mlir::ValueRange{splitOffset(add(firstBase, firstByte))});
    for (int64_t i = 0; i < pieceBytes; ++i)
      storeByte(add(firstByte, idx(blockBytes / 2 + i)), pieceBytes + i);
  }

  CodeLayout layout;
  Value q, row;
  int64_t blockBytes, pieceBytes;
  Value flatCodes, rowOffset;     // tiled layouts only
  Value secondRegionRowOffset;    // w6a16_16x128 and the A6W6 tiles only
  int64_t tileBytes = 0;          // w6a16_16x128 and the A6W6 tiles only
};

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_CODE_WRITER_H
