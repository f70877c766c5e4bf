//===- rotate_quant_gemm_template.cpp - Fused rotation + A4W4 or W6A16 GEMM -===//
//
// y[m, N] = bf16(A . dequant(W)^T) (numerics rotateQuantGemm), where A is
// dequant(Q(x.R)) for fmt=fp4 (A4W4) and bf16(x.R) for fmt=fp6_e2m3 (W6A16).
//
// A workgroup owns 16 activation rows (grid y) and tilesPerWave 16-row
// weight tiles per `chains` waves (grid x); wave w works on the tiles of
// tile group w / chains and on the chunks (128 channels) of chain
// w % chains. Per K slice (tiling.h): each wave issues its first weight
// loads, then the waves quantize the slice's activation units into LDS with
// rotate_quant's emitter (gemm_activation.h), once for all the tiles, a
// barrier, then each wave runs, chunk by chunk of its chain and tile by tile
// within a chunk, one v_mfma_scale_f32_16x16x128_f8f6f4 per chunk and tile,
// issuing the next weight load as each MFMA frees its registers
// (GFX950_SEMANTICS C9):
//   A operand: the weights. Lane l holds weight row l%16 of the tile,
//              channels 32(l/16)..+31 of the chunk: one 16-byte global load
//              (plain or preshuffle_16x16 keep a 32-code block contiguous),
//              and that block's E8M0 byte as its scale.
//   B operand: the activations. Lane l holds token l%16, the same channels:
//              one 16-byte LDS read, and the token's block scale from LDS.
//   D:         lane l, register r: weight row 4(l/16)+r, token l%16.
// W6A16 (fmt=fp6_e2m3) differs in the activation side and the product only:
// the activation side stores the rotated values as bf16 (LDS [16, S]), and
// per chunk a lane converts its 24-byte block with one
// v_cvt_scalef32_pk32_bf16_fp6 (its E8M0 byte as the f32 scale's exponent)
// and runs four v_mfma_f32_16x16x32_bf16 (GFX950_SEMANTICS C8), MFMA t
// taking items 8t..8t+7 of the block: A = those 8 converted weights, B = the
// token's 8 bf16 at channel 32(l/16) + 8t of the chunk (one 16-byte LDS
// read). Numerics' gemmChannelOfTerm names that grouping.
// Then a second barrier before the next slice overwrites LDS. At the end the
// chains' accumulators meet in LDS and chain 0's wave adds them in order and
// stores four consecutive outputs of one row of y (one 8-byte store).
//
// Summation order (numerics GemmProblem, gemmChains): each chain starts at
// +0 and takes its chunks in ascending K, across slices; each MFMA adds its
// exact sum (A4W4: the chunk's; W6A16: group t's) to the accumulator with
// one rounding to f32; y is bf16 of ((c0 + c1) + c2) + c3.
//
//===----------------------------------------------------------------------===//

#include "templates/rotate_quant_gemm/rotate_quant_gemm_template.h"

#include "abi/gemm_split.h"

#include "templates/common/code_writer.h"
#include "templates/common/ir_builder.h"
#include "templates/common/kernel_arguments.h"
#include "templates/common/scale_writer.h"
#include "templates/rotate_quant_gemm/gemm_activation.h"
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

#include <functional>
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
constexpr int kBf16MfmaK = 32;  // v_mfma_f32_16x16x32_bf16: 8 items a lane

class GemmEmitter : private IrBuilder {
public:
  /// A4W4: ldsCodes and ldsScales; W6A16: ldsCodes is the bf16 values and
  /// ldsScales is null.
  GemmEmitter(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec, const GemmTiling &tiling,
              mlir::gpu::GPUFuncOp func, Value ldsCodes, Value ldsScales, Value ldsReduction,
              Value ldsArrival)
      : IrBuilder(b), spec(spec), w6a16(isW6A16Gemm(spec)), tiling(tiling), args(spec, func),
        activationSpec(gemmActivationSpec(spec)),
        activation(b, activationSpec, tiling.activation, func, args), ldsCodes(ldsCodes),
        ldsScales(ldsScales), ldsReduction(ldsReduction), ldsArrival(ldsArrival) {}

