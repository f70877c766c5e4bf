//===- gemm_activation.cpp - The GEMM's activation side ------------------===//
//
// The shared load + rotate stage (rotation_stage.h) over the workgroup's 16
// rows, one K slice at a time, with this family's store stage: a block's
// codes and scale into the slice's LDS tile (A4W4), or its rotated values as
// bf16 (W6A16). Every row of the LDS tile is written (rows past m hold row
// m-1's values), so the product reads nothing uninitialized.
//
//===----------------------------------------------------------------------===//

#include "templates/rotate_quant_gemm/gemm_activation.h"

#include "templates/common/code_writer.h"
#include "templates/common/ir_builder.h"
#include "templates/common/kernel_arguments.h"
#include "templates/common/rotating_quantizer/block_converter.h"
#include "templates/common/rotating_quantizer/rotation_selection.h"
#include "templates/common/rotating_quantizer/rotation_stage.h"
#include "templates/common/scale_writer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <cassert>
#include <functional>
#include <optional>

namespace mxf {

using mlir::Value;
namespace arith = mlir::arith;
namespace vector = mlir::vector;

class GemmActivationSide final : public BlockSink, private IrBuilder {
public:
  GemmActivationSide(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec,
                     const KernelTiling &tiling, mlir::gpu::GPUFuncOp func,
                     const KernelArguments &args)
      : IrBuilder(b), spec(spec), tiling(tiling), args(args), converter(b, spec),
        rotation(b, spec, tiling, args.get("r"),
                 tiling.ldsBytes > 0 ? Value(func.getWorkgroupAttributions().front())
                                     : Value()) {
    rotation.setSink(*this);
  }

  /// The workgroup's 16 rows (grid y) read from x at its row stride, rows
  /// past m reading row m-1 (their products are never stored), codes and
  /// scales written to LDS, plain, at the row's place in the tile. A staged
  /// learned R is copied once here, by every thread, before any slice.
  /// W6A16 (`ldsValues` set instead of the codes and scales): the rotated
  /// values are not quantized; each block goes to LDS [16, S] as bf16.
  void prepare(Value ldsCodes, Value ldsScales, Value ldsValues) {
    Value tid = mlir::gpu::ThreadIdOp::create(b, mlir::gpu::Dimension::x);
    Value token = rotation.setUpLane(tid);
    group = rotation.laneGroup();
    Value rowTile = mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::y);
    row = token; // the writers' row: the token's row of the LDS tile
    Value mIndex = arith::IndexCastOp::create(b, b.getIndexType(), args.get("m"));
    rotation.readFrom(
        rowStridedView(b, args.get("x"), mIndex,
                       arith::IndexCastOp::create(b, b.getIndexType(), args.get("x_stride"))));
    rotation.setLoadRow(arith::MinUIOp::create(b, add(mulBy(rowTile, kTileRows), token),
                                               arith::SubIOp::create(b, mIndex, idx(1))));
    if (ldsValues) {
      bf16Values = ldsValues;
    } else {
      codes.emplace(b, spec.fmt, CodeLayout::Plain, ldsCodes, row);
      scales.emplace(b, ScaleLayout::Plain, ldsScales, row);
    }
    isGroupZero = cmp(arith::CmpIPredicate::eq, group, idx(0));
    if (spec.select != RotationSelect::Off)
      rotates = emitRotationSelected(b, spec, args);
    if (!tiling.stagesRotationInLds)
      return;
    // Selective rotation: R is staged only for a launch that rotates (the
    // condition is the kernel's, so the barrier stays legal).
    if (rotates)
      ifThen(rotates, [&] { rotation.emitStageRotation(tid); });
    else
      rotation.emitStageRotation(tid);
  }

