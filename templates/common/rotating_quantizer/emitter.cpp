//===- emitter.cpp - The rotating quantizer: fused rotate + MX quant -----===//
//
// Lane mapping (docs/templates.md; GFX950_SEMANTICS C8): each wave computes
// y^T = R^T . x^T for 16 tokens with v_mfma_f32_16x16x32_bf16:
//   B operand: lane l holds token l%16, input channels 8(l/16)..+7 of a
//              32-channel chunk: one 16-byte load of a row of x.
//   A operand: lane l holds output channel l%16 of the tile, the same input
//              channels: a column of R (computed in registers for Hadamard,
//              read transposed from LDS for a learned R and, from RS=64 on,
//              for a per-block R; gathered from global memory for smaller
//              per-block R).
//   D:         lane l, register r: token l%16, output channel 4(l/16)+r.
// Two D tiles cover one 32-channel scale block: a token's 32 values sit in
// lanes t, t+16, t+32, t+48 (8 each), so the block maximum is an in-lane max
// and two cross-lane steps (xor 16, xor 32). Every lane then converts its 8
// values to 4 bytes of fp4 codes.
//
// Summation order (numerics/rotation.h): each output channel's chain of
// MFMAs runs over the 32-channel input chunks in ascending order starting
// from +0, one MFMA per chunk, which is the reference's chunk = 32 model.
//
//===----------------------------------------------------------------------===//

#include "templates/common/rotating_quantizer/emitter.h"
#include "templates/common/rotating_quantizer/gemm_activation.h"

#include "templates/common/block_quantizer.h"
#include "templates/common/code_writer.h"
#include "templates/common/hadamard_operands.h"
#include "templates/common/ir_builder.h"
#include "templates/common/kernel_arguments.h"
#include "templates/common/scale_writer.h"

#include "numerics/a6w6.h"
#include "numerics/layouts.h"
#include "numerics/packing.h"
#include "numerics/reference.h"
#include "numerics/rotation.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <array>
#include <cassert>
#include <functional>
#include <optional>
#include <utility>

namespace mxf {
namespace rotating_quantizer {

using mlir::Type;
using mlir::Value;
namespace arith = mlir::arith;
namespace vector = mlir::vector;

constexpr int kLanes = 64;
constexpr int kTileRows = 16;

class RotateQuantEmitter : private IrBuilder {
public:
  RotateQuantEmitter(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec,
                     const KernelTiling &tiling, const QuantizerFamily &family,
                     mlir::gpu::GPUFuncOp func, RowSorterFactory makeSorter = nullptr)
      : IrBuilder(b), spec(spec), tiling(tiling), family(family), makeSorter(makeSorter),
        args(spec, func), quantizer(b, spec) {
    r = args.get("r");
    s = args.get("s");
    m = args.get("m"); // null when the rows are N (quant_weight)
    if (tiling.ldsBytes > 0)
      lds = func.getWorkgroupAttributions().front();
    if (frontLdsBytes(family, spec, tiling) > 0)
      sortLds = func.getWorkgroupAttributions().back();
  }

  void emitBody() {
    Value tid = mlir::gpu::ThreadIdOp::create(b, mlir::gpu::Dimension::x);
    if (spec.round == Rounding::Sr) // one u32, read once (an s_load)
      quantizer.setStochasticSeed(
          mlir::memref::LoadOp::create(b, args.get("seed"), mlir::ValueRange{idx(0)}));
    if (makeSorter)
      return emitMoeBody(tid);
    Value token = setUpLane(tid);
    Value unit = add(mulBy(mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::x),
                           tiling.wavesPerWorkgroup),
                     wave);
    rowTile = mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::y);
    row = add(mulBy(rowTile, kTileRows), token);
    auto strideOf = [&](const char *name) {
      return arith::IndexCastOp::create(b, b.getIndexType(), args.get(name));
    };
    if (family.rowsAreN) {
      // The weight kernel: always N rows (a build-time constant), w at its
      // row stride, codes dense in the weight layout (docs/templates.md).
      mIndex = idx(spec.N);
      x = rowStridedView(b, args.get(family.input), mIndex, strideOf(family.inputStride));
      q = args.get("q");
    } else {
      mIndex = arith::IndexCastOp::create(b, b.getIndexType(), m);
      // x and q as m rows their row strides apart (an engine's views); the
      // static shapes of the arguments are only the spec's M. AITER's A6W6
      // tiles are dense (no q_stride).
      x = rowStridedView(b, args.get(family.input), mIndex, strideOf(family.inputStride));
      q = spec.layout == ScaleLayout::A6W6Tiles
              ? args.get("q")
              : rowStridedView(b, args.get("q"), mIndex, strideOf("q_stride"));
    }
    rowValid = cmp(arith::CmpIPredicate::ult, row, mIndex);
    // Rows past M still run (their results are never stored), reading the
    // last valid row so that every load stays inside x.
    loadRow = arith::MinUIOp::create(b, row, arith::SubIOp::create(b, mIndex, idx(1)));
    if (spec.layout == ScaleLayout::A6W6Tiles) {
      // The row tile (a workgroup id) is the group: the tiles' row offsets
      // are then scalar plus the lane's token.
      scales.emplace(b, spec.layout, s, GroupedRow{rowTile, token});
      codes.emplace(b, spec.fmt, CodeLayout::A6W6Tiles, q, GroupedRow{rowTile, token});
    } else {
      scales.emplace(b, spec.layout, s, row);
      codes.emplace(b, spec.fmt, codeLayout(), q, row);
    }
    if (spec.layout == ScaleLayout::A6W6Tiles) // the launched tiles' rows past m
      rowInPadding = cmp(arith::CmpIPredicate::uge, row, mIndex);
    if (tiling.fillsRowPadding) {
      // pad256(M): the shuffled scale rows the kernel fills with 0x7F.
      Value padded = mulBy(divBy(add(mIndex, idx(255)), 256), 256);
      rowInPadding = arith::AndIOp::create(b, cmp(arith::CmpIPredicate::uge, row, mIndex),
                                           cmp(arith::CmpIPredicate::ult, row, padded));
    }
    isGroupZero = cmp(arith::CmpIPredicate::eq, group, idx(0));
    Value unitValid = cmp(arith::CmpIPredicate::ult, unit, idx(tiling.unitsPerRow));
    emitScaleColumnPadding(unit);
    if (spec.layout == ScaleLayout::A6W6Tiles)
      emitA6W6PaddingRows(unit, token);
    auto rotating = [&] {
      if (tiling.stagesRotationInLds)
        return emitStagedBody(unit, unitValid, tid);
      emitUnitsOfWave(unit, unitValid, [&] { emitUnit(unit); });
    };
    if (spec.select == RotationSelect::Off)
      return rotating();
    // Selective rotation: one branch on a kernel-wide value, the rotating
    // body on one side and the quant-only units over the same RS channels
    // on the other. Uniform over the workgroup, so the staged body's
    // barriers stay legal; the side not taken costs the branch.
    ifElse(rotationSelected(), rotating,
           [&] { emitUnitsOfWave(unit, unitValid, [&] { emitPlainUnit(unit); }); });
  }

