//===- rotate_quant_gemm_template.cpp - Fused rotate + MX quant + A4W4 GEMM -===//
//
// y[m, N] = bf16(dequant(Q(x.R)) . dequant(W)^T) (numerics rotateQuantGemm).
//
// A workgroup owns 16 activation rows (grid y) and one 16-row weight tile
// per `chains` waves (grid x); wave w works on tile w / chains and on the
// chunks (128 channels) of chain w % chains. Per K slice (tiling.h): each
// wave loads the weights of its chunks of the slice, then the waves quantize
// the slice's activation units into LDS with rotate_quant's emitter
// (gemm_activation.h), a barrier, then each wave runs one
// v_mfma_scale_f32_16x16x128_f8f6f4 per chunk of its chain
// (GFX950_SEMANTICS C9):
//   A operand: the weights. Lane l holds weight row l%16 of the tile,
//              channels 32(l/16)..+31 of the chunk: one 16-byte global load
//              (plain or preshuffle_16x16 keep a 32-code block contiguous),
//              and that block's E8M0 byte as its scale.
//   B operand: the activations. Lane l holds token l%16, the same channels:
//              one 16-byte LDS read, and the token's block scale from LDS.
//   D:         lane l, register r: weight row 4(l/16)+r, token l%16.
// Then a second barrier before the next slice overwrites LDS. At the end the
// chains' accumulators meet in LDS and chain 0's wave adds them in order and
// stores four consecutive outputs of one row of y (one 8-byte store).
//
// Summation order (numerics GemmProblem, gemmChains): each chain starts at
// +0 and takes its chunks in ascending K, across slices; each MFMA adds the
// chunk's exact sum to the accumulator with one rounding to f32; y is bf16
// of ((c0 + c1) + c2) + c3.
//
//===----------------------------------------------------------------------===//

#include "templates/rotate_quant_gemm/rotate_quant_gemm_template.h"

#include "templates/common/code_writer.h"
#include "templates/common/ir_builder.h"
#include "templates/common/kernel_arguments.h"
#include "templates/common/scale_writer.h"
#include "templates/rotate_quant/gemm_activation.h"
#include "templates/rotate_quant_gemm/tiling.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <optional>
#include <vector>

namespace mxf {
namespace {

using mlir::Type;
using mlir::Value;
namespace arith = mlir::arith;
namespace vector = mlir::vector;

constexpr int kLanes = 64;
constexpr int kTileRows = 16;
constexpr int kBlockBytes = 16; // 32 fp4 codes

class GemmEmitter : private IrBuilder {
public:
  GemmEmitter(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec, const GemmTiling &tiling,
              mlir::gpu::GPUFuncOp func, Value ldsCodes, Value ldsScales, Value ldsReduction)
      : IrBuilder(b), spec(spec), tiling(tiling), args(spec, func),
        activation(b, spec, tiling.activation, func), ldsCodes(ldsCodes), ldsScales(ldsScales),
        ldsReduction(ldsReduction) {}

  void emitBody() {
    Value tid = mlir::gpu::ThreadIdOp::create(b, mlir::gpu::Dimension::x);
    lane = remBy(tid, kLanes);
    wave = divBy(tid, kLanes);
    group = divBy(lane, kTileRows);
    token = remBy(lane, kTileRows);
    chain = remBy(wave, tiling.chains);
    const int64_t weightTiles = spec.N / kTileRows;
    Value weightTile = add(mulBy(mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::x),
                                 tiling.tilesPerWorkgroup),
                           divBy(wave, tiling.chains));
    // Waves past the last weight tile (N not a multiple of the workgroup's
    // columns) multiply the last tile again and store nothing: every wave
    // stays in the loop that holds the barriers.
    Value tileValid = cmp(arith::CmpIPredicate::ult, weightTile, idx(weightTiles));
    Value loadTile = arith::MinUIOp::create(b, weightTile, idx(weightTiles - 1));
    weightRow = add(mulBy(loadTile, kTileRows), token);
    // The weights as quant_weight writes them, read back through the same
    // writers (one home for each layout's addressing).
    weightCodes.emplace(b, ElemFormat::E2M1, spec.wlayout, args.get("w_q"), weightRow);
    weightScales.emplace(b, spec.layout, args.get("w_s"), weightRow);

