//===- rotate_quant_gemm_template.cpp - Fused rotate + MX quant + A4W4 GEMM -===//
//
// y[m, N] = bf16(dequant(Q(x.R)) . dequant(W)^T) (numerics rotateQuantGemm).
//
// A workgroup owns 16 activation rows (grid y) and 16 weight rows per wave
// (grid x). Per K slice (tiling.h): every wave quantizes rotation units of
// the slice into LDS with rotate_quant's emitter (gemm_activation.h), a
// barrier, then each wave runs one v_mfma_scale_f32_16x16x128_f8f6f4 per
// 128 channels of the slice (GFX950_SEMANTICS C9):
//   A operand: the weights. Lane l holds weight row l%16 of the wave's tile,
//              channels 32(l/16)..+31 of the chunk: one 16-byte global load
//              (plain or preshuffle_16x16 keep a 32-code block contiguous),
//              and that block's E8M0 byte as its scale.
//   B operand: the activations. Lane l holds token l%16, the same channels:
//              one 16-byte LDS read, and the token's block scale from LDS.
//   D:         lane l, register r: weight row 4(l/16)+r, token l%16; four
//              consecutive output channels of one row of y (one 8-byte store).
// Then a second barrier before the next slice overwrites LDS.
//
// Summation order (numerics GemmProblem): each output's chain starts at +0
// and takes the 128-channel chunks in ascending K, across slices; each MFMA
// adds the chunk's exact sum to the accumulator with one rounding to f32.
//
//===----------------------------------------------------------------------===//

#include "templates/rotate_quant_gemm/rotate_quant_gemm_template.h"

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

namespace mxf {
namespace {

using mlir::Type;
using mlir::Value;
namespace arith = mlir::arith;
namespace vector = mlir::vector;

constexpr int kLanes = 64;
constexpr int kTileRows = 16;
constexpr int kBlockBytes = 16; // 32 fp4 codes
/// Chunks of the product loop unrolled together (unrollBy).
constexpr int64_t kChunksInFlight = 4;

class GemmEmitter : private IrBuilder {
public:
  GemmEmitter(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec, const GemmTiling &tiling,
              mlir::gpu::GPUFuncOp func, Value ldsCodes, Value ldsScales)
      : IrBuilder(b), spec(spec), tiling(tiling), args(spec, func),
        activation(b, spec, tiling.activation, func), ldsCodes(ldsCodes), ldsScales(ldsScales) {}

  void emitBody() {
    Value tid = mlir::gpu::ThreadIdOp::create(b, mlir::gpu::Dimension::x);
    Value lane = remBy(tid, kLanes);
    Value wave = divBy(tid, kLanes);
    group = divBy(lane, kTileRows);
    token = remBy(lane, kTileRows);
    const int64_t weightTiles = spec.N / kTileRows;
    Value weightTile = add(mulBy(mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::x),
                                 tiling.wavesPerWorkgroup()),
                           wave);
    // Waves past the last weight tile (N not a multiple of the workgroup's
    // columns) multiply the last tile again and store nothing: every wave
    // stays in the loop that holds the barriers.
    Value tileValid = cmp(arith::CmpIPredicate::ult, weightTile, idx(weightTiles));
    Value loadTile = arith::MinUIOp::create(b, weightTile, idx(weightTiles - 1));
    weightRow = add(mulBy(loadTile, kTileRows), token);
    prepareWeightRow();
    weightScales.emplace(b, spec.layout, args.get("w_s"), weightRow);

    activation.prepare(ldsCodes, ldsScales);
    auto slices = mlir::scf::ForOp::create(b, idx(0), idx(tiling.slices), idx(1),
                                           mlir::ValueRange{zeroAccumulator()});
    {
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(slices.getBody());
      Value slice = slices.getInductionVar();
      activation.emitSlice(slice, tiling.unitsPerSlice);
      mlir::gpu::BarrierOp::create(b); // the slice's codes before any read
      Value acc = emitSliceProduct(slice, slices.getRegionIterArgs()[0]);
      mlir::gpu::BarrierOp::create(b); // every read before the next slice's writes
      mlir::scf::YieldOp::create(b, mlir::ValueRange{acc});
    }
    emitStore(slices.getResult(0), weightTile, tileValid);
  }

private:
  /// The chunks of one slice, ascending, on the accumulator `acc`.
  Value emitSliceProduct(Value slice, Value acc) {
    const int64_t chunks = tiling.sliceChannels / kGemmChunkChannels;
    const int64_t blocksPerSlice = tiling.sliceChannels / 32;
    auto loop = mlir::scf::ForOp::create(b, idx(0), idx(chunks), idx(1), mlir::ValueRange{acc});
    unrollBy(loop, kChunksInFlight);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    // This lane's 32-channel block of the chunk: in the slice, and in K.
    Value localBlock = add(mulBy(loop.getInductionVar(), 4), group);
    Value block = add(mulBy(slice, blocksPerSlice), localBlock);
    auto fp4x32 = mlir::VectorType::get({32}, b.getType<mlir::Float4E2M1FNType>());
    auto i8x16 = mlir::VectorType::get({kBlockBytes}, b.getI8Type());
    auto e8m0 = b.getType<mlir::Float8E8M0FNUType>();
    Value weights = vector::BitCastOp::create(b, fp4x32, loadWeightBlock(block));
    Value weightScale = arith::BitcastOp::create(b, e8m0, weightScales->load(block));
    Value codes = vector::BitCastOp::create(
        b, fp4x32,
        vector::LoadOp::create(b, i8x16, ldsCodes,
                               mlir::ValueRange{token, mulBy(localBlock, kBlockBytes)}));
    Value codeScale = arith::BitcastOp::create(
        b, e8m0, mlir::memref::LoadOp::create(b, ldsScales, mlir::ValueRange{token, localBlock}));
    Value carried = loop.getRegionIterArgs()[0];
    Value next = mlir::amdgpu::ScaledMFMAOp::create(b, carried.getType(), 16, 16, 128, weights,
                                                    codes, carried, weightScale, codeScale, 0, 0);
    mlir::scf::YieldOp::create(b, mlir::ValueRange{next});
    return loop.getResult(0);
  }

