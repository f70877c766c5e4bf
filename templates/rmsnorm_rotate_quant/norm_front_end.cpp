//===- norm_front_end.cpp - rmsnorm_rotate_quant's front end ---------------===//

#include "templates/rmsnorm_rotate_quant/norm_front_end.h"

#include "templates/common/ir_builder.h"
#include "templates/common/kernel_arguments.h"
#include "templates/common/rotating_quantizer/rotation_stage.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mxf {
namespace {

using mlir::Value;
namespace arith = mlir::arith;
namespace vector = mlir::vector;

constexpr int kTileRows = 16;
constexpr int kLanes = 64;

/// The bf16 rows a lane reads: x and, with add=1, the residual, both
/// at their row strides.
struct NormInputs {
  Value x, residual, gamma;
};

/// z = bf16(x + r) (or x) of `count` channels of `row` from `channel`: the
/// sum of two bf16 values is exact in f32, so this is one rounding.
Value loadZ(mlir::ImplicitLocOpBuilder &b, const NormInputs &in, Value row, Value channel,
            int64_t count) {
  auto bf16s = mlir::VectorType::get({count}, b.getBF16Type());
  auto f32s = mlir::VectorType::get({count}, b.getF32Type());
  Value x = vector::LoadOp::create(b, bf16s, in.x, mlir::ValueRange{row, channel});
  if (!in.residual)
    return x;
  Value r = vector::LoadOp::create(b, bf16s, in.residual, mlir::ValueRange{row, channel});
  Value sum = arith::AddFOp::create(b, arith::ExtFOp::create(b, f32s, x),
                                    arith::ExtFOp::create(b, f32s, r));
  return arith::TruncFOp::create(b, bf16s, sum);
}

class NormFrontEnd : private IrBuilder {
public:
  NormFrontEnd(const QuantizerKernel &kernel, const DenseRows &rows)
      : IrBuilder(kernel.b), spec(kernel.spec), tiling(kernel.tiling), args(kernel.args),
        lds(kernel.frontLds), rows(rows) {}

  void emit(RotationStage &rotation) {
    auto strideOf = [&](const char *name) {
      return arith::IndexCastOp::create(b, b.getIndexType(), args.get(name));
    };
    NormInputs in;
    in.x = rowStridedView(b, args.get("x"), rows.rows, strideOf("x_stride"));
    if (spec.add)
      in.residual =
          rowStridedView(b, args.get("residual"), rows.rows, strideOf("residual_stride"));
    in.gamma = args.get("gamma");
    // A tile wholly past m (the a4w4 padding up to pad256(m)) only writes
    // padding bytes: it skips the norm. The condition is the workgroup's,
    // so the barrier inside stays legal.
    Value tileLive = cmp(arith::CmpIPredicate::ult,
                         arith::SubIOp::create(b, rows.row, rows.token), rows.rows);
    auto live = mlir::scf::IfOp::create(b, mlir::TypeRange{b.getF32Type()}, tileLive,
                                        /*withElseRegion=*/true);
    {
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&live.getThenRegion().front());
      reducePartials(in);
      mlir::gpu::BarrierOp::create(b);
      mlir::scf::YieldOp::create(b, rowScale());
      b.setInsertionPointToStart(&live.getElseRegion().front());
      mlir::scf::YieldOp::create(
          b, Value(arith::ConstantFloatOp::create(b, b.getF32Type(), llvm::APFloat(0.0f))));
    }
    Value scale = live.getResult(0);