  void emitBody() {
    tid = mlir::gpu::ThreadIdOp::create(b, mlir::gpu::Dimension::x);
    lane = remBy(tid, kLanes);
    wave = divBy(tid, kLanes);
    group = divBy(lane, kTileRows);
    token = remBy(lane, kTileRows);
    Value blockX = mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::x);
    // Split (abi/gemm_split.h): the workgroup's chain is its place in its
    // column group, and each wave takes one tile of the group.
    columnGroup = tiling.split.split ? divBy(blockX, tiling.chains) : blockX;
    chain = tiling.split.split ? remBy(blockX, tiling.chains) : remBy(wave, tiling.chains);
    const int64_t weightTiles = (spec.N + kTileRows - 1) / kTileRows;
    // The column group's tiles are tilesPerWorkgroup * tilesPerWave
    // consecutive ones; this wave's tile group g takes g, g +
    // tilesPerWorkgroup, ... (the waves of a workgroup read neighbouring
    // tiles at the same time).
    Value firstTile = add(mulBy(columnGroup, tiling.tilesPerWorkgroup * tiling.tilesPerWave),
                          tiling.split.split ? wave : divBy(wave, tiling.chains));
    for (int64_t t = 0; t < tiling.tilesPerWave; ++t) {
      WaveTile tile;
      tile.index = add(firstTile, idx(t * tiling.tilesPerWorkgroup));
      // Tiles past the last (N not a multiple of the workgroup's columns)
      // multiply the last tile again and store nothing: every wave stays in
      // the loop that holds the barriers.
      tile.valid = cmp(arith::CmpIPredicate::ult, tile.index, idx(weightTiles));
      Value loadTile = arith::MinUIOp::create(b, tile.index, idx(weightTiles - 1));
      Value weightRow = add(mulBy(loadTile, kTileRows), token);
      // The weights as quant_weight writes them, read back through the same
      // writers (one home for each layout's addressing).
      tile.codes.emplace(b, spec.fmt, codeLayoutOf(spec.wlayout), args.get("w_q"), weightRow);
      tile.scales.emplace(b, spec.layout, args.get("w_s"), weightRow);
      tiles.push_back(std::move(tile));
    }

    if (w6a16)
      activation.prepareBf16(ldsCodes);
    else
      activation.prepare(ldsCodes, ldsScales);
    llvm::SmallVector<Value> zeros(tiles.size(), zeroAccumulator());
    auto slices = mlir::scf::ForOp::create(b, idx(0), idx(tiling.slices), idx(1), zeros);
    {
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(slices.getBody());
      Value slice = slices.getInductionVar();
      const std::vector<SliceChunk> chunks = sliceChunks(slice);
      // The first weights before the activation side: they do not depend on
      // it, so their round trip overlaps its work.
      std::vector<ChunkWeights> loaded;
      const size_t items = chunks.size() * tiles.size();
      const size_t inFlight = size_t(tiling.weightLoadsInFlight);
      for (size_t i = 0; i < std::min(inFlight, items); ++i)
        loaded.push_back(loadItem(chunks, i));
      // Split, the workgroup quantizes its chain's chunks only.
      const GemmChainUnits chainUnits{
          chain, tiling.chains, kGemmChunkChannels / tiling.activation.channelsPerUnit};
      activation.emitSlice(slice, tiling.unitsPerSlice, tiling.unitsInFlight,
                           tiling.split.split ? &chainUnits : nullptr);
      mlir::gpu::BarrierOp::create(b); // the slice's codes before any read
      llvm::SmallVector<Value> accs(slices.getRegionIterArgs());
      // Item i is chunk i / tiles of tile i % tiles: each tile's chunks stay
      // in ascending K (its chain's order), and neighbouring MFMAs feed
      // different accumulators.
      for (size_t j = 0; j < chunks.size(); ++j) {
        const ChunkActivations x = readActivations(chunks[j]);
        for (size_t t = 0; t < tiles.size(); ++t) {
          const size_t i = j * tiles.size() + t;
          accs[t] = emitChunkProduct(chunks[j], loaded[i], x, accs[t]);
          if (i + inFlight < items)
            loaded.push_back(loadItem(chunks, i + inFlight));
        }
      }
      mlir::gpu::BarrierOp::create(b); // every read before the next slice's writes
      mlir::scf::YieldOp::create(b, accs);
    }
    emitReduceAndStore(slices.getResults());
  }

