//===- global_store.cpp - The store stage into global memory ------------===//

#include "templates/common/rotating_quantizer/global_store.h"

#include "numerics/a6w6.h"
#include "numerics/formats.h"
#include "numerics/layouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mxf {

using mlir::Value;
namespace arith = mlir::arith;

void GlobalStore::emitBlock(const FinishedBlock &block) {
  const QuantizedBlock quantized = converter.convert(block, target.row, target.group);
  Value bytes = quantized.bytes, scaleByte = quantized.scaleByte;
  Value scaleBlock = block.scaleBlock;
  const LaneChannels channels = block.channels;

  if (spec.layout == ScaleLayout::A6W6Tiles) {
    // Every row up to pad256(m) is written: its codes, or 0 past m.
    Value codeRow = arith::OrIOp::create(b, target.rowValid, target.rowInPadding);
    ifThen(codeRow, [&] {
      target.codes->storeLaneCodes(scaleBlock, target.group,
                            arith::SelectOp::create(b, target.rowValid, bytes, zeroCodeBytes()),
                            channels);
    });
  }
  ifThen(target.rowValid, [&] {
    if (spec.layout != ScaleLayout::A6W6Tiles)
      target.codes->storeLaneCodes(scaleBlock, target.group, bytes, channels);
    if (!target.rowInPadding)
      ifThen(target.isGroupZero, [&] {
        target.scales->store(scaleBlock, arith::TruncIOp::create(b, b.getI8Type(), scaleByte));
      });
  });
  if (target.rowInPadding) {
    // One store for the row's scale byte or the padding byte: the same
    // shuffled index either way, computed and branched on once.
    Value scaleRow = arith::OrIOp::create(b, target.rowValid, target.rowInPadding);
    ifThen(arith::AndIOp::create(b, scaleRow, target.isGroupZero), [&] {
      Value byte = arith::SelectOp::create(
          b, target.rowValid, arith::TruncIOp::create(b, b.getI8Type(), scaleByte),
          arith::ConstantIntOp::create(b, b.getI8Type(), kScalePadByte));
      target.scales->store(scaleBlock, byte);
    });
  }
}

void GlobalStore::emitScaleColumnPadding(Value unit) {
  if (spec.layout == ScaleLayout::A6W6Tiles)
    return emitA6W6ColumnPadding(unit);
  if (spec.layout != ScaleLayout::A4W4Shuffle)
    return;
  const int64_t blocks = spec.K / 32;
  const int64_t paddedCols = args.bufferType("s").getDimSize(1);
  if (paddedCols == blocks)
    return;
  Value lastUnit = cmp(arith::CmpIPredicate::eq, unit, idx(tiling.unitsPerRow - 1));
  Value rowWritten = arith::OrIOp::create(b, target.rowValid, target.rowInPadding);
  ifThen(arith::AndIOp::create(b, arith::AndIOp::create(b, lastUnit, rowWritten), target.isGroupZero),
         [&] {
           Value pad = arith::ConstantIntOp::create(b, b.getI8Type(), kScalePadByte);
           for (int64_t col = blocks; col < paddedCols; ++col)
             target.scales->store(idx(col), pad);
         });
}

void GlobalStore::emitPaddingOnlyUnit(Value unit) {
  const int blocks = tiling.channelsPerUnit / 32;
  ifThen(arith::AndIOp::create(b, target.rowInPadding, target.isGroupZero), [&] {
    Value pad = arith::ConstantIntOp::create(b, b.getI8Type(), kScalePadByte);
    for (int blk = 0; blk < blocks; ++blk)
      target.scales->store(add(mulBy(unit, blocks), idx(blk)), pad);
  });
}

// --- AITER's A6W6 tiles: padding -------------------------------------------
// Padding is code 0 and scale 127 (numerics kA6W6PadCode/kA6W6PadScale)
// for rows in [m, pad256(m)), the blocks of K padded to 128 and the two
// guard K tiles. A 16-row group's share of one K tile is 64 whole blocks,
// block 4t + g of row r16 for lane (r16, g): one 16-byte and one 8-byte
// store of codes and one scale byte per lane fill it, contiguous in C0
// and C1. That is the unit of all padding here.
//
// Rows past ceil16(m) are not given row tiles of their own (as the a4w4
// padding is): at decode (m <= 16) that would launch 16 times the
// workgroups, each paying its set-up to write zeros (210,841 against
// 36,608 wave-instructions at K=4096, RS=32). The launched waves share
// those (16-row group, K tile) pieces instead.
/// Lane (r16, g)'s block of K tile `kTile` through `codeWriter` and
/// `scaleWriter` (of the lane's row or of a padding row): codes 0, scale
/// 127.
void GlobalStore::emitA6W6PaddingBlockOfKTile(Value kTile, CodeWriter &codeWriter, ScaleWriter &scaleWriter) {
  static_assert(kA6W6PadScale == kScalePadByte && kA6W6PadCode == 0);
  Value block = add(mulBy(kTile, 4), target.group);
  const int64_t blockBytes = formatInfo(spec.fmt).bits * 32 / 8;
  auto type = mlir::VectorType::get({blockBytes}, b.getI8Type());
  codeWriter.storeBlock(block, arith::ConstantOp::create(
                                   b, type, mlir::DenseElementsAttr::get(type, b.getI8IntegerAttr(0))));
  scaleWriter.store(block, arith::ConstantIntOp::create(b, b.getI8Type(), kScalePadByte));
}