  /// Asks LLVM to unroll `loop` by `count` only. Left alone, O3 unrolls a
  /// slice's 32 chunks completely and hoists every weight load: 332 VGPRs
  /// (AGPRs included) and one wave per SIMD. `count` chunks in flight keep
  /// that many 16-byte weight loads outstanding per lane.
  void unrollBy(mlir::scf::ForOp loop, int64_t count) {
    mlir::MLIRContext *ctx = b.getContext();
    auto unroll = mlir::LLVM::LoopUnrollAttr::get(ctx, /*disable=*/{}, b.getI32IntegerAttr(count),
                                                  {}, {}, {}, {}, {});
    loop->setAttr("loop_annotation",
                  mlir::LLVM::LoopAnnotationAttr::get(ctx, {}, {}, {}, unroll, {}, {}, {}, {},
                                                      {}, {}, {}, {}, {}, {}, {}));
  }

  /// wlayout=preshuffle_16x16: w_q as one flat array and this lane's row's
  /// part of every index (CodeWriter's layout: byte (row, 16j + c) at
  /// (row/16)*16*kBytes + (row%16)*16 + 256*j + c).
  void prepareWeightRow() {
    Value wq = args.get("w_q");
    if (spec.wlayout == WeightLayout::Plain)
      return;
    llvm::SmallVector<mlir::ReassociationIndices, 1> bothDims{{0, 1}};
    flatWeights = mlir::memref::CollapseShapeOp::create(b, wq, bothDims);
    const int64_t rowBytes = spec.K / 2;
    weightRowOffset =
        add(mulBy(divBy(weightRow, 16), 16 * rowBytes), mulBy(remBy(weightRow, 16), 16));
  }

  /// The 16 code bytes of 32-channel block `block` of this lane's weight row.
  Value loadWeightBlock(Value block) {
    auto i8x16 = mlir::VectorType::get({kBlockBytes}, b.getI8Type());
    if (spec.wlayout == WeightLayout::Plain)
      return vector::LoadOp::create(b, i8x16, args.get("w_q"),
                                    mlir::ValueRange{weightRow, mulBy(block, kBlockBytes)});
    return vector::LoadOp::create(b, i8x16, flatWeights,
                                  mlir::ValueRange{add(weightRowOffset, mulBy(block, 256))});
  }

  /// y[row][16 tile + 4g .. +3] for the workgroup's rows below m.
  void emitStore(Value acc, Value weightTile, Value tileValid) {
    Value mIndex = arith::IndexCastOp::create(b, b.getIndexType(), args.get("m"));
    Value y = rowStridedView(b, args.get("y"), mIndex,
                             arith::IndexCastOp::create(b, b.getIndexType(), args.get("y_stride")));
    Value row = add(mulBy(mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::y), kTileRows),
                    token);
    Value stored = arith::AndIOp::create(b, tileValid, cmp(arith::CmpIPredicate::ult, row, mIndex));
    ifThen(stored, [&] {
      Value out = arith::TruncFOp::create(b, mlir::VectorType::get({4}, b.getBF16Type()), acc);
      Value column = add(mulBy(weightTile, kTileRows), mulBy(group, 4));
      vector::StoreOp::create(b, out, y, mlir::ValueRange{row, column});
    });
  }

  const KernelSpec &spec;
  const GemmTiling &tiling;
  const KernelArguments args;
  GemmActivationEmitter activation;
  Value ldsCodes, ldsScales;
  std::optional<ScaleWriter> weightScales; // reads w_s at weightRow
  Value group, token, weightRow;
  Value flatWeights, weightRowOffset; // preshuffle_16x16 only
};

mlir::MemRefType workgroupBuffer(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> shape,
                                 Type element) {
  return mlir::MemRefType::get(
      shape, element, mlir::AffineMap(),
      mlir::gpu::AddressSpaceAttr::get(ctx, mlir::gpu::AddressSpace::Workgroup));
}

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
  // buffer), then the activation slice: codes [16, S/2], scales [16, S/32].
  llvm::SmallVector<Type, 3> workgroupBuffers;
  if (tiling.activation.ldsBytes > 0)
    workgroupBuffers.push_back(
        workgroupBuffer(ctx, {int64_t(tiling.activation.ldsBytes / 2)}, b.getBF16Type()));
  workgroupBuffers.push_back(
      workgroupBuffer(ctx, {kTileRows, int64_t(tiling.sliceChannels / 2)}, b.getI8Type()));
  workgroupBuffers.push_back(
      workgroupBuffer(ctx, {kTileRows, int64_t(tiling.sliceChannels / 32)}, b.getI8Type()));
  auto func = mlir::gpu::GPUFuncOp::create(b, kernelName, b.getFunctionType(argTypes, {}),
                                           workgroupBuffers);
  func->setAttr(mlir::gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({tiling.workgroupSize(), 1, 1}));
  b.setInsertionPointToStart(&func.getBody().front());
  auto buffers = func.getWorkgroupAttributions();
  GemmEmitter(b, spec, tiling, func, buffers[buffers.size() - 2], buffers.back()).emitBody();
  mlir::gpu::ReturnOp::create(b);
  return Status::success();
}

} // namespace mxf