private:
  /// One of this wave's weight tiles: its index, whether it exists, and
  /// readers of its weights at the lane's row.
  struct WaveTile {
    Value index, valid;
    std::optional<CodeWriter> codes;  // reads w_q at the lane's weight row
    std::optional<ScaleWriter> scales; // reads w_s at the lane's weight row
  };

  /// One chunk of this wave's chain in the current slice: its place in the
  /// slice's LDS (the lane's 32-channel block), its block of K, and whether
  /// the chunk exists (the last of a slice whose chunk count is not a
  /// multiple of the chains is loaded again, unused).
  struct SliceChunk {
    Value localBlock, block, valid;
  };

  /// One chunk of one tile's weights: code bytes (16 fp4, 24 fp6) and the
  /// E8M0 byte.
  struct ChunkWeights {
    Value codes, scale;
  };

  /// The token's activations of a chunk, read from LDS once for all tiles.
  /// A4W4: 32 fp4 codes and their scale; W6A16: four groups of 8 bf16.
  struct ChunkActivations {
    Value codes, scale;
    llvm::SmallVector<Value, 4> bf16Groups;
  };

  /// Chunk c of K belongs to chain c % chains (numerics gemmChains); in a
  /// slice of C chunks starting at chunk s0, this wave's are
  /// first, first + chains, ... with first = (chain - s0) mod chains.
  std::vector<SliceChunk> sliceChunks(Value slice) {
    const int64_t chunksPerSlice = tiling.sliceChannels / kGemmChunkChannels;
    const int64_t chains = tiling.chains;
    Value sliceChunk0 = mulBy(slice, chunksPerSlice);
    Value first = remBy(
        arith::SubIOp::create(b, add(chain, idx(chains)), remBy(sliceChunk0, chains)), chains);
    const bool everyChunkExists = chunksPerSlice % chains == 0;
    std::vector<SliceChunk> out;
    for (int64_t j = 0; j < tiling.chunksPerWave; ++j) {
      Value local = add(first, idx(j * chains));
      SliceChunk chunk;
      if (!everyChunkExists) {
        chunk.valid = cmp(arith::CmpIPredicate::ult, local, idx(chunksPerSlice));
        local = arith::MinUIOp::create(b, local, idx(chunksPerSlice - 1));
      }
      chunk.localBlock = add(mulBy(local, 4), group);
      chunk.block = add(mulBy(slice, chunksPerSlice * 4), chunk.localBlock);
      out.push_back(chunk);
    }
    return out;
  }

  /// Item i: chunk i / tiles of tile i % tiles.
  ChunkWeights loadItem(const std::vector<SliceChunk> &chunks, size_t i) {
    const SliceChunk &chunk = chunks[i / tiles.size()];
    WaveTile &tile = tiles[i % tiles.size()];
    return {tile.codes->loadBlock(chunk.block), tile.scales->load(chunk.block)};
  }

  ChunkActivations readActivations(const SliceChunk &chunk) {
    ChunkActivations x;
    if (w6a16) {
      auto bf16x8 = mlir::VectorType::get({8}, b.getBF16Type());
      for (int64_t t = 0; t < 32 / 8; ++t)
        x.bf16Groups.push_back(vector::LoadOp::create(
            b, bf16x8, ldsCodes,
            mlir::ValueRange{token, add(mulBy(chunk.localBlock, 32), idx(8 * t))}));
      return x;
    }
    auto fp4x32 = mlir::VectorType::get({32}, b.getType<mlir::Float4E2M1FNType>());
    auto i8x16 = mlir::VectorType::get({kBlockBytes}, b.getI8Type());
    auto e8m0 = b.getType<mlir::Float8E8M0FNUType>();
    x.codes = vector::BitCastOp::create(
        b, fp4x32,
        vector::LoadOp::create(b, i8x16, ldsCodes,
                               mlir::ValueRange{token, mulBy(chunk.localBlock, kBlockBytes)}));
    x.scale = arith::BitcastOp::create(
        b, e8m0, mlir::memref::LoadOp::create(b, ldsScales, mlir::ValueRange{token, chunk.localBlock}));
    return x;
  }

  /// One chunk of one tile on that tile's accumulator. A4W4: one scaled
  /// MFMA. W6A16: the lane's 32 weights converted to bf16 exactly
  /// (code x 2^(e-127)), then MFMA t on items 8t..8t+7 of them and the
  /// token's bf16 activations at the same channels, t ascending.
  Value emitChunkProduct(const SliceChunk &chunk, const ChunkWeights &weights,
                         const ChunkActivations &x, Value acc) {
    Value next;
    if (w6a16) {
      auto v6i32 = mlir::VectorType::get({6}, b.getI32Type());
      auto bf16x32 = mlir::VectorType::get({32}, b.getBF16Type());
      // The cvt reads the scale as an f32's exponent field: byte << 23.
      Value scale = arith::BitcastOp::create(
          b, b.getF32Type(),
          arith::ShLIOp::create(b, arith::ExtUIOp::create(b, b.getI32Type(), weights.scale),
                                i32(23)));
      Value w = mlir::ROCDL::CvtScaleF32Pk32Bf16Fp6Op::create(
          b, bf16x32, vector::BitCastOp::create(b, v6i32, weights.codes), scale);
      next = acc;
      for (int64_t t = 0; t < 32 / 8; ++t) {
        Value weights8 = vector::ExtractStridedSliceOp::create(b, w, llvm::ArrayRef<int64_t>{8 * t},
                                                               llvm::ArrayRef<int64_t>{8},
                                                               llvm::ArrayRef<int64_t>{1});
        next = mlir::amdgpu::MFMAOp::create(b, next.getType(), 16, 16, kBf16MfmaK, 1, weights8,
                                            x.bf16Groups[t], next);
      }
    } else {
      auto fp4x32 = mlir::VectorType::get({32}, b.getType<mlir::Float4E2M1FNType>());
      auto e8m0 = b.getType<mlir::Float8E8M0FNUType>();
      Value w = vector::BitCastOp::create(b, fp4x32, weights.codes);
      Value weightScale = arith::BitcastOp::create(b, e8m0, weights.scale);
      next = mlir::amdgpu::ScaledMFMAOp::create(b, acc.getType(), 16, 16, 128, w, x.codes, acc,
                                                weightScale, x.scale, 0, 0);
    }
    return chunk.valid ? arith::SelectOp::create(b, chunk.valid, next, acc).getResult() : next;
  }

  /// y[row][16 tile + 4g .. +3] for the workgroup's rows below m, for each
  /// of the wave's tiles: with several chains, every wave leaves its
  /// accumulators in LDS and the wave of chain 0 adds the others in chain
  /// order (numerics' ((c0 + c1) + c2) + c3).
  void emitReduceAndStore(mlir::ValueRange accs) {
    Value mIndex = arith::IndexCastOp::create(b, b.getIndexType(), args.get("m"));
    Value y = rowStridedView(b, args.get("y"), mIndex,
                             arith::IndexCastOp::create(b, b.getIndexType(), args.get("y_stride")));
    Value row = add(mulBy(mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::y), kTileRows),
                    token);
    Value rowValid = cmp(arith::CmpIPredicate::ult, row, mIndex);
    auto store = [&](const WaveTile &tile, Value total) {
      ifThen(arith::AndIOp::create(b, tile.valid, rowValid), [&] {
        Value out = arith::TruncFOp::create(b, mlir::VectorType::get({4}, b.getBF16Type()), total);
        Value column = add(mulBy(tile.index, kTileRows), mulBy(group, 4));
        vector::StoreOp::create(b, out, y, mlir::ValueRange{row, column});
      });
    };
    if (tiling.split.split)
      return emitSplitReduceAndStore(accs, mIndex, [&](size_t t, Value total) {
        store(tiles[t], total);
      });
    if (tiling.chains == 1) {
      // The MFMAs stay out of the row < m branch.
      llvm::SmallVector<Value> pinned;
      for (Value acc : accs)
        pinned.push_back(pinnedInPlace(acc));
      for (size_t t = 0; t < tiles.size(); ++t)
        store(tiles[t], pinned[t]);
      return;
    }
    auto v4f32 = mlir::VectorType::get({4}, b.getF32Type());
    const int64_t waves = tiling.wavesPerWorkgroup();
    auto slot = [&](Value w, size_t t) {
      return mulBy(add(mulBy(add(w, idx(int64_t(t) * waves)), kLanes), lane), 4);
    };
    for (size_t t = 0; t < tiles.size(); ++t)
      vector::StoreOp::create(b, accs[t], ldsReduction, mlir::ValueRange{slot(wave, t)});
    mlir::gpu::BarrierOp::create(b);
    ifThen(cmp(arith::CmpIPredicate::eq, chain, idx(0)), [&] {
      for (size_t t = 0; t < tiles.size(); ++t) {
        Value total = accs[t];
        for (int64_t c = 1; c < tiling.chains; ++c) {
          Value other = vector::LoadOp::create(b, v4f32, ldsReduction,
                                               mlir::ValueRange{slot(add(wave, idx(c)), t)});
          total = arith::AddFOp::create(b, total, other);
        }
        store(tiles[t], total);
      }
    });
  }

  /// Split: every wave leaves its tile's partial sum in `ws`, and the last
  /// workgroup of the column group to arrive (an integer atomic counter:
  /// which one depends on timing, the order of the sum does not) adds the
  /// four chains' partials in chain order and stores y. The counter goes
  /// back to zero for the next launch. Cross-workgroup order, as the
  /// AMDGPU memory model asks for it: each wave's partial is released at
  /// agent scope before the barrier that precedes the arrival, and the last
  /// workgroup's waves acquire at agent scope before reading the others'.
  void emitSplitReduceAndStore(mlir::ValueRange accs, Value mIndex,
                               const std::function<void(size_t, Value)> &storeTotal) {
    const GemmChainSplit &split = tiling.split;
    auto v4f32 = mlir::VectorType::get({4}, b.getF32Type());
    auto v4i32 = mlir::VectorType::get({4}, b.getI32Type());
    Value rowTile = mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::y);
    Value ws = rowStridedView(b, args.get("ws"), divBy(add(mIndex, idx(kTileRows - 1)), kTileRows),
                              idx(split.wordsPerRowTile));
    // GemmChainSplit::partialWord.
    auto partialWord = [&](Value ofChain, size_t t) {
      Value waveSlot = add(mulBy(add(mulBy(columnGroup, split.chains), ofChain),
                                 kGemmSplitTilesPerGroup),
                           wave);
      Value slot = add(mulBy(waveSlot, split.tilesPerWave), idx(int64_t(t)));
      return add(idx(split.counterWords), mulBy(add(mulBy(slot, kLanes), lane), 4));
    };
    for (size_t t = 0; t < tiles.size(); ++t)
      vector::StoreOp::create(b, vector::BitCastOp::create(b, v4i32, accs[t]), ws,
                              mlir::ValueRange{rowTile, partialWord(chain, t)});
    mlir::LLVM::FenceOp::create(b, mlir::LLVM::AtomicOrdering::release, "agent");
    mlir::gpu::BarrierOp::create(b); // every wave's partial before the arrival
    Value counter[] = {rowTile, columnGroup};
    ifThen(cmp(arith::CmpIPredicate::eq, tid, idx(0)), [&] {
      Value old = mlir::memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi, i32(1), ws,
                                                    counter);
      ifThen(cmp(arith::CmpIPredicate::eq, old, i32(split.chains - 1)), [&] {
        mlir::memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::assign, i32(0), ws, counter);
      });
      mlir::memref::StoreOp::create(b, old, ldsArrival, mlir::ValueRange{idx(0)});
    });
    mlir::gpu::BarrierOp::create(b); // the arrival's result before any wave reads it
    Value arrived = mlir::memref::LoadOp::create(b, ldsArrival, mlir::ValueRange{idx(0)});
    ifThen(cmp(arith::CmpIPredicate::eq, arrived, i32(split.chains - 1)), [&] {
      mlir::LLVM::FenceOp::create(b, mlir::LLVM::AtomicOrdering::acquire, "agent");
      for (size_t t = 0; t < tiles.size(); ++t) {
        Value total;
        for (int64_t c = 0; c < split.chains; ++c) {
          Value partial = vector::BitCastOp::create(
              b, v4f32,
              vector::LoadOp::create(b, v4i32, ws,
                                     mlir::ValueRange{rowTile, partialWord(idx(c), t)}));
          total = c == 0 ? partial : arith::AddFOp::create(b, total, partial).getResult();
        }
        storeTotal(t, total);
      }
    });
  }

  const KernelSpec &spec;
  const bool w6a16;
  const GemmTiling &tiling;
  const KernelArguments args;
  const KernelSpec activationSpec; // the activation emitter holds a reference
  GemmActivationEmitter activation;
  Value ldsCodes, ldsScales; // W6A16: ldsCodes holds bf16 values, no scales
  Value ldsReduction; // chains > 1, unsplit: f32 [waves][64 lanes][4]
  Value ldsArrival;   // split: i32 [1], the arrival counter's old value
  std::vector<WaveTile> tiles; // tilesPerWave of them
  Value tid, lane, wave, group, token, chain, columnGroup;
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
  // buffer), then the activation slice: codes [16, S/2] and scales
  // [16, S/32] (A4W4) or bf16 values [16, S] (W6A16), then the chains'
  // accumulators.
  const bool w6a16 = isW6A16Gemm(spec);
  llvm::SmallVector<Type, 3> workgroupBuffers;
  if (tiling.activation.ldsBytes > 0)
    workgroupBuffers.push_back(
        workgroupBufferType(ctx, {int64_t(tiling.activation.ldsBytes / 2)}, b.getBF16Type()));
  if (w6a16) {
    workgroupBuffers.push_back(
        workgroupBufferType(ctx, {kTileRows, int64_t(tiling.sliceChannels)}, b.getBF16Type()));
  } else {
    workgroupBuffers.push_back(
        workgroupBufferType(ctx, {kTileRows, int64_t(tiling.sliceChannels / 2)}, b.getI8Type()));
    workgroupBuffers.push_back(
        workgroupBufferType(ctx, {kTileRows, int64_t(tiling.sliceChannels / 32)}, b.getI8Type()));
  }
  if (tiling.reductionLdsBytes > 0)
    workgroupBuffers.push_back(
        workgroupBufferType(ctx, {int64_t(tiling.reductionLdsBytes / 4)}, b.getF32Type()));
  if (tiling.arrivalLdsBytes > 0)
    workgroupBuffers.push_back(
        workgroupBufferType(ctx, {int64_t(tiling.arrivalLdsBytes / 4)}, b.getI32Type()));
  auto func = mlir::gpu::GPUFuncOp::create(b, kernelName, b.getFunctionType(argTypes, {}),
                                           workgroupBuffers);
  func->setAttr(mlir::gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({tiling.workgroupSize(), 1, 1}));
  b.setInsertionPointToStart(&func.getBody().front());
  auto buffers = func.getWorkgroupAttributions();
  const size_t codes = tiling.activation.ldsBytes > 0 ? 1 : 0;
  const size_t reduction = codes + (w6a16 ? 1 : 2);
  const size_t arrival = reduction + (tiling.reductionLdsBytes > 0 ? 1 : 0);
  GemmEmitter(b, spec, tiling, func, buffers[codes], w6a16 ? Value() : Value(buffers[codes + 1]),
              tiling.reductionLdsBytes > 0 ? Value(buffers[reduction]) : Value(),
              tiling.arrivalLdsBytes > 0 ? Value(buffers[arrival]) : Value())
      .emitBody();
  mlir::gpu::ReturnOp::create(b);
  return Status::success();
}

} // namespace mxf