    activation.prepare(ldsCodes, ldsScales);
    auto slices = mlir::scf::ForOp::create(b, idx(0), idx(tiling.slices), idx(1),
                                           mlir::ValueRange{zeroAccumulator()});
    {
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(slices.getBody());
      Value slice = slices.getInductionVar();
      // The weights first: they do not depend on the activation side, so
      // their round trip overlaps its work.
      const std::vector<ChunkWeights> weights = loadSliceWeights(slice);
      activation.emitSlice(slice, tiling.unitsPerSlice, tiling.unitsInFlight);
      mlir::gpu::BarrierOp::create(b); // the slice's codes before any read
      Value acc = emitSliceProduct(weights, slices.getRegionIterArgs()[0]);
      mlir::gpu::BarrierOp::create(b); // every read before the next slice's writes
      mlir::scf::YieldOp::create(b, mlir::ValueRange{acc});
    }
    emitReduceAndStore(slices.getResult(0), weightTile, tileValid);
  }

private:
  /// One chunk of this wave's chain in the current slice: its place in the
  /// slice's LDS (the lane's 32-channel block), the weights' 16 code bytes
  /// and E8M0 byte, and whether the chunk exists (the last of a slice whose
  /// chunk count is not a multiple of the chains is loaded again, unused).
  struct ChunkWeights {
    Value localBlock, codes, scale, valid;
  };

  /// Chunk c of K belongs to chain c % chains (numerics gemmChains); in a
  /// slice of C chunks starting at chunk s0, this wave's are
  /// first, first + chains, ... with first = (chain - s0) mod chains.
  std::vector<ChunkWeights> loadSliceWeights(Value slice) {
    const int64_t chunksPerSlice = tiling.sliceChannels / kGemmChunkChannels;
    const int64_t chains = tiling.chains;
    Value sliceChunk0 = mulBy(slice, chunksPerSlice);
    Value first = remBy(
        arith::SubIOp::create(b, add(chain, idx(chains)), remBy(sliceChunk0, chains)), chains);
    const bool everyChunkExists = chunksPerSlice % chains == 0;
    std::vector<ChunkWeights> out;
    for (int64_t j = 0; j < tiling.chunksPerWave; ++j) {
      Value local = add(first, idx(j * chains));
      ChunkWeights chunk;
      if (!everyChunkExists) {
        chunk.valid = cmp(arith::CmpIPredicate::ult, local, idx(chunksPerSlice));
        local = arith::MinUIOp::create(b, local, idx(chunksPerSlice - 1));
      }
      chunk.localBlock = add(mulBy(local, 4), group);
      Value block = add(mulBy(slice, chunksPerSlice * 4), chunk.localBlock);
      chunk.codes = weightCodes->loadBlock(block);
      chunk.scale = weightScales->load(block);
      out.push_back(chunk);
    }
    return out;
  }

  /// This wave's chunks of the slice, ascending, on its chain's accumulator.
  Value emitSliceProduct(const std::vector<ChunkWeights> &weights, Value acc) {
    auto fp4x32 = mlir::VectorType::get({32}, b.getType<mlir::Float4E2M1FNType>());
    auto i8x16 = mlir::VectorType::get({kBlockBytes}, b.getI8Type());
    auto e8m0 = b.getType<mlir::Float8E8M0FNUType>();
    for (const ChunkWeights &chunk : weights) {
      Value w = vector::BitCastOp::create(b, fp4x32, chunk.codes);
      Value weightScale = arith::BitcastOp::create(b, e8m0, chunk.scale);
      Value codes = vector::BitCastOp::create(
          b, fp4x32,
          vector::LoadOp::create(b, i8x16, ldsCodes,
                                 mlir::ValueRange{token, mulBy(chunk.localBlock, kBlockBytes)}));
      Value codeScale = arith::BitcastOp::create(
          b, e8m0,
          mlir::memref::LoadOp::create(b, ldsScales, mlir::ValueRange{token, chunk.localBlock}));
      Value next = mlir::amdgpu::ScaledMFMAOp::create(b, acc.getType(), 16, 16, 128, w, codes,
                                                      acc, weightScale, codeScale, 0, 0);
      acc = chunk.valid ? arith::SelectOp::create(b, chunk.valid, next, acc).getResult() : next;
    }
    return acc;
  }