  /// Units slice*unitsPerSlice .. +unitsPerSlice-1 of the row (with
  /// `chain`, only those in its chunks), wave w taking the w-th, the
  /// (w + waves)-th, ...; their scale blocks land at LDS blocks counted from
  /// the slice's first. With `unitsInFlight` > 1 (units whose x is loaded up
  /// front: prepareUnit's, loadPlainUnit's), a wave loads the x of that many
  /// of its units before computing any, so their round trips overlap; a
  /// unit past the slice loads the slice's last unit again and computes
  /// nothing.
  void emitSlice(Value slice, int64_t unitsPerSlice, int64_t unitsInFlight,
                 const GemmChainUnits *chain) {
    sliceBlockBase = mulBy(slice, unitsPerSlice * tiling.channelsPerUnit / 32);
    const SliceUnits units{mulBy(slice, unitsPerSlice),
                           chain ? unitsPerSlice / chain->chains : unitsPerSlice, chain};
    if (!rotates)
      return emitRotatingUnits(units, unitsInFlight);
    // Selective rotation: one branch per slice on the kernel's value; the
    // quant-only side takes the same units (RS channels each), unrotated,
    // so the LDS tile is laid out as the rotating side's.
    ifElse(
        rotates, [&] { emitRotatingUnits(units, unitsInFlight); },
        [&] { eachUnitOfWave(units, [&](Value unit) { rotation.emitPlainUnit(unit); }); });
  }

private:
  /// The units of a slice a workgroup quantizes: `count` of them, the i-th
  /// being unit first + i, or, for one chain, the i-th unit of the chain's
  /// chunks (chunk c of the slice is the chain's when c % chains == chain).
  struct SliceUnits {
    Value first;
    int64_t count;
    const GemmChainUnits *chain;
  };

  Value unitOf(const SliceUnits &units, Value i) {
    if (!units.chain)
      return add(units.first, i);
    const GemmChainUnits &c = *units.chain;
    Value sliceChunk = add(mulBy(divBy(i, c.unitsPerChunk), c.chains), c.chain);
    return add(units.first, add(mulBy(sliceChunk, c.unitsPerChunk), remBy(i, c.unitsPerChunk)));
  }

  /// Each of the slice's units this wave takes, one at a time.
  void eachUnitOfWave(const SliceUnits &units, const std::function<void(Value)> &work) {
    // Unsplit, the loop runs over the units themselves.
    Value base = units.chain ? idx(0) : units.first;
    auto loop = mlir::scf::ForOp::create(b, add(base, rotation.waveId()),
                                         add(base, idx(units.count)),
                                         idx(tiling.wavesPerWorkgroup));
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value i = loop.getInductionVar();
    work(units.chain ? unitOf(units, i) : i);
  }

