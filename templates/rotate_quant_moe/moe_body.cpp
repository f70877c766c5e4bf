//===- moe_body.cpp - rotate_quant_moe's kernel body -----------------------===//
//
// The stages composed: sort (moe_sorter.h) -> load + rotate (the shared
// rotation stage) -> convert (block_converter.h) -> store codes in token
// order and scatter each scale byte to the sorted rows (this file's sink).
//
//===----------------------------------------------------------------------===//

#include "templates/rotate_quant_moe/moe_body.h"

#include "templates/common/code_writer.h"
#include "templates/common/ir_builder.h"
#include "templates/common/kernel_arguments.h"
#include "templates/common/rotating_quantizer/block_converter.h"
#include "templates/common/rotating_quantizer/rotation_selection.h"
#include "templates/common/rotating_quantizer/rotation_stage.h"
#include "templates/rotate_quant_moe/moe_sorter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <optional>

namespace mxf {
namespace {

using mlir::Value;
namespace arith = mlir::arith;

constexpr int kTileRows = 16;

class MoeBody final : public BlockSink, private IrBuilder {
public:
  explicit MoeBody(const QuantizerKernel &kernel)
      : IrBuilder(kernel.b), spec(kernel.spec), tiling(kernel.tiling), args(kernel.args),
        sortLds(kernel.frontLds), converter(kernel.b, kernel.spec),
        rotation(kernel.b, kernel.spec, kernel.tiling, kernel.args.get("r"),
                 kernel.rotationLds) {
    rotation.setSink(*this);
  }

  void emit() {
    Value tid = mlir::gpu::ThreadIdOp::create(b, mlir::gpu::Dimension::x);
    if (spec.round == Rounding::Sr) // one u32, read once (an s_load)
      converter.setStochasticSeed(
          mlir::memref::LoadOp::create(b, args.get("seed"), mlir::ValueRange{idx(0)}));
    tokenInTile = rotation.setUpLane(tid);
    group = rotation.laneGroup();
    Value unit = add(mulBy(mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::x),
                           tiling.wavesPerWorkgroup),
                     rotation.waveId());
    Value rowTile = mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::y);
    Value mIndex = arith::IndexCastOp::create(b, b.getIndexType(), args.get("m"));
    const int gridX =
        (tiling.unitsPerRow + tiling.wavesPerWorkgroup - 1) / tiling.wavesPerWorkgroup;
    sorter = makeMoeSorter({b, spec, args, sortLds, tiling.workgroupSize(), gridX});
    sorter->emitSort(tid, rowTile, mIndex);
    isGroupZero = cmp(arith::CmpIPredicate::eq, group, idx(0));
    Value unitValid = cmp(arith::CmpIPredicate::ult, unit, idx(tiling.unitsPerRow));
    auto strideOf = [&](const char *name) {
      return arith::IndexCastOp::create(b, b.getIndexType(), args.get(name));
    };
    if (spec.stage != 2) {
      rotation.readFrom(rowStridedView(b, args.get("x"), mIndex, strideOf("x_stride")));
      q = rowStridedView(b, args.get("q"), mIndex, strideOf("q_stride"));
      selectRows(add(mulBy(rowTile, kTileRows), tokenInTile), mIndex);
      return selected([&] { emitTile(unit, unitValid, tid, /*rotationStaged=*/false); },
                      [&] { ifThen(unitValid, [&] { rotation.emitPlainUnit(unit); }); });
    }
    // Stage 2: x [m, topk, K] and q [m, topk, packed] as m*topk dense rows;
    // the tile's rows are its tokens' (token, slot) rows, 16 per pass.
    llvm::SmallVector<mlir::ReassociationIndices, 2> rowsAndChannels{{0, 1}, {2}};
    rotation.readFrom(mlir::memref::CollapseShapeOp::create(b, args.get("x"), rowsAndChannels));
    q = mlir::memref::CollapseShapeOp::create(b, args.get("q"), rowsAndChannels);
    Value routedRows = mulBy(mIndex, spec.topk);
    auto passes = [&](bool rotating) {
      // A whole learned R is staged once for all passes.
      const bool stageOnce =
          rotating && tiling.stagesRotationInLds && tiling.rotationSliceColumns == 0;
      if (stageOnce)
        rotation.emitStageRotation(tid);
      // Only the passes that hold a row below m * topk: at m = 1 one pass of
      // topk, not topk passes of which all but the first quantize clamped
      // copies of the last row and store nothing. The count is the same for
      // every wave (it depends on the row tile alone), so a staged R's
      // barriers stay uniform; the tile's first row is below m * topk.
      Value tileStart = mulBy(rowTile, int64_t(kTileRows) * spec.topk);
      Value holding =
          divBy(add(arith::SubIOp::create(b, routedRows, tileStart), idx(kTileRows - 1)),
                kTileRows);
      Value passCount = arith::MinUIOp::create(b, holding, idx(spec.topk));
      auto loop = mlir::scf::ForOp::create(b, idx(0), passCount, idx(1));
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      subTile = loop.getInductionVar();
      selectRows(add(mulBy(rowTile, int64_t(kTileRows) * spec.topk),
                     add(mulBy(subTile, kTileRows), tokenInTile)),
                 routedRows);
      if (rotating)
        emitTile(unit, unitValid, tid, stageOnce);
      else
        ifThen(unitValid, [&] { rotation.emitPlainUnit(unit); });
    };
    selected([&] { passes(true); }, [&] { passes(false); });
  }