    // Step 5 for whatever channels the stage asks for: n = bf16(z * s),
    // y = bf16(n * g). Captures only values and the builder, which outlive
    // this front end.
    mlir::ImplicitLocOpBuilder &builder = b;
    const Value loadRow = rows.loadRow;
    rotation.setRowSource([&builder, in, loadRow, scale](Value channel, int64_t count) {
      auto bf16s = mlir::VectorType::get({count}, builder.getBF16Type());
      auto f32s = mlir::VectorType::get({count}, builder.getF32Type());
      Value z = arith::ExtFOp::create(builder, f32s, loadZ(builder, in, loadRow, channel, count));
      Value s = vector::BroadcastOp::create(builder, f32s, scale);
      Value n = arith::TruncFOp::create(builder, bf16s, arith::MulFOp::create(builder, z, s));
      Value g = vector::LoadOp::create(builder, bf16s, in.gamma, mlir::ValueRange{channel});
      Value y = arith::MulFOp::create(builder, arith::ExtFOp::create(builder, f32s, n),
                                      arith::ExtFOp::create(builder, f32s, g));
      return Value(arith::TruncFOp::create(builder, bf16s, y));
    });
  }

private:
  /// Step 1 and 2's per-block part: wave w takes blocks w, w + waves, ...,
  /// `inFlight` of them per iteration, their loads issued together before
  /// any is used: one loop of load, wait, reduce would pay a memory round
  /// trip per block (16 in sequence at K=2048, the kernel's longest latency
  /// chain in docs/estimate.md's timeline). Each block's partial goes to its
  /// own LDS slot, so the grouping changes no sum.
  void reducePartials(const NormInputs &in) {
    const int64_t blocks = spec.K / 32;
    const int waves = tiling.wavesPerWorkgroup;
    const int64_t perWave = blocks / waves;
    // Four blocks' loads take 32 VGPRs while in flight; a learned R of 256
    // leaves too few beside them (K=4096 with add=1 spilled 20 bytes), so
    // that configuration keeps two. The e2e matrix checks every spec
    // compiles without scratch.
    const int64_t most = spec.rot == RotationKind::Learned && spec.RS >= 256 ? 2 : 4;
    int64_t inFlight = 1;
    if (blocks % waves == 0)
      while (inFlight * 2 <= most && perWave % (inFlight * 2) == 0)
        inFlight *= 2;
    Value lane = remBy(rows.tid, kLanes), wave = divBy(rows.tid, kLanes);
    Value group = divBy(lane, kTileRows);
    Value rowValid = cmp(arith::CmpIPredicate::ult, rows.row, rows.rows);
    Value unitEnd = add(rows.firstUnit, idx(waves));
    auto loop = mlir::scf::ForOp::create(b, wave, idx(blocks), idx(waves * inFlight));
    keepRolled(loop);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    llvm::SmallVector<std::pair<Value, Value>, 4> loaded; // (block, z)
    for (int64_t i = 0; i < inFlight; ++i) {
      Value block = add(loop.getInductionVar(), idx(i * waves));
      Value channel = add(mulBy(block, 32), mulBy(group, 8));
      loaded.emplace_back(block, loadZ(b, in, rows.loadRow, channel, 8));
    }
    for (const auto &[block, z] : loaded)
      reduceBlock(block, z, group, rowValid, unitEnd);
  }