  void emitRotatingUnits(const SliceUnits &slice, int64_t unitsInFlight) {
    // The tiling groups only units whose x is loaded up front
    // (chooseRotateQuantGemmTiling: not the butterfly, not a per-block R
    // through each wave's LDS).
    assert(unitsInFlight == 1 ||
           (spec.rot != RotationKind::HadamardButterfly && !rotation.loopsOverChunks()));
    Value wave = rotation.waveId();
    if (unitsInFlight > 1) {
      const int64_t waves = tiling.wavesPerWorkgroup;
      const int64_t perWave = (slice.count + waves - 1) / waves;
      auto loop = mlir::scf::ForOp::create(b, idx(0), idx(perWave), idx(unitsInFlight));
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      llvm::SmallVector<RotatedUnit, 8> units;
      llvm::SmallVector<PlainUnit, 8> plainUnits;
      llvm::SmallVector<Value, 8> valid;
      // Unsplit, i counts from the slice's first unit.
      Value base = slice.chain ? idx(0) : slice.first;
      Value end = add(base, idx(slice.count));
      for (int64_t g = 0; g < unitsInFlight; ++g) {
        Value i = add(add(base, wave), mulBy(add(loop.getInductionVar(), idx(g)), waves));
        valid.push_back(cmp(arith::CmpIPredicate::ult, i, end));
        Value last = arith::MinUIOp::create(b, i, arith::SubIOp::create(b, end, idx(1)));
        Value loaded = slice.chain ? unitOf(slice, last) : last;
        if (spec.RS == 0)
          plainUnits.push_back(rotation.loadPlainUnit(loaded));
        else
          units.push_back(rotation.prepareUnit(loaded));
      }
      for (int64_t g = 0; g < unitsInFlight; ++g)
        ifThen(valid[g], [&] {
          if (spec.RS == 0)
            rotation.finishPlainUnit(plainUnits[g]);
          else
            rotation.emitRotatedBlocks(units[g]);
        });
      return;
    }
    eachUnitOfWave(slice, [&](Value unit) { rotation.emitUnit(unit); });
  }

public:
  /// The store stage: the block at its place in the slice's LDS tile.
  void emitBlock(const FinishedBlock &block) override {
    if (bf16Values)
      return storeBf16Block(arith::SubIOp::create(b, block.scaleBlock, sliceBlockBase),
                            block.tile0, block.tile1, block.channels);
    const QuantizedBlock quantized = converter.convert(block, row, group);
    Value local = arith::SubIOp::create(b, block.scaleBlock, sliceBlockBase);
    codes->storeLaneCodes(local, group, quantized.bytes, block.channels);
    ifThen(isGroupZero, [&] {
      scales->store(local, arith::TruncIOp::create(b, b.getI8Type(), quantized.scaleByte));
    });
  }

private:
  /// W6A16: the lane's 8 rotated values of block `local` of the slice,
  /// rounded to bf16 (nearest even) and stored at the token's row of LDS
  /// [16, S] where the B operand reads them, channels local * 32 + (4g and
  /// 16 + 4g, or 8g and 8g + 4 when contiguous).
  void storeBf16Block(Value local, Value tile0, Value tile1, LaneChannels channels) {
    auto bf16x4 = mlir::VectorType::get({4}, b.getBF16Type());
    const bool contiguous = channels == LaneChannels::Contiguous;
    Value base = add(mulBy(local, 32), mulBy(group, contiguous ? 8 : 4));
    Value second = add(base, idx(contiguous ? 4 : 16));
    vector::StoreOp::create(b, arith::TruncFOp::create(b, bf16x4, tile0), bf16Values,
                            mlir::ValueRange{row, base});
    vector::StoreOp::create(b, arith::TruncFOp::create(b, bf16x4, tile1), bf16Values,
                            mlir::ValueRange{row, second});
  }

  static constexpr int kTileRows = 16;

  const KernelSpec &spec;
  const KernelTiling &tiling;
  const KernelArguments args;
  BlockConverter converter;
  RotationStage rotation;
  std::optional<CodeWriter> codes;   // A4W4: the LDS codes [16, S/2]
  std::optional<ScaleWriter> scales; // A4W4: the LDS scales [16, S/32]
  Value bf16Values;                  // W6A16: LDS [16, S] bf16
  Value row, group, isGroupZero, sliceBlockBase;
  Value rotates; // select=flag|mask: whether this launch rotates (i1); else null
};

GemmActivationEmitter::GemmActivationEmitter(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec,
                                             const KernelTiling &tiling,
                                             mlir::gpu::GPUFuncOp func,
                                             const KernelArguments &args)
    : side(std::make_unique<GemmActivationSide>(b, spec, tiling, func, args)) {}

GemmActivationEmitter::~GemmActivationEmitter() = default;

void GemmActivationEmitter::prepare(mlir::Value ldsCodes, mlir::Value ldsScales) {
  side->prepare(ldsCodes, ldsScales, mlir::Value());
}

void GemmActivationEmitter::prepareBf16(mlir::Value ldsValues) {
  side->prepare(mlir::Value(), mlir::Value(), ldsValues);
}

void GemmActivationEmitter::emitSlice(mlir::Value slice, int64_t unitsPerSlice,
                                      int64_t unitsInFlight, const GemmChainUnits *chain) {
  side->emitSlice(slice, unitsPerSlice, unitsInFlight, chain);
}

} // namespace mxf