  /// y[row][16 tile + 4g .. +3] for the workgroup's rows below m: with
  /// several chains, every wave leaves its accumulator in LDS and the wave of
  /// chain 0 adds the others in chain order (numerics' ((c0 + c1) + c2) + c3).
  void emitReduceAndStore(Value acc, Value weightTile, Value tileValid) {
    Value mIndex = arith::IndexCastOp::create(b, b.getIndexType(), args.get("m"));
    Value y = rowStridedView(b, args.get("y"), mIndex,
                             arith::IndexCastOp::create(b, b.getIndexType(), args.get("y_stride")));
    Value row = add(mulBy(mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::y), kTileRows),
                    token);
    Value stored = arith::AndIOp::create(b, tileValid, cmp(arith::CmpIPredicate::ult, row, mIndex));
    auto store = [&](Value total) {
      ifThen(stored, [&] {
        Value out = arith::TruncFOp::create(b, mlir::VectorType::get({4}, b.getBF16Type()), total);
        Value column = add(mulBy(weightTile, kTileRows), mulBy(group, 4));
        vector::StoreOp::create(b, out, y, mlir::ValueRange{row, column});
      });
    };
    if (tiling.chains == 1)
      return store(acc);
    auto v4f32 = mlir::VectorType::get({4}, b.getF32Type());
    auto slot = [&](Value w) { return mulBy(add(mulBy(w, kLanes), lane), 4); };
    vector::StoreOp::create(b, acc, ldsReduction, mlir::ValueRange{slot(wave)});
    mlir::gpu::BarrierOp::create(b);
    ifThen(cmp(arith::CmpIPredicate::eq, chain, idx(0)), [&] {
      Value total = acc;
      for (int64_t c = 1; c < tiling.chains; ++c) {
        Value other =
            vector::LoadOp::create(b, v4f32, ldsReduction, mlir::ValueRange{slot(add(wave, idx(c)))});
        total = arith::AddFOp::create(b, total, other);
      }
      store(total);
    });
  }

  const KernelSpec &spec;
  const GemmTiling &tiling;
  const KernelArguments args;
  GemmActivationEmitter activation;
  Value ldsCodes, ldsScales;
  Value ldsReduction; // chains > 1: f32 [waves][64 lanes][4]
  std::optional<CodeWriter> weightCodes;   // reads w_q at weightRow
  std::optional<ScaleWriter> weightScales; // reads w_s at weightRow
  Value lane, wave, group, token, chain, weightRow;
};

} // namespace

Status buildRotateQuantGemmKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                                  llvm::StringRef kernelName) {
  if (Status supported = checkRotateQuantGemmSupported(spec); !supported.ok())
    return supported;
  mlir::MLIRContext *ctx = module.getContext();
  ctx->loadDialect<mlir::amdgpu::AMDGPUDialect, mlir::arith::ArithDialect,
                   mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect, mlir::math::MathDialect,
                   mlir::memref::MemRefDialect, mlir::ROCDL::ROCDLDialect,
                   mlir::scf::SCFDialect, mlir::vector::VectorDialect>();
  const GemmTiling tiling = chooseRotateQuantGemmTiling(spec);
  const llvm::SmallVector<Type> argTypes = kernelArgumentTypes(ctx, spec);

  mlir::ImplicitLocOpBuilder b(mlir::NameLoc::get(mlir::StringAttr::get(ctx, kernelName)), ctx);
  b.setInsertionPointToEnd(module.getBody());
  // The rotation's LDS first (rotate_quant's emitter takes the first
  // buffer), then the activation slice: codes [16, S/2], scales [16, S/32],
  // then the chains' accumulators.
  llvm::SmallVector<Type, 3> workgroupBuffers;
  if (tiling.activation.ldsBytes > 0)
    workgroupBuffers.push_back(
        workgroupBufferType(ctx, {int64_t(tiling.activation.ldsBytes / 2)}, b.getBF16Type()));
  workgroupBuffers.push_back(
      workgroupBufferType(ctx, {kTileRows, int64_t(tiling.sliceChannels / 2)}, b.getI8Type()));
  workgroupBuffers.push_back(
      workgroupBufferType(ctx, {kTileRows, int64_t(tiling.sliceChannels / 32)}, b.getI8Type()));
  if (tiling.reductionLdsBytes > 0)
    workgroupBuffers.push_back(
        workgroupBufferType(ctx, {int64_t(tiling.reductionLdsBytes / 4)}, b.getF32Type()));
  auto func = mlir::gpu::GPUFuncOp::create(b, kernelName, b.getFunctionType(argTypes, {}),
                                           workgroupBuffers);
  func->setAttr(mlir::gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({tiling.workgroupSize(), 1, 1}));
  b.setInsertionPointToStart(&func.getBody().front());
  auto buffers = func.getWorkgroupAttributions();
  const size_t codes = tiling.activation.ldsBytes > 0 ? 1 : 0;
  GemmEmitter(b, spec, tiling, func, buffers[codes], buffers[codes + 1],
              tiling.reductionLdsBytes > 0 ? Value(buffers[codes + 2]) : Value())
      .emitBody();
  mlir::gpu::ReturnOp::create(b);
  return Status::success();
}

} // namespace mxf