  /// One block's residual write-back and its partial sum into LDS.
  void reduceBlock(Value block, Value z, Value group, Value rowValid, Value unitEnd) {
    const int64_t blocks = spec.K / 32;
    Value channel = add(mulBy(block, 32), mulBy(group, 8));
    if (spec.add) {
      // z goes back once: by the workgroup whose units hold the block.
      Value unit = divBy(mulBy(block, 32), tiling.channelsPerUnit);
      Value owned = arith::AndIOp::create(
          b, cmp(arith::CmpIPredicate::uge, unit, rows.firstUnit),
          cmp(arith::CmpIPredicate::ult, unit, unitEnd));
      ifThen(arith::AndIOp::create(b, rowValid, owned), [&] {
        vector::StoreOp::create(b, z, args.get("residual_out"),
                                mlir::ValueRange{rows.row, channel});
      });
    }
    // The lane group's eight squares in channel order; a square of a bf16
    // value is exact in f32, only the additions round.
    auto f32s = mlir::VectorType::get({8}, b.getF32Type());
    Value wide = arith::ExtFOp::create(b, f32s, z);
    Value sum;
    for (int64_t i = 0; i < 8; ++i) {
      Value v = vector::ExtractOp::create(b, wide, i);
      Value square = arith::MulFOp::create(b, v, v);
      sum = i == 0 ? square : Value(arith::AddFOp::create(b, sum, square));
    }
    // (q0 + q1) + (q2 + q3): lanes 16 apart hold neighbouring groups.
    for (int distance : {16, 32}) {
      Value partner =
          mlir::gpu::ShuffleOp::create(b, sum, distance, kLanes, mlir::gpu::ShuffleMode::XOR)
              .getShuffleResult();
      sum = arith::AddFOp::create(b, sum, partner);
    }
    ifThen(cmp(arith::CmpIPredicate::eq, group, idx(0)), [&] {
      Value bits = arith::BitcastOp::create(b, b.getI32Type(), sum);
      mlir::memref::StoreOp::create(b, bits, lds,
                                    mlir::ValueRange{add(mulBy(rows.token, blocks), block)});
    });
  }

  /// Step 2's sum over the row's partials in block order, then steps 3-4.
  Value rowScale() {
    const int64_t blocks = spec.K / 32;
    // ds_read_b128 where rows allow it, two reads in flight per iteration.
    // The loop stays rolled: unrolled, O3 issues every read at once (K/32
    // partials in VGPRs: 372 bytes spilled at K=4096).
    const int64_t width = blocks % 4 == 0 ? 4 : 1;
    const int64_t reads = blocks % (2 * width) == 0 ? 2 : 1;
    Value base = mulBy(rows.token, blocks);
    Value zero = arith::ConstantFloatOp::create(b, b.getF32Type(), llvm::APFloat(0.0f));
    auto loop = mlir::scf::ForOp::create(b, idx(0), idx(blocks), idx(width * reads),
                                         mlir::ValueRange{zero});
    keepRolled(loop);
    {
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value sum = loop.getRegionIterArgs()[0];
      auto i32s = mlir::VectorType::get({width}, b.getI32Type());
      llvm::SmallVector<Value, 2> loaded;
      for (int64_t read = 0; read < reads; ++read)
        loaded.push_back(vector::LoadOp::create(
            b, i32s, lds, mlir::ValueRange{add(base, add(loop.getInductionVar(), idx(read * width)))}));
      for (Value partials : loaded)
        for (int64_t i = 0; i < width; ++i) {
          Value partial = arith::BitcastOp::create(b, b.getF32Type(),
                                                   vector::ExtractOp::create(b, partials, i));
          // +0 + p = p for every p >= 0, so starting from +0 is numerics'
          // "from the first block's partial".
          sum = arith::AddFOp::create(b, sum, partial);
        }
      mlir::scf::YieldOp::create(b, sum);
    }
    Value total = loop.getResult(0);
    auto f32 = [&](float v) {
      return arith::ConstantFloatOp::create(b, b.getF32Type(), llvm::APFloat(v));
    };
    // IEEE division and square root: LLVM's AMDGPU lowering of fdiv and
    // llvm.sqrt.f32 is correctly rounded unless fast-math flags allow less,
    // and none are set.
    Value mean = arith::DivFOp::create(b, total, f32(float(spec.K)));
    Value variance = arith::AddFOp::create(b, mean, args.get("eps"));
    Value root = mlir::LLVM::SqrtOp::create(b, variance);
    return arith::DivFOp::create(b, f32(1.0f), root);
  }

  const KernelSpec &spec;
  const KernelTiling &tiling;
  const KernelArguments &args;
  Value lds;
  const DenseRows &rows;
};

} // namespace

void emitNormFrontEnd(const QuantizerKernel &kernel, const DenseRows &rows,
                      RotationStage &rotation) {
  NormFrontEnd(kernel, rows).emit(rotation);
}

} // namespace mxf