  /// The store stage: codes in token order for rows below m, the scale byte
  /// to every sorted row of the input row.
  void emitBlock(const FinishedBlock &block) override {
    const QuantizedBlock quantized = converter.convert(block, row, group);
    ifThen(rowValid, [&] {
      codes->storeLaneCodes(block.scaleBlock, group, quantized.bytes, block.channels);
    });
    emitScaleScatter(block.scaleBlock,
                     arith::TruncIOp::create(b, b.getI8Type(), quantized.scaleByte));
  }

private:
  /// The rotating body, or with selective rotation (select=flag|mask) one
  /// branch between it and the quant-only one, on a kernel-wide value (so
  /// the staged R's barriers stay uniform).
  template <typename Rotating, typename Plain>
  void selected(const Rotating &rotating, const Plain &plain) {
    if (spec.select == RotationSelect::Off)
      return rotating();
    ifElse(emitRotationSelected(b, spec, args), rotating, plain);
  }

  /// The rows this lane quantizes next: `first` (index), valid below `rows`.
  void selectRows(Value first, Value rows) {
    row = first;
    rowValid = cmp(arith::CmpIPredicate::ult, row, rows);
    rotation.setLoadRow(arith::MinUIOp::create(b, row, arith::SubIOp::create(b, rows, idx(1))));
    codes.emplace(b, spec.fmt, CodeLayout::Plain, q, row);
  }

  /// One 16-row tile (barriers of a staged R included, so every wave runs
  /// this).
  void emitTile(Value unit, Value unitValid, Value tid, bool rotationStaged) {
    if (!tiling.stagesRotationInLds)
      return ifThen(unitValid, [&] { rotation.emitUnit(unit); });
    if (tiling.rotationSliceColumns > 0)
      return rotation.emitSlicedRotatedUnit(unit, unitValid, tid);
    if (!rotationStaged)
      rotation.emitStageRotation(tid);
    ifThen(unitValid, [&] { rotation.emitRotatedUnit(unit); });
  }

  /// The scale byte (i8) of block `scaleBlock` of this lane's row, to every
  /// sorted row that names it. Stage 1: a token has topk sorted rows (fewer
  /// when an expert is masked); its four lanes share the byte and take
  /// slots g, g + 4, ... Stage 2: the row is one (token, slot) and has at
  /// most one sorted row, stored by lane group 0.
  void emitScaleScatter(Value scaleBlock, Value byte) {
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

  const KernelSpec &spec;
  const KernelTiling &tiling;
  const KernelArguments &args;
  Value sortLds;
  BlockConverter converter;
  RotationStage rotation;
  std::unique_ptr<RowSorter> sorter;
  std::optional<CodeWriter> codes; // of the rows selected last
  Value q, row, rowValid, group, isGroupZero;
  Value tokenInTile, subTile; // l%16, and stage 2's pass
};

} // namespace

void emitMoeBody(const QuantizerKernel &kernel) { MoeBody(kernel).emit(); }

} // namespace mxf