  /// Whether this launch rotates (select=flag|mask): the by-value `rotate`,
  /// or layer_mask[layer] with the index clamped into the mask, so that a
  /// bad index can never read outside it (the launcher refuses one first).
  Value rotationSelected() {
    Value zero = arith::ConstantIntOp::create(b, b.getI32Type(), 0);
    if (spec.select == RotationSelect::Flag)
      return arith::CmpIOp::create(b, arith::CmpIPredicate::ne, args.get("rotate"), zero);
    Value layer = arith::IndexCastOp::create(b, b.getIndexType(), args.get("layer"));
    // Unsigned min: a negative index becomes huge and clamps to the last.
    layer = arith::MinUIOp::create(b, layer, idx(spec.layers - 1));
    Value entry = mlir::memref::LoadOp::create(b, args.get("layer_mask"), mlir::ValueRange{layer});
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ne, entry, zero);
  }

  /// A wave's unit, unless it lies past the last one (K/unit not a multiple
  /// of the wave count: that wave exits). A 16-row tile wholly past M (the
  /// a4w4 padding up to pad256(M)) only writes padding scale bytes.
  void emitUnitsOfWave(Value unit, Value unitValid, const std::function<void()> &work) {
    ifThen(unitValid, [&] {
      if (!tiling.fillsRowPadding)
        return work();
      ifElse(tileWhollyPastM(), [&] { emitPaddingOnlyUnit(unit); }, work);
    });
  }

  /// The body when the workgroup stages R in LDS: every wave takes part in
  /// the copy and its barriers (waves past the last unit too) and only then
  /// may skip the computation. Whether a row tile lies wholly in the a4w4
  /// padding is the same for the whole workgroup, so that branch may hold
  /// barriers; such a tile stages nothing.
  void emitStagedBody(Value unit, Value unitValid, Value tid) {
    auto work = [&] {
      if (tiling.rotationSliceColumns > 0)
        return emitSlicedRotatedUnit(unit, unitValid, tid);
      emitStageRotation(tid);
      ifThen(unitValid, [&] { emitRotatedUnit(unit); });
    };
    if (!tiling.fillsRowPadding)
      return work();
    ifElse(
        tileWhollyPastM(), [&] { ifThen(unitValid, [&] { emitPaddingOnlyUnit(unit); }); }, work);
  }

  /// a4w4_shuffle with K/32 not a multiple of 8: the shuffled rows have
  /// columns past K/32 (padded to 8), which hold the padding byte. The wave
  /// of the last unit writes them for every row it visits (its rows and the
  /// padding rows up to pad256(m)), before anything that may leave early.
  /// The A6W6 tiles' own padding is emitA6W6ColumnPadding's.
  void emitScaleColumnPadding(Value unit) {
    if (spec.layout == ScaleLayout::A6W6Tiles)
      return emitA6W6ColumnPadding(unit);
    if (spec.layout != ScaleLayout::A4W4Shuffle)
      return;
    const int64_t blocks = spec.K / 32;
    const int64_t paddedCols = args.bufferType("s").getDimSize(1);
    if (paddedCols == blocks)
      return;
    Value lastUnit = cmp(arith::CmpIPredicate::eq, unit, idx(tiling.unitsPerRow - 1));
    Value rowWritten = arith::OrIOp::create(b, rowValid, rowInPadding);
    ifThen(arith::AndIOp::create(b, arith::AndIOp::create(b, lastUnit, rowWritten), isGroupZero),
           [&] {
             Value pad = arith::ConstantIntOp::create(b, b.getI8Type(), kScalePadByte);
             for (int64_t col = blocks; col < paddedCols; ++col)
               scales->store(idx(col), pad);
           });
  }

  /// The scale bytes of one unit's blocks for rows in [M, pad256(M)).
  void emitPaddingOnlyUnit(Value unit) {
    const int blocks = tiling.channelsPerUnit / 32;
    ifThen(arith::AndIOp::create(b, rowInPadding, isGroupZero), [&] {
      Value pad = arith::ConstantIntOp::create(b, b.getI8Type(), kScalePadByte);
      for (int blk = 0; blk < blocks; ++blk)
        scales->store(add(mulBy(unit, blocks), idx(blk)), pad);
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
  void emitA6W6PaddingBlockOfKTile(Value kTile, CodeWriter &codeWriter, ScaleWriter &scaleWriter) {
    static_assert(kA6W6PadScale == kScalePadByte && kA6W6PadCode == 0);
    Value block = add(mulBy(kTile, 4), group);
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
  void emitA6W6PaddingRows(Value unit, Value token) {
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
  Value waveUniform(Value value) {
    Value lane32 = arith::IndexCastUIOp::create(b, b.getI32Type(), value);
    Value first = mlir::ROCDL::ReadfirstlaneOp::create(b, b.getI32Type(), lane32);
    return arith::IndexCastUIOp::create(b, b.getIndexType(), first);
  }

  /// The launched row tiles' own padding: the wave of the last unit writes
  /// the blocks past K/32 (the last K tile's padded blocks, then the guard
  /// tiles) for its 16 rows, all below pad256(m).
  void emitA6W6ColumnPadding(Value unit) {
    const int64_t blocks = spec.K / 32;
    const int64_t kTiles = args.bufferType("s").getDimSize(1) / 4;
    Value lastUnit = cmp(arith::CmpIPredicate::eq, unit, idx(tiling.unitsPerRow - 1));
    ifThen(lastUnit, [&] {
      if (blocks % 4 != 0) // the lanes of the padded blocks of the last K tile
        ifThen(cmp(arith::CmpIPredicate::uge, group, idx(blocks % 4)),
               [&] { emitA6W6PaddingBlockOfKTile(idx(blocks / 4), *codes, *scales); });
      for (int64_t kTile = (blocks + 3) / 4; kTile < kTiles; ++kTile)
        emitA6W6PaddingBlockOfKTile(idx(kTile), *codes, *scales);
    });
  }

  /// A lane's two pieces of a block, all code 0.
  Value zeroCodeBytes() {
    const int64_t bytes = formatInfo(spec.fmt).bits * 32 / 8 / 4;
    auto type = mlir::VectorType::get({bytes}, b.getI8Type());
    return arith::ConstantOp::create(b, type, mlir::DenseElementsAttr::get(type, b.getI8IntegerAttr(0)));
  }

  /// rotate_quant_moe (docs/templates.md): the sort first, by every thread
  /// (moe_sort_emitter.h), then the rotating quantizer over the tile's 16
  /// tokens (stage 1) or its 16 * topk routed rows, 16 at a time (stage 2),
  /// with each scale byte scattered to the sorted rows of its input row.
  void emitMoeBody(Value tid) {
    tokenInTile = setUpLane(tid);
    Value unit = add(mulBy(mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::x),
                           tiling.wavesPerWorkgroup),
                     wave);
    rowTile = mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::y);
    mIndex = arith::IndexCastOp::create(b, b.getIndexType(), m);
    const int gridX =
        (tiling.unitsPerRow + tiling.wavesPerWorkgroup - 1) / tiling.wavesPerWorkgroup;
    sorter = makeSorter({b, spec, args, sortLds, tiling.workgroupSize(), gridX});
    sorter->emitSort(tid, rowTile, mIndex);
    isGroupZero = cmp(arith::CmpIPredicate::eq, group, idx(0));
    Value unitValid = cmp(arith::CmpIPredicate::ult, unit, idx(tiling.unitsPerRow));
    auto strideOf = [&](const char *name) {
      return arith::IndexCastOp::create(b, b.getIndexType(), args.get(name));
    };
    if (spec.stage != 2) {
      x = rowStridedView(b, args.get("x"), mIndex, strideOf("x_stride"));
      q = rowStridedView(b, args.get("q"), mIndex, strideOf("q_stride"));
      selectRows(add(mulBy(rowTile, kTileRows), tokenInTile), mIndex);
      return emitMoeTile(unit, unitValid, tid, /*rotationStaged=*/false);
    }
    // Stage 2: x [m, topk, K] and q [m, topk, packed] as m*topk dense rows;
    // the tile's rows are its tokens' (token, slot) rows, 16 per pass.
    llvm::SmallVector<mlir::ReassociationIndices, 2> rowsAndChannels{{0, 1}, {2}};
    x = mlir::memref::CollapseShapeOp::create(b, args.get("x"), rowsAndChannels);
    q = mlir::memref::CollapseShapeOp::create(b, args.get("q"), rowsAndChannels);
    Value routedRows = mulBy(mIndex, spec.topk);
    // A whole learned R is staged once for all passes.
    const bool stageOnce = tiling.stagesRotationInLds && tiling.rotationSliceColumns == 0;
    if (stageOnce)
      emitStageRotation(tid);
    auto passes = mlir::scf::ForOp::create(b, idx(0), idx(spec.topk), idx(1));
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(passes.getBody());
    subTile = passes.getInductionVar();
    selectRows(add(mulBy(rowTile, int64_t(kTileRows) * spec.topk),
                   add(mulBy(subTile, kTileRows), tokenInTile)),
               routedRows);
    emitMoeTile(unit, unitValid, tid, stageOnce);
  }

  /// The rows this lane quantizes next: `first` (index), valid below `rows`.
  void selectRows(Value first, Value rows) {
    row = first;
    rowValid = cmp(arith::CmpIPredicate::ult, row, rows);
    loadRow = arith::MinUIOp::create(b, row, arith::SubIOp::create(b, rows, idx(1)));
    codes.emplace(b, spec.fmt, CodeLayout::Plain, q, row);
  }

  /// One 16-row tile of the MoE kernel, as emitBody's work (barriers of a
  /// staged R included, so every wave runs this).
  void emitMoeTile(Value unit, Value unitValid, Value tid, bool rotationStaged) {
    if (!tiling.stagesRotationInLds)
      return ifThen(unitValid, [&] { emitUnit(unit); });
    if (tiling.rotationSliceColumns > 0)
      return emitSlicedRotatedUnit(unit, unitValid, tid);
    if (!rotationStaged)
      emitStageRotation(tid);
    ifThen(unitValid, [&] { emitRotatedUnit(unit); });
  }

  /// The scale byte (i8) of block `scaleBlock` of this lane's row, to every
  /// sorted row that names it. Stage 1: a token has topk sorted rows (fewer
  /// when an expert is masked); its four lanes share the byte and take
  /// slots g, g + 4, ... Stage 2: the row is one (token, slot) and has at
  /// most one sorted row, stored by lane group 0.
  void emitMoeScaleScatter(Value scaleBlock, Value byte) {
    if (spec.stage == 2) {
      auto [sortedRow, has] = sorter->sortedRowOf(add(mulBy(subTile, kTileRows), tokenInTile));
      ifThen(arith::AndIOp::create(b, isGroupZero, has),
             [&] { sorter->storeScale(sortedRow, scaleBlock, byte); });
      return;
    }
    const int64_t lastEntry = int64_t(kTileRows) * spec.topk - 1;
    for (int64_t first = 0; first < spec.topk; first += 4) {
      Value slot = add(group, idx(first));
      Value entry = arith::MinUIOp::create(b, add(mulBy(tokenInTile, spec.topk), slot),
                                           idx(lastEntry));
      auto [sortedRow, has] = sorter->sortedRowOf(entry);
      if (first + 3 >= spec.topk) // some lane groups have no slot here
        has = arith::AndIOp::create(b, has, cmp(arith::CmpIPredicate::ult, slot, idx(spec.topk)));
      ifThen(has, [&] { sorter->storeScale(sortedRow, scaleBlock, byte); });
    }
  }

  /// rotate_quant_gemm's activation side (docs/templates.md, "rotate_quant_gemm"):
  /// the workgroup's 16 rows (grid y) read from x at its row stride, rows
  /// past m reading row m-1 (their products are never stored), codes and
  /// scales written to LDS, plain, at the row's place in the tile. A staged
  /// learned R is copied once here, by every thread, before any slice.
  /// W6A16 (`ldsValues` set instead of the codes and scales): the rotated
  /// values are not quantized; each block goes to LDS [16, S] as bf16
  /// (storeGemmBf16Block).
  void prepareGemmActivation(Value ldsCodes, Value ldsScales, Value ldsValues = Value()) {
    Value tid = mlir::gpu::ThreadIdOp::create(b, mlir::gpu::Dimension::x);
    Value token = setUpLane(tid);
    rowTile = mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::y);
    row = token; // the writers' row: the token's row of the LDS tile
    mIndex = arith::IndexCastOp::create(b, b.getIndexType(), m);
    x = rowStridedView(b, args.get("x"), mIndex,
                       arith::IndexCastOp::create(b, b.getIndexType(), args.get("x_stride")));
    loadRow = arith::MinUIOp::create(b, add(mulBy(rowTile, kTileRows), token),
                                     arith::SubIOp::create(b, mIndex, idx(1)));
    if (ldsValues) {
      gemmBf16Values = ldsValues;
    } else {
      codes.emplace(b, spec.fmt, CodeLayout::Plain, ldsCodes, row);
      scales.emplace(b, ScaleLayout::Plain, ldsScales, row);
    }
    isGroupZero = cmp(arith::CmpIPredicate::eq, group, idx(0));
    gemmMode = true;
    if (tiling.stagesRotationInLds)
      emitStageRotation(tid);
  }

  /// Units slice*unitsPerSlice .. +unitsPerSlice-1 of the row, wave w taking
  /// units w, w + waves, ...; their scale blocks land at LDS blocks counted
  /// from the slice's first. With `unitsInFlight` > 1 (units whose x is loaded
  /// up front: prepareUnit's, loadPlainUnit's), a wave loads the x of that many of its
  /// units before computing any, so their round trips overlap; a unit past
  /// the slice loads the slice's last unit again and computes nothing.
  void emitGemmActivationSlice(Value slice, int64_t unitsPerSlice, int64_t unitsInFlight) {
    gemmSliceBlockBase = mulBy(slice, unitsPerSlice * tiling.channelsPerUnit / 32);
    Value first = mulBy(slice, unitsPerSlice);
    // The tiling groups only units whose x is loaded up front
    // (chooseRotateQuantGemmTiling: not the butterfly, not a per-block R
    // through each wave's LDS).
    assert(unitsInFlight == 1 ||
           (spec.rot != RotationKind::HadamardButterfly && !loopsOverChunks()));
    if (unitsInFlight > 1) {
      const int64_t waves = tiling.wavesPerWorkgroup;
      const int64_t perWave = (unitsPerSlice + waves - 1) / waves;
      Value end = add(first, idx(unitsPerSlice));
      Value own = add(first, wave);
      auto loop = mlir::scf::ForOp::create(b, idx(0), idx(perWave), idx(unitsInFlight));
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      llvm::SmallVector<RotatedUnit, 8> units;
      llvm::SmallVector<PlainUnit, 8> plainUnits;
      llvm::SmallVector<Value, 8> valid;
      for (int64_t g = 0; g < unitsInFlight; ++g) {
        Value unit = add(own, mulBy(add(loop.getInductionVar(), idx(g)), waves));
        valid.push_back(cmp(arith::CmpIPredicate::ult, unit, end));
        Value loaded = arith::MinUIOp::create(b, unit, arith::SubIOp::create(b, end, idx(1)));
        if (spec.RS == 0)
          plainUnits.push_back(loadPlainUnit(loaded));
        else
          units.push_back(prepareUnit(loaded));
      }
      for (int64_t g = 0; g < unitsInFlight; ++g)
        ifThen(valid[g], [&] {
          if (spec.RS == 0)
            quantizePlainUnit(plainUnits[g]);
          else
            emitRotatedBlocks(units[g]);
        });
      return;
    }
    auto loop = mlir::scf::ForOp::create(b, add(first, wave), add(first, idx(unitsPerSlice)),
                                         idx(tiling.wavesPerWorkgroup));
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    emitUnit(loop.getInductionVar());
  }

private:
  /// The lane's indices every body starts from: lane, wave, g = lane / 16
  /// and the Hadamard operands of its lane bits. Returns l % 16, the lane's
  /// row (token) in a 16-row tile.
  Value setUpLane(Value tid) {
    lane = remBy(tid, kLanes);
    wave = divBy(tid, kLanes);
    group = divBy(lane, kTileRows); // g = lane / 16
    hadamard.emplace(b, lane, group, spec.RS);
    return remBy(lane, kTileRows);
  }

  /// One unit of work (RS channels of the wave's 16 rows; 64 or 32 without
  /// rotation) by the spec's rotation.
  void emitUnit(Value unit) {
    if (spec.RS == 0)
      emitPlainUnit(unit);
    else if (spec.rot == RotationKind::HadamardButterfly)
      emitButterflyUnit(unit);
    else
      emitRotatedUnit(unit);
  }

  /// Where this kernel's codes go: the weight layout (quant_weight), AITER's
  /// A6W6 tiles, or plain rows.
  CodeLayout codeLayout() const {
    if (family.codesInWeightLayout)
      return codeLayoutOf(spec.wlayout);
    return spec.layout == ScaleLayout::A6W6Tiles ? CodeLayout::A6W6Tiles : CodeLayout::Plain;
  }

  /// Whether this workgroup's 16-row tile lies wholly in the padding rows.
  Value tileWhollyPastM() {
    return cmp(arith::CmpIPredicate::uge, mulBy(rowTile, kTileRows), mIndex);
  }

  // --- operands ------------------------------------------------------------
  /// 8 consecutive bf16 of x's row `loadRow` starting at `channel`.
  Value loadX8(Value channel) {
    auto type = mlir::VectorType::get({8}, b.getBF16Type());
    return vector::LoadOp::create(b, type, x, mlir::ValueRange{loadRow, channel});
  }

  /// Every thread of the workgroup copies 16-byte pieces of R into LDS; the
  /// barrier comes before any wave may leave (emitStagedBody).
  void emitStageRotation(Value tid) {
    const int64_t pieces = int64_t(spec.RS) * spec.RS / 8;
    const int64_t threads = tiling.workgroupSize();
    auto v8bf16 = mlir::VectorType::get({8}, b.getBF16Type());
    auto loop = mlir::scf::ForOp::create(b, tid, idx(pieces), idx(threads));
    {
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value flat = mulBy(loop.getInductionVar(), 8);
      Value in = divBy(flat, spec.RS);
      Value out = remBy(flat, spec.RS);
      Value piece = vector::LoadOp::create(b, v8bf16, r, mlir::ValueRange{in, out});
      vector::StoreOp::create(b, piece, lds, mlir::ValueRange{flat});
    }
    mlir::gpu::BarrierOp::create(b);
  }

  /// rconv=xrt: r holds R[out][in]. A lane's A operand, 8 input channels of
  /// one output channel, is then 8 consecutive elements of a row of r: one
  /// 16-byte LDS read instead of two transposing ones. R is staged as it is
  /// given (rows of r are output channels), so the copies stay 16-byte
  /// pieces; only which rows a slice or piece takes changes.
  bool readsRowsOfR() const { return spec.rconv == RotationConvention::XRt; }

  /// Rows of R (or of a slice or piece of it) in LDS, in elements.
  int64_t ldsPitch() const {
    if (tiling.transposesInWaveLds)
      return 32;
    if (tiling.rotationSliceColumns > 0 && !readsRowsOfR())
      return tiling.rotationSliceColumns;
    return spec.RS;
  }

  /// The A operand of input chunk c, `tile`, output block `outBlock` (all
  /// known at build time) from R in LDS, `laneBase` being
  /// RotatedUnit::ldsReadBase.
  Value ldsOperand(Value laneBase, int64_t c, int64_t tile, int64_t outBlock) {
    if (readsRowsOfR())
      return rowOperand(laneBase, c * 32 + (tile * 16 + outBlock * 32) * ldsPitch());
    return transposedOperand(laneBase, c * 32 * ldsPitch() + tile * 16 + outBlock * 32);
  }

  /// How far ldsReadBase moves from one output block to the next.
  int64_t ldsOutBlockStep() const { return readsRowsOfR() ? 32 * ldsPitch() : 32; }

  /// rconv=xrt: 8 consecutive bf16 of R in LDS (ds_read_b128).
  Value rowOperand(Value laneBase, int64_t offset) {
    auto v8bf16 = mlir::VectorType::get({8}, b.getBF16Type());
    return vector::LoadOp::create(b, v8bf16, lds, mlir::ValueRange{add(laneBase, idx(offset))});
  }

  /// A operand from R staged row-major in LDS (flat), with two
  /// ds_read_b64_tr_b16 (GFX950_SEMANTICS C7): lane t of a 16-lane group
  /// points at row in0 + t/4 (+4), columns out0 + 4(t%4)..+3, and receives
  /// column out0 + t of rows in0..in0+3 (in0+4..in0+7). `laneBase` is
  /// RotatedUnit::ldsReadBase (lane part of in0 and out0 included);
  /// `offset` adds the chunk's rows, the tile's columns and an output block
  /// known at build time. A constant added to one base lets every read fold
  /// it into the instruction's offset field.
  Value transposedOperand(Value laneBase, int64_t offset) {
    auto v4bf16 = mlir::VectorType::get({4}, b.getBF16Type());
    Value low = mlir::amdgpu::TransposeLoadOp::create(b, v4bf16, lds,
                                                      mlir::ValueRange{add(laneBase, idx(offset))});
    Value high = mlir::amdgpu::TransposeLoadOp::create(
        b, v4bf16, lds, mlir::ValueRange{add(laneBase, idx(offset + 4 * ldsPitch()))});
    return vector::ShuffleOp::create(b, low, high, llvm::ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  }

  /// Element index in LDS of this lane's first transposed read of chunk 0,
  /// tile 0, output block 0: row 8(l/16) + t/4, column 4(t%4) (t = l%16).
  Value ldsLaneOffset() {
    Value t = remBy(lane, kTileRows);
    if (readsRowsOfR()) // row (output channel) t, input channels 8(l/16)..
      return add(mulBy(t, ldsPitch()), mulBy(group, 8));
    Value rowIndex = add(mulBy(group, 8), divBy(t, 4));
    return add(mulBy(rowIndex, ldsPitch()), mulBy(remBy(t, 4), 4));
  }

  /// A operand of one MFMA for rot=learned_per_block: R_unit[in0 + t][out]
  /// for t = 0..7 (channel indices inside the rotation block), gathered from
  /// global memory as vector<8xbf16>.
  Value gatheredOperand(Value unit, Value in0, Value out) {
    if (readsRowsOfR()) // R_unit[out][in0..in0+7]: one 16-byte load
      return vector::LoadOp::create(b, mlir::VectorType::get({8}, b.getBF16Type()), r,
                                    mlir::ValueRange{unit, out, in0});
    llvm::SmallVector<Value, 8> elements;
    for (int t = 0; t < 8; ++t)
      elements.push_back(
          mlir::memref::LoadOp::create(b, r, mlir::ValueRange{unit, add(in0, idx(t)), out}));
    return vector::FromElementsOp::create(b, mlir::VectorType::get({8}, b.getBF16Type()),
                                          elements);
  }

  // --- work units ----------------------------------------------------------
  /// What a wave holds for the rotation block it computes.
  struct RotatedUnit {
    Value unit;         // the rotation block (index into K/RS)
    Value blockBase;    // its first channel
    Value groupChannel; // 8(l/16): this lane's first input channel of a chunk
    Value tokenInTile;  // l%16
    /// One vector<8xbf16> of x per 32-channel input chunk (empty when the
    /// chunks loop and load x themselves).
    llvm::SmallVector<Value, 8> xChunks;
    /// rot=hadamard, unrolled output blocks: this lane's operand of each
    /// tile, [tile][0], and its negation, [tile][1].
    Value hadamard[2][2];
    /// rot=hadamard, output-block loop: this lane's operand of tile 0 of
    /// output block 0, and the signs (HadamardOperands::kPairSigns or 0) that turn it into
    /// tile 1's.
    Value hadamardBase, hadamardTileSigns;
    /// R read through LDS: ldsLaneOffset() plus the start of the current
    /// output block's columns (all of R staged), of its buffer (slices) or
    /// of this wave's piece (learned_per_block). Where output blocks loop it
    /// is carried by the loop: computed from the induction variable instead,
    /// LLVM hoists "lane part + chunk offset" out of the loop once per chunk,
    /// tile and read, each in its own register (8 address VGPRs instead of
    /// 1 at RS=128).
    Value ldsReadBase;
  };

  /// Up to two output blocks are unrolled. Larger blocks loop, so that the
  /// register allocator sees one block's accumulators and operands live at a
  /// time instead of all of them (RS=256 unrolled needs ~94-150 VGPRs).
  bool loopsOverOutputBlocks() const { return spec.RS / 32 > 2; }

  /// rot=hadamard at RS >= 256 derives every A operand from one vector by
  /// flipping sign bits (prepareUnit says why).
  bool xorsHadamardSigns() const { return spec.RS >= 256; }

  /// learned_per_block at RS >= 64 walks the input chunks in a loop
  /// (emitWaveTransposedUnit) and loads x there, per chunk.
  bool loopsOverChunks() const { return tiling.transposesInWaveLds; }

  RotatedUnit prepareUnit(Value unit) {
    RotatedUnit u;
    u.unit = unit;
    u.blockBase = mulBy(unit, spec.RS);
    u.groupChannel = mulBy(group, 8);
    u.tokenInTile = remBy(lane, kTileRows);
    if (tiling.stagesRotationInLds) // a sliced copy starts from buffer 0 too
      u.ldsReadBase = ldsLaneOffset();
    if (tiling.transposesInWaveLds) // this wave's piece
      u.ldsReadBase = add(mulBy(wave, 32 * 32), ldsLaneOffset());
    // The block's x, loaded once and reused by every output block.
    if (!loopsOverChunks())
      for (int c = 0; c < spec.RS / kMfmaBf16ChunkK; ++c)
        u.xChunks.push_back(loadX8(add(u.blockBase, add(idx(c * 32), u.groupChannel))));
    // in = 32c + (8g + t) and out = 32o + (16 tile + l%16): split at bit 5,
    // parity(in & out) = parity(c & o) ^ parity((8g+t) & (16 tile + l%16)).
    // So two operand vectors per lane (one per tile) and their negations
    // serve every (o, c); the chain picks one, at build time when the output
    // blocks are unrolled, else with a select (at RS=128 O3 unrolls the
    // loop's four iterations and the selects fold away).
    if (spec.rot == RotationKind::Hadamard && !xorsHadamardSigns()) {
      u.hadamard[0][0] = hadamard->tileZero();
      u.hadamard[1][0] = hadamard->flipSigns(u.hadamard[0][0], hadamard->tileOneSigns());
      for (int tile = 0; tile < 2; ++tile)
        u.hadamard[tile][1] = hadamard->negate(u.hadamard[tile][0]);
    }
    // In the loop LLVM keeps (RS=256), four live vectors plus the selected
    // one cost 20 VGPRs (70 in all, 7 waves). Bit 4 of 8g+t is g >= 2, so
    // tile 1's entries are tile 0's negated in lanes with g >= 2: one vector
    // and an xor of sign bits per MFMA serve every (tile, o, c).
    if (spec.rot == RotationKind::Hadamard && xorsHadamardSigns()) {
      u.hadamardBase = hadamard->tileZero();
      u.hadamardTileSigns = hadamard->tileOneSigns();
    }
    return u;
  }

  /// The A operand of chunk c of `tile` in output block `outBlock`
  /// (`outBlockConst` when known at build time), for every rotation kind
  /// except the chunk loop of learned_per_block.
  Value rotationOperand(const RotatedUnit &u, int c, int tile, Value outBlock,
                        std::optional<int> outBlockConst) {
    switch (spec.rot) {
    case RotationKind::Hadamard: {
      // parity(c & o) flips the whole chunk.
      const auto flippedAt = [&](int o) { return __builtin_popcount(unsigned(c & o)) & 1; };
      if (!xorsHadamardSigns()) {
        if (outBlockConst)
          return u.hadamard[tile][flippedAt(*outBlockConst)];
        return arith::SelectOp::create(b, chunkSignFlipped(c, outBlock), u.hadamard[tile][1],
                                       u.hadamard[tile][0]);
      }
      Value signs = outBlockConst ? i32(flippedAt(*outBlockConst) ? HadamardOperands::kPairSigns : 0)
                                  : arith::SelectOp::create(b, chunkSignFlipped(c, outBlock),
                                                            i32(HadamardOperands::kPairSigns), i32(0));
      if (tile == 1)
        signs = arith::XOrIOp::create(b, signs, u.hadamardTileSigns);
      return hadamard->flipSigns(u.hadamardBase, signs);
    }
    case RotationKind::Learned:
      return ldsOperand(u.ldsReadBase, c, tile, outBlockConst ? *outBlockConst : 0);
    default:
      return gatheredOperand(u.unit, add(idx(c * 32), u.groupChannel),
                             add(add(mulBy(outBlock, 32), idx(tile * 16)), u.tokenInTile));
    }
  }

  /// One 32-channel output block: two MFMA chains (one per 16-channel tile)
  /// over the input chunks in ascending order from +0, then quantize.
  void emitOutputBlock(const RotatedUnit &u, Value outBlock, std::optional<int> outBlockConst) {
    Value tiles[2];
    for (int tile = 0; tile < 2; ++tile) {
      Value acc = zeroAccumulator();
      for (int c = 0; c < int(u.xChunks.size()); ++c) {
        Value a = rotationOperand(u, c, tile, outBlock, outBlockConst);
        acc = mlir::amdgpu::MFMAOp::create(b, acc.getType(), 16, 16, 32, 1, a, u.xChunks[c], acc);
      }
      tiles[tile] = acc;
    }
    emitQuantizeBlock(add(mulBy(u.unit, spec.RS / 32), outBlock), tiles[0], tiles[1]);
  }

  /// One rotation block of 16 tokens: load the block's x once, then for each
  /// 32-channel output block run two MFMA chains and quantize.
  void emitRotatedUnit(Value unit) { emitRotatedBlocks(prepareUnit(unit)); }

  /// The output blocks of a prepared unit (prepareUnit has loaded its x).
  void emitRotatedBlocks(RotatedUnit u) {
    const int outBlocks = spec.RS / 32;
    if (loopsOverChunks())
      return emitWaveTransposedUnit(u);
    const bool learned = spec.rot == RotationKind::Learned;
    if (!loopsOverOutputBlocks()) {
      for (int outBlock = 0; outBlock < outBlocks; ++outBlock)
        emitOutputBlock(u, idx(outBlock), outBlock);
      return;
    }
    llvm::SmallVector<Value, 1> carried;
    if (learned)
      carried.push_back(u.ldsReadBase);
    auto loop = mlir::scf::ForOp::create(b, idx(0), idx(outBlocks), idx(1), carried);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    if (learned)
      u.ldsReadBase = loop.getRegionIterArgs()[0];
    emitOutputBlock(u, loop.getInductionVar(), std::nullopt);
    if (learned) // the next block's 32 columns
      mlir::scf::YieldOp::create(b, mlir::ValueRange{add(u.ldsReadBase, idx(ldsOutBlockStep()))});
  }

  /// rot=learned with R staged in slices: slice o is R's columns
  /// 32o..32o+31 of every row (the A operands of output block o), copied by
  /// the whole workgroup into LDS buffer o%2 ([2][RS][32] bf16, flat). While
  /// output block o is computed from one buffer, slice o+1 is already
  /// loaded into registers; it is written to the other buffer afterwards.
  /// One barrier per block then orders both that write before block o+1's
  /// reads and block o's reads before slice o+2 overwrites the buffer.
  void emitSlicedRotatedUnit(Value unit, Value unitValid, Value tid) {
    const int64_t outBlocks = spec.RS / 32, columns = tiling.rotationSliceColumns;
    const int64_t sliceElements = int64_t(spec.RS) * columns;
    // Under rconv=xrt the slice is rows 32o..32o+31 of r, whole rows.
    const int64_t piecesPerRow = (readsRowsOfR() ? spec.RS : columns) / 8;
    const int64_t threads = tiling.workgroupSize();
    const int64_t piecesPerThread = sliceElements / 8 / threads;
    assert(piecesPerThread * threads * 8 == sliceElements &&
           "a slice must be a whole number of 16-byte pieces per thread");
    auto v8bf16 = mlir::VectorType::get({8}, b.getBF16Type());
    // The pieces this thread copies: piece p is row p / piecesPerRow of R,
    // columns 8(p % piecesPerRow)..+7 of the slice; in a buffer it sits at
    // element 8p.
    llvm::SmallVector<Value, 2> pieces;
    for (int64_t p = 0; p < piecesPerThread; ++p)
      pieces.push_back(add(tid, idx(p * threads)));
    auto loadSlice = [&](Value outBlock) {
      llvm::SmallVector<Value, 2> loaded;
      Value first = mulBy(outBlock, columns);
      for (Value piece : pieces) {
        Value rowIndex = divBy(piece, piecesPerRow);
        Value column = mulBy(remBy(piece, piecesPerRow), 8);
        llvm::SmallVector<Value, 2> at{rowIndex, add(first, column)};
        if (readsRowsOfR())
          at = {add(first, rowIndex), column};
        loaded.push_back(vector::LoadOp::create(b, v8bf16, r, at));
      }
      return loaded;
    };
    auto storeSlice = [&](Value bufferStart, llvm::ArrayRef<Value> loaded) {
      for (auto [piece, value] : llvm::zip(pieces, loaded))
        vector::StoreOp::create(b, value, lds,
                                mlir::ValueRange{add(bufferStart, mulBy(piece, 8))});
    };

    // Waves past the last unit compute nothing but copy their share of every
    // slice; they read x of the last unit so that their loads stay inside x.
    RotatedUnit u =
        prepareUnit(arith::MinUIOp::create(b, unit, idx(tiling.unitsPerRow - 1)));
    storeSlice(idx(0), loadSlice(idx(0)));
    mlir::gpu::BarrierOp::create(b);

    // The lane's read base (RotatedUnit::ldsReadBase) flips between the two
    // buffers.
    auto loop = mlir::scf::ForOp::create(b, idx(0), idx(outBlocks), idx(1),
                                         mlir::ValueRange{u.ldsReadBase});
    keepRolled(loop);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value outBlock = loop.getInductionVar();
    u.ldsReadBase = loop.getRegionIterArgs()[0];
    Value next = add(outBlock, idx(1));
    Value hasNext = cmp(arith::CmpIPredicate::ult, next, idx(outBlocks));
    llvm::SmallVector<mlir::Type, 2> pieceTypes(pieces.size(), v8bf16);
    auto prefetch = mlir::scf::IfOp::create(b, pieceTypes, hasNext, /*withElseRegion=*/true);
    {
      mlir::OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&prefetch.getThenRegion().front());
      mlir::scf::YieldOp::create(b, loadSlice(next));
      b.setInsertionPointToStart(&prefetch.getElseRegion().front());
      Value zeros = arith::ConstantOp::create(
          b, mlir::DenseElementsAttr::get(v8bf16, llvm::APFloat::getZero(llvm::APFloat::BFloat())));
      mlir::scf::YieldOp::create(b, llvm::SmallVector<Value, 2>(pieces.size(), zeros));
    }
    ifThen(unitValid, [&] { emitOutputBlock(u, outBlock, std::nullopt); });
    Value nextBufferStart = mulBy(remBy(next, 2), sliceElements);
    ifThen(hasNext, [&] {
      llvm::SmallVector<Value, 2> prefetched(prefetch.getResults());
      storeSlice(nextBufferStart, prefetched);
    });
    mlir::gpu::BarrierOp::create(b);
    // The lane offset is below sliceElements, a power of two: xor switches
    // buffers.
    mlir::scf::YieldOp::create(
        b, mlir::ValueRange{arith::XOrIOp::create(b, u.ldsReadBase, idx(sliceElements))});
  }

  /// learned_per_block at RS >= 64. Step s = (output block o, input chunk
  /// c), s = o * chunks + c, multiplies the 32x32 piece
  /// R_unit[32c..+31][32o..+31]: each lane loads two 16-byte pieces of it
  /// and x's chunk c, the wave
  /// writes the pieces to its own 2 KiB of LDS and reads both tiles' A
  /// operands back transposed, as from a staged R. The MFMA chains still run
  /// over the chunks of each output block in ascending order from +0.
  ///
  /// Loads run one step ahead: step s+1's are in flight while step s is
  /// multiplied. Each step's loads take 12 VGPRs (the 16 gathered bf16 of
  /// the direct form take 16 plus x's 4). The chunk loop handles two steps
  /// per iteration so that the values it carries to the next iteration are
  /// loaded after the previous ones died and can share their registers; one
  /// step per iteration needs a copy at the back edge, which waits for the
  /// loads and serialises them again. The chunk loop must stay rolled:
  /// unrolled, O3 would issue every chunk's loads at once (98-125 VGPRs with
  /// the gathered form, 4 waves per SIMD).
  void emitWaveTransposedUnit(const RotatedUnit &u) {
    const int64_t chunks = spec.RS / kMfmaBf16ChunkK, outBlocks = spec.RS / 32;
    const int64_t steps = outBlocks * chunks;
    auto v8bf16 = mlir::VectorType::get({8}, b.getBF16Type());
    // Lane l copies rows 2(l/4) and 2(l/4)+1, columns 8(l%4)..+7: one
    // address, the second row an immediate offset away.
    struct Piece {
      Value rowIndex, columnInBlock, ldsIndex;
    };
    llvm::SmallVector<Piece, 2> pieces;
    Value firstRowOfLane = mulBy(divBy(lane, 4), 2);
    Value columnOfLane = mulBy(remBy(lane, 4), 8);
    Value laneStart = add(mulBy(wave, 32 * 32), add(mulBy(firstRowOfLane, 32), columnOfLane));
    for (int64_t p = 0; p < 2; ++p)
      pieces.push_back({add(firstRowOfLane, idx(p)), columnOfLane, add(laneStart, idx(p * 32))});
    // The two pieces and x of one step (index < steps).
    auto loadStep = [&](Value step) {
      Value firstRow = mulBy(remBy(step, chunks), 32);
      Value firstColumn = mulBy(divBy(step, chunks), 32);
      llvm::SmallVector<Value, 3> loaded;
      // Under rconv=xrt the piece is R_unit's block (o, c) as given:
      // rows are output channels, and the wave's LDS holds it that way.
      for (const Piece &piece : pieces) {
        Value inRows = firstRow, outColumns = firstColumn;
        if (readsRowsOfR())
          std::swap(inRows, outColumns);
        loaded.push_back(vector::LoadOp::create(
            b, v8bf16, r,
            mlir::ValueRange{u.unit, add(inRows, piece.rowIndex),
                             add(outColumns, piece.columnInBlock)}));
      }
      loaded.push_back(loadX8(add(u.blockBase, add(firstRow, u.groupChannel))));
      return loaded;
    };
    // The step after `step`; the last step loads itself again (from the
    // cache) rather than branch, whose other side would need registers.
    auto nextStep = [&](Value step) {
      return arith::MinUIOp::create(b, add(step, idx(1)), idx(steps - 1));
    };
    // One step's two MFMAs, from what loadStep returned.
    auto multiply = [&](mlir::ValueRange loaded, Value (&acc)[2]) {
      // Lanes read what other lanes of the wave wrote. The LDS executes a
      // wave's accesses in order, so no barrier is needed, but the compiler
      // must keep them in order: from one lane's view the addresses differ,
      // and the reads could move above the writes (or the next step's writes
      // above these reads). A wavefront-scope fence forbids that and emits
      // no instruction.
      waveFence();
      for (auto [piece, value] : llvm::zip(pieces, loaded.take_front(2)))
        vector::StoreOp::create(b, value, lds, mlir::ValueRange{piece.ldsIndex});
      waveFence();
      for (int tile = 0; tile < 2; ++tile)
        acc[tile] = mlir::amdgpu::MFMAOp::create(b, acc[tile].getType(), 16, 16, 32, 1,
                                                 ldsOperand(u.ldsReadBase, 0, tile, 0),
                                                 loaded[2], acc[tile]);
    };

    auto blockLoop =
        mlir::scf::ForOp::create(b, idx(0), idx(outBlocks), idx(1), loadStep(idx(0)));
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(blockLoop.getBody());
    Value outBlock = blockLoop.getInductionVar();
    Value zero = zeroAccumulator();
    llvm::SmallVector<Value, 5> initial{zero, zero};
    initial.append(blockLoop.getRegionIterArgs().begin(), blockLoop.getRegionIterArgs().end());
    auto chunkLoop = mlir::scf::ForOp::create(b, idx(0), idx(chunks), idx(2), initial);
    keepRolled(chunkLoop);
    {
      mlir::OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(chunkLoop.getBody());
      mlir::ValueRange carried = chunkLoop.getRegionIterArgs();
      Value first = add(mulBy(outBlock, chunks), chunkLoop.getInductionVar());
      Value second = add(first, idx(1));
      Value acc[2] = {carried[0], carried[1]};
      llvm::SmallVector<Value, 3> secondLoaded = loadStep(second);
      multiply(carried.drop_front(2), acc);
      llvm::SmallVector<Value, 3> following = loadStep(nextStep(second));
      multiply(secondLoaded, acc);
      llvm::SmallVector<Value, 5> results{acc[0], acc[1]};
      results.append(following);
      mlir::scf::YieldOp::create(b, results);
    }
    emitQuantizeBlock(add(mulBy(u.unit, outBlocks), outBlock), chunkLoop.getResult(0),
                      chunkLoop.getResult(1));
    mlir::scf::YieldOp::create(b, chunkLoop.getResults().drop_front(2));
  }

  /// parity(c & outBlock) as i1: whether the Hadamard chunk (c, outBlock)
  /// uses the negated operand.
  Value chunkSignFlipped(int c, Value outBlock) {
    Value ob = arith::IndexCastOp::create(b, b.getI32Type(), outBlock);
    Value common = arith::AndIOp::create(b, ob, i32(c));
    Value parity = arith::AndIOp::create(b, mlir::math::CtPopOp::create(b, common), i32(1));
    return cmp(arith::CmpIPredicate::ne, parity, i32(0));
  }

  /// rot=hadamard_butterfly at RS=32: numerics' f32 butterfly (stages h = 1,
  /// 2, 4, 8, 16, each (a, b) -> (a + b, a - b) rounded, then one multiply by
  /// f32(1/sqrt(32))) without the matrix cores. Lane l holds token l%16,
  /// channels 8g..8g+7 of the block (g = l/16, one 16-byte load): stages 1, 2
  /// and 4 stay in the lane; stage 8 pairs lane groups g and g^1 (lanes 16
  /// apart), stage 16 groups g and g^2 (32 apart), through the same cross-lane
  /// swaps the block maximum uses. The lane holding the lower channel keeps
  /// a + b, the other b' = a - b, where a is its partner's value.
  void emitButterflyUnit(Value unit) {
    auto v8f32 = mlir::VectorType::get({8}, b.getF32Type());
    Value loaded = arith::ExtFOp::create(
        b, v8f32, loadX8(add(mulBy(unit, 32), mulBy(group, 8))));
    llvm::SmallVector<Value, 8> v;
    for (int64_t i = 0; i < 8; ++i)
      v.push_back(vector::ExtractOp::create(b, loaded, i));
    for (int h = 1; h < 8; h *= 2)
      for (int base = 0; base < 8; base += 2 * h)
        for (int i = base; i < base + h; ++i) {
          Value a = v[i], c = v[i + h];
          v[i] = arith::AddFOp::create(b, a, c);
          v[i + h] = arith::SubFOp::create(b, a, c);
        }
    for (int distance : {16, 32}) {
      // Whether this lane holds the upper channel of each pair of the stage.
      Value upper = cmp(arith::CmpIPredicate::ne, arith::AndIOp::create(b, group, idx(distance / 16)),
                        idx(0));
      for (Value &own : v) {
        Value partner =
            mlir::gpu::ShuffleOp::create(b, own, distance, kLanes, mlir::gpu::ShuffleMode::XOR)
                .getShuffleResult();
        own = arith::SelectOp::create(b, upper, arith::SubFOp::create(b, partner, own),
                                      arith::AddFOp::create(b, own, partner));
      }
    }
    Value norm = arith::ConstantFloatOp::create(b, b.getF32Type(),
                                                llvm::APFloat(hadamardNormF32(spec.RS)));
    for (Value &value : v)
      value = arith::MulFOp::create(b, value, norm);
    auto v4f32 = mlir::VectorType::get({4}, b.getF32Type());
    Value tile0 = vector::FromElementsOp::create(b, v4f32, llvm::ArrayRef<Value>(v).take_front(4));
    Value tile1 = vector::FromElementsOp::create(b, v4f32, llvm::ArrayRef<Value>(v).drop_front(4));
    emitQuantizeBlock(unit, tile0, tile1, LaneChannels::Contiguous);
  }

  /// No rotation: 2 scale blocks of 16 tokens; each lane loads the channels
  /// it would hold in the MFMA result layout, so quantization is shared.
  void emitPlainUnit(Value unit) {
    const int blocks = tiling.channelsPerUnit / 32;
    for (int blk = 0; blk < blocks; ++blk) {
      Value scaleBlock = add(mulBy(unit, blocks), idx(blk));
      const std::array<Value, 2> tiles = loadPlainBlock(scaleBlock);
      emitQuantizeBlock(scaleBlock, tiles[0], tiles[1]);
    }
  }

  /// This lane's channels 4g..4g+3 and 16+4g..16+4g+3 of scale block
  /// `scaleBlock` of its row, as f32.
  std::array<Value, 2> loadPlainBlock(Value scaleBlock) {
    auto v4bf16 = mlir::VectorType::get({4}, b.getBF16Type());
    auto v4f32 = mlir::VectorType::get({4}, b.getF32Type());
    Value base = add(mulBy(scaleBlock, 32), mulBy(group, 4));
    std::array<Value, 2> tiles;
    for (int tile = 0; tile < 2; ++tile) {
      Value raw = vector::LoadOp::create(b, v4bf16, x,
                                         mlir::ValueRange{loadRow, add(base, idx(tile * 16))});
      tiles[tile] = arith::ExtFOp::create(b, v4f32, raw);
    }
    return tiles;
  }

  /// rotate_quant_gemm's plain units, loaded whole before they are quantized
  /// (the GEMM groups several units' loads; emitPlainUnit interleaves them).
  struct PlainUnit {
    Value unit;
    llvm::SmallVector<std::array<Value, 2>, 2> tiles; // per block
  };
  PlainUnit loadPlainUnit(Value unit) {
    const int blocks = tiling.channelsPerUnit / 32;
    PlainUnit u{unit, {}};
    for (int blk = 0; blk < blocks; ++blk)
      u.tiles.push_back(loadPlainBlock(add(mulBy(unit, blocks), idx(blk))));
    return u;
  }
  void quantizePlainUnit(const PlainUnit &u) {
    const int blocks = tiling.channelsPerUnit / 32;
    for (int blk = 0; blk < blocks; ++blk)
      emitQuantizeBlock(add(mulBy(u.unit, blocks), idx(blk)), u.tiles[blk][0], u.tiles[blk][1]);
  }

  // --- quantization of one 32-channel block --------------------------------
  /// round=sr: the pair indices of this lane's two pieces of block
  /// `scaleBlock` of its row (numerics: element row * K + channel): pieces at
  /// channels 4g and 16 + 4g (MFMA tiles) or 8g and 8g + 4 (contiguous).
  StochasticPairs stochasticPairs(Value scaleBlock, LaneChannels channels) {
    if (spec.round != Rounding::Sr)
      return {};
    Value rowI32 = arith::IndexCastOp::create(b, b.getI32Type(), row);
    Value blockI32 = arith::IndexCastOp::create(b, b.getI32Type(), scaleBlock);
    Value groupI32 = arith::IndexCastOp::create(b, b.getI32Type(), group);
    const bool tiles = channels == LaneChannels::MfmaTiles;
    Value first = arith::AddIOp::create(
        b,
        arith::AddIOp::create(b, arith::MulIOp::create(b, rowI32, i32(spec.K / 2)),
                              arith::MulIOp::create(b, blockI32, i32(16))),
        arith::MulIOp::create(b, groupI32, i32(tiles ? 2 : 4)));
    return {first, arith::AddIOp::create(b, first, i32(tiles ? 8 : 2))};
  }

  /// tile0/tile1: this lane's channels 4g..4g+3 and 16+4g..16+4g+3 of scale
  /// block `scaleBlock` for token `row` (the MFMA result layout), or 8g..8g+3
  /// and 8g+4..8g+7 (`LaneChannels::Contiguous`, the butterfly's), as
  /// vector<4xf32>.
  void emitQuantizeBlock(Value scaleBlock, Value tile0, Value tile1,
                         LaneChannels channels = LaneChannels::MfmaTiles) {
    if (gemmBf16Values)
      return storeGemmBf16Block(arith::SubIOp::create(b, scaleBlock, gemmSliceBlockBase), tile0,
                                tile1, channels);
    const QuantizedBlock block = quantizer.quantize(tile0, tile1, stochasticPairs(scaleBlock, channels));
    Value bytes = block.bytes, scaleByte = block.scaleByte;
    if (gemmMode) {
      // Every row of the LDS tile is written (rows past m hold row m-1's
      // codes), so the product reads nothing uninitialized.
      Value local = arith::SubIOp::create(b, scaleBlock, gemmSliceBlockBase);
      codes->storeLaneCodes(local, group, bytes, channels);
      ifThen(isGroupZero, [&] {
        scales->store(local, arith::TruncIOp::create(b, b.getI8Type(), scaleByte));
      });
      return;
    }
    if (sorter) {
      ifThen(rowValid, [&] { codes->storeLaneCodes(scaleBlock, group, bytes, channels); });
      emitMoeScaleScatter(scaleBlock, arith::TruncIOp::create(b, b.getI8Type(), scaleByte));
      return;
    }

    if (spec.layout == ScaleLayout::A6W6Tiles) {
      // Every row up to pad256(m) is written: its codes, or 0 past m.
      Value codeRow = arith::OrIOp::create(b, rowValid, rowInPadding);
      ifThen(codeRow, [&] {
        codes->storeLaneCodes(scaleBlock, group,
                              arith::SelectOp::create(b, rowValid, bytes, zeroCodeBytes()),
                              channels);
      });
    }
    ifThen(rowValid, [&] {
      if (spec.layout != ScaleLayout::A6W6Tiles)
        codes->storeLaneCodes(scaleBlock, group, bytes, channels);
      if (!rowInPadding)
        ifThen(isGroupZero, [&] {
          scales->store(scaleBlock, arith::TruncIOp::create(b, b.getI8Type(), scaleByte));
        });
    });
    if (rowInPadding) {
      // One store for the row's scale byte or the padding byte: the same
      // shuffled index either way, computed and branched on once.
      Value scaleRow = arith::OrIOp::create(b, rowValid, rowInPadding);
      ifThen(arith::AndIOp::create(b, scaleRow, isGroupZero), [&] {
        Value byte = arith::SelectOp::create(
            b, rowValid, arith::TruncIOp::create(b, b.getI8Type(), scaleByte),
            arith::ConstantIntOp::create(b, b.getI8Type(), kScalePadByte));
        scales->store(scaleBlock, byte);
      });
    }
  }

  /// W6A16's activation side: the lane's 8 rotated values of block `local`
  /// of the slice, rounded to bf16 (nearest even) and stored at the token's
  /// row of LDS [16, S] where the B operand reads them, channels
  /// local * 32 + (4g and 16 + 4g, or 8g and 8g + 4 when contiguous).
  void storeGemmBf16Block(Value local, Value tile0, Value tile1, LaneChannels channels) {
    auto bf16x4 = mlir::VectorType::get({4}, b.getBF16Type());
    const bool contiguous = channels == LaneChannels::Contiguous;
    Value base = add(mulBy(local, 32), mulBy(group, contiguous ? 8 : 4));
    Value second = add(base, idx(contiguous ? 4 : 16));
    vector::StoreOp::create(b, arith::TruncFOp::create(b, bf16x4, tile0), gemmBf16Values,
                            mlir::ValueRange{row, base});
    vector::StoreOp::create(b, arith::TruncFOp::create(b, bf16x4, tile1), gemmBf16Values,
                            mlir::ValueRange{row, second});
  }

  const KernelSpec &spec;
  const KernelTiling &tiling;
  const QuantizerFamily &family;
  /// The family's row sorter (rotate_quant_moe): the kernel then quantizes
  /// the rows in input order and scatters each scale to the sorted rows.
  const RowSorterFactory makeSorter;
  const KernelArguments args;
  BlockQuantizer quantizer;
  std::optional<HadamardOperands> hadamard; // once the lane is known
  std::optional<ScaleWriter> scales;        // once the row is known
  std::optional<CodeWriter> codes;          // once the row is known
  std::unique_ptr<RowSorter> sorter;        // with a row sorter only
  Value x, r, q, s, m, lds, sortLds;
  Value tokenInTile, subTile; // rotate_quant_moe: l%16, and stage 2's pass
  Value lane, wave, group, row, loadRow, rowValid, rowInPadding, isGroupZero, rowTile, mIndex;
  /// rotate_quant_gemm: codes and scales go to the workgroup's LDS slice, at
  /// scale blocks counted from gemmSliceBlockBase (prepareGemmActivation).
  bool gemmMode = false;
  Value gemmSliceBlockBase;
  Value gemmBf16Values; // W6A16: LDS [16, S] bf16 instead of codes and scales
};

} // namespace rotating_quantizer