/// The 16-row groups of [ceil16(m), pad256(m)), every K tile (guards
/// included): piece i = (group, K tile), group-major, goes to wave i mod
/// W of the W waves launched, in the order (row tile, unit). A wave steps
/// its (group, K tile) by W without dividing per piece: W = stepGroups *
/// kTiles + stepTiles, divided once. The wave's index is made uniform
/// (readfirstlane: the compiler cannot know tid/64 is), so the loop and
/// each piece's group and K tile offsets run on the scalar unit and a
/// piece costs the lane's address adds and its three stores.
void GlobalStore::emitA6W6PaddingRows(Value unit, Value token, Value q, Value s,
                                    Value rowTile, Value mIndex) {
  const int64_t kTiles = args.bufferType("s").getDimSize(1) / 4;
  const int64_t gridX =
      (tiling.unitsPerRow + tiling.wavesPerWorkgroup - 1) / tiling.wavesPerWorkgroup;
  const int64_t wavesPerRowTile = gridX * tiling.wavesPerWorkgroup;
  Value launchedTiles = divBy(add(mIndex, idx(kTileRows - 1)), kTileRows);
  Value paddedGroups = mulBy(divBy(add(mIndex, idx(255)), 256), 256 / kTileRows);
  Value pieces = mulBy(arith::SubIOp::create(b, paddedGroups, launchedTiles), kTiles);
  Value waveIndex = waveUniform(add(mulBy(rowTile, wavesPerRowTile), unit));
  Value waves = mulBy(launchedTiles, wavesPerRowTile);
  Value stepGroups = divBy(waves, kTiles), stepTiles = remBy(waves, kTiles);
  Value firstGroup = add(launchedTiles, divBy(waveIndex, kTiles));
  auto loop = mlir::scf::ForOp::create(b, waveIndex, pieces, waves,
                                       mlir::ValueRange{firstGroup, remBy(waveIndex, kTiles)});
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value padGroup = loop.getRegionIterArg(0), kTile = loop.getRegionIterArg(1);
  CodeWriter padCodes(b, spec.fmt, CodeLayout::A6W6Tiles, q, GroupedRow{padGroup, token});
  ScaleWriter padScales(b, ScaleLayout::A6W6Tiles, s, GroupedRow{padGroup, token});
  emitA6W6PaddingBlockOfKTile(kTile, padCodes, padScales);
  Value nextTile = add(kTile, stepTiles);
  Value wraps = cmp(arith::CmpIPredicate::uge, nextTile, idx(kTiles));
  Value carry = arith::SelectOp::create(b, wraps, idx(1), idx(0));
  nextTile = arith::SelectOp::create(b, wraps, arith::SubIOp::create(b, nextTile, idx(kTiles)),
                                     nextTile);
  mlir::scf::YieldOp::create(b, mlir::ValueRange{add(add(padGroup, stepGroups), carry), nextTile});
}

/// `value` (index), equal in every lane of the wave, as a value the
/// compiler knows is: read from the first lane (32 bits suffice here).
Value GlobalStore::waveUniform(Value value) {
  Value lane32 = arith::IndexCastUIOp::create(b, b.getI32Type(), value);
  Value first = mlir::ROCDL::ReadfirstlaneOp::create(b, b.getI32Type(), lane32);
  return arith::IndexCastUIOp::create(b, b.getIndexType(), first);
}

/// The launched row tiles' own padding: the wave of the last unit writes
/// the blocks past K/32 (the last K tile's padded blocks, then the guard
/// tiles) for its 16 rows, all below pad256(m).
void GlobalStore::emitA6W6ColumnPadding(Value unit) {
  const int64_t blocks = spec.K / 32;
  const int64_t kTiles = args.bufferType("s").getDimSize(1) / 4;
  Value lastUnit = cmp(arith::CmpIPredicate::eq, unit, idx(tiling.unitsPerRow - 1));
  ifThen(lastUnit, [&] {
    if (blocks % 4 != 0) // the lanes of the padded blocks of the last K tile
      ifThen(cmp(arith::CmpIPredicate::uge, target.group, idx(blocks % 4)),
             [&] { emitA6W6PaddingBlockOfKTile(idx(blocks / 4), *target.codes, *target.scales); });
    for (int64_t kTile = (blocks + 3) / 4; kTile < kTiles; ++kTile)
      emitA6W6PaddingBlockOfKTile(idx(kTile), *target.codes, *target.scales);
  });
}

/// A lane's two pieces of a block, all code 0.
Value GlobalStore::zeroCodeBytes() {
  const int64_t bytes = formatInfo(spec.fmt).bits * 32 / 8 / 4;
  auto type = mlir::VectorType::get({bytes}, b.getI8Type());
  return arith::ConstantOp::create(b, type, mlir::DenseElementsAttr::get(type, b.getI8IntegerAttr(0)));
}

} // namespace mxf