using rotating_quantizer::RotateQuantEmitter;
using mlir::Type;
using mlir::Value;

GemmActivationEmitter::GemmActivationEmitter(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec,
                                             const KernelTiling &tiling,
                                             const QuantizerFamily &family,
                                             mlir::gpu::GPUFuncOp func)
    : emitter(std::make_unique<RotateQuantEmitter>(b, spec, tiling, family, func)) {}

GemmActivationEmitter::~GemmActivationEmitter() = default;

void GemmActivationEmitter::prepare(mlir::Value ldsCodes, mlir::Value ldsScales) {
  emitter->prepareGemmActivation(ldsCodes, ldsScales);
}

void GemmActivationEmitter::prepareBf16(mlir::Value ldsValues) {
  emitter->prepareGemmActivation(mlir::Value(), mlir::Value(), ldsValues);
}

void GemmActivationEmitter::emitSlice(mlir::Value slice, int64_t unitsPerSlice,
                                      int64_t unitsInFlight) {
  emitter->emitGemmActivationSlice(slice, unitsPerSlice, unitsInFlight);
}

Status buildRotatingQuantizerKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                                    llvm::StringRef kernelName, const QuantizerFamily &family,
                                    RowSorterFactory makeSorter) {
  mlir::MLIRContext *ctx = module.getContext();
  ctx->loadDialect<mlir::amdgpu::AMDGPUDialect, mlir::arith::ArithDialect,
                   mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect, mlir::math::MathDialect, mlir::memref::MemRefDialect,
                   mlir::ROCDL::ROCDLDialect, mlir::scf::SCFDialect,
                   mlir::vector::VectorDialect>();
  const KernelTiling tiling = chooseRotatingQuantizerTiling(spec, family);
  const llvm::SmallVector<Type> argTypes = kernelArgumentTypes(ctx, spec);

  mlir::ImplicitLocOpBuilder b(mlir::NameLoc::get(mlir::StringAttr::get(ctx, kernelName)), ctx);
  b.setInsertionPointToEnd(module.getBody());
  llvm::SmallVector<Type, 1> workgroupBuffers;
  // Flat: all of R as [in][out], two slices of its columns as [2][RS][32],
  // or one 32x32 piece per wave as [waves][32][32]. The kernel computes the element indices itself so that the
  // transposed reads share one address register.
  if (tiling.ldsBytes > 0)
    workgroupBuffers.push_back(
        workgroupBufferType(ctx, {int64_t(tiling.ldsBytes / 2)}, b.getBF16Type()));
  // The family's front end's arrays (the MoE sorter's, sort_lds.h), i32.
  if (const int frontBytes = frontLdsBytes(family, spec, tiling); frontBytes > 0)
    workgroupBuffers.push_back(
        workgroupBufferType(ctx, {int64_t(frontBytes / 4)}, b.getI32Type()));
  auto func = mlir::gpu::GPUFuncOp::create(b, kernelName, b.getFunctionType(argTypes, {}),
                                           workgroupBuffers);
  func->setAttr(mlir::gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({tiling.workgroupSize(), 1, 1}));
  // The family's register budget (register_budget.cpp has the measurements).
  if (const int waves = chooseWavesPerEu(family, spec, tiling); waves > 0)
    func->setAttr("rocdl.waves_per_eu", b.getI32IntegerAttr(waves));
  b.setInsertionPointToStart(&func.getBody().front());
  RotateQuantEmitter(b, spec, tiling, family, func, makeSorter).emitBody();
  mlir::gpu::ReturnOp::create(b);
  return Status::success();
}
} // namespace mxf
