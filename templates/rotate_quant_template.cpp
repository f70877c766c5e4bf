//===- rotate_quant_template.cpp - Fused rotate + MX quant for gfx950 -----===//
//
// Lane mapping (docs/templates.md; GFX950_SEMANTICS C8): each wave computes
// y^T = R^T . x^T for 16 tokens with v_mfma_f32_16x16x32_bf16:
//   B operand: lane l holds token l%16, input channels 8(l/16)..+7 of a
//              32-channel chunk: one 16-byte load of a row of x.
//   A operand: lane l holds output channel l%16 of the tile, the same input
//              channels: a column of R (computed in registers for Hadamard,
//              gathered from global memory for learned rotations).
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

#include "templates/rotate_quant_template.h"

#include "templates/scale_rule_ir.h"
#include "templates/tiling.h"

#include "numerics/layouts.h"
#include "numerics/packing.h"
#include "numerics/reference.h"
#include "numerics/rotation.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <functional>
#include <optional>

namespace mxf {
namespace {

using mlir::Type;
using mlir::Value;
namespace arith = mlir::arith;
namespace vector = mlir::vector;

constexpr int kLanes = 64;
constexpr int kTileRows = 16;

/// The memref argument types of a rotate_quant kernel.
struct KernelArgTypes {
  mlir::MemRefType x, r, q, s;
  bool hasRotationMatrix = false;
};

KernelArgTypes argTypesFor(mlir::MLIRContext *ctx, const KernelSpec &spec) {
  KernelArgTypes types;
  auto bf16 = mlir::BFloat16Type::get(ctx);
  auto i8 = mlir::IntegerType::get(ctx, 8);
  const int64_t m = spec.M, k = spec.K, rs = spec.RS;
  types.x = mlir::MemRefType::get({m, k}, bf16);
  types.q = mlir::MemRefType::get({m, int64_t(packedBytes(spec.fmt, size_t(k)))}, i8);
  const int64_t cols = k / 32;
  if (spec.layout == ScaleLayout::Plain) {
    types.s = mlir::MemRefType::get({m, cols}, i8);
  } else {
    ScaleShape shape = a4w4ShuffledShape(size_t(m), size_t(cols), kA4W4RowPadding);
    types.s = mlir::MemRefType::get({int64_t(shape.rows), int64_t(shape.cols)}, i8);
  }
  if (spec.rot == RotationKind::Learned) {
    types.r = mlir::MemRefType::get({rs, rs}, bf16);
    types.hasRotationMatrix = true;
  } else if (spec.rot == RotationKind::LearnedPerBlock) {
    types.r = mlir::MemRefType::get({k / rs, rs, rs}, bf16);
    types.hasRotationMatrix = true;
  }
  return types;
}

class RotateQuantEmitter {
public:
  RotateQuantEmitter(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec,
                     const KernelTiling &tiling, const KernelArgTypes &types,
                     mlir::gpu::GPUFuncOp func)
      : b(b), spec(spec), tiling(tiling), types(types) {
    unsigned arg = 0;
    x = func.getArgument(arg++);
    if (types.hasRotationMatrix)
      r = func.getArgument(arg++);
    q = func.getArgument(arg++);
    s = func.getArgument(arg++);
    m = func.getArgument(arg++);
    if (tiling.stagesRotationInLds)
      lds = func.getWorkgroupAttributions().front();
  }

  void emitBody() {
    Value tid = mlir::gpu::ThreadIdOp::create(b, mlir::gpu::Dimension::x);
    lane = arith::RemUIOp::create(b, tid, idx(kLanes));
    Value wave = arith::DivUIOp::create(b, tid, idx(kLanes));
    group = arith::DivUIOp::create(b, lane, idx(kTileRows)); // g = lane / 16
    Value token = arith::RemUIOp::create(b, lane, idx(kTileRows));
    Value unit = arith::AddIOp::create(
        b, arith::MulIOp::create(b, mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::x),
                                 idx(tiling.wavesPerWorkgroup)),
        wave);
    rowTile = mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::y);
    row = arith::AddIOp::create(b, arith::MulIOp::create(b, rowTile, idx(kTileRows)), token);
    mIndex = arith::IndexCastOp::create(b, b.getIndexType(), m);
    rowValid = cmp(arith::CmpIPredicate::ult, row, mIndex);
    // Rows past M still run (their results are never stored), reading the
    // last valid row so that every load stays inside x.
    loadRow = arith::MinUIOp::create(b, row, arith::SubIOp::create(b, mIndex, idx(1)));
    if (tiling.fillsScalePadding) {
      // pad256(M): the shuffled scale rows the kernel fills with 0x7F.
      Value padded = arith::MulIOp::create(
          b, arith::DivUIOp::create(b, arith::AddIOp::create(b, mIndex, idx(255)), idx(256)),
          idx(256));
      rowInPadding = arith::AndIOp::create(b, cmp(arith::CmpIPredicate::uge, row, mIndex),
                                           cmp(arith::CmpIPredicate::ult, row, padded));
    }
    isGroupZero = cmp(arith::CmpIPredicate::eq, group, idx(0));
    if (tiling.stagesRotationInLds)
      emitStageRotation(tid);

    // Waves past the last unit (K/unit not a multiple of the wave count) exit.
    Value unitValid = cmp(arith::CmpIPredicate::ult, unit, idx(tiling.unitsPerRow));
    ifThen(unitValid, [&] {
      auto work = [&] {
        if (spec.RS == 0)
          emitPlainUnit(unit);
        else
          emitRotatedUnit(unit);
      };
      if (!tiling.fillsScalePadding)
        return work();
      // A 16-row tile wholly past M (the a4w4 padding up to pad256(M)) only
      // writes padding scale bytes; it computes nothing.
      Value tileStart = mul(rowTile, idx(kTileRows));
      auto branch = mlir::scf::IfOp::create(b, cmp(arith::CmpIPredicate::uge, tileStart, mIndex),
                                            /*withElseRegion=*/true);
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&branch.getThenRegion().front());
      emitPaddingOnlyUnit(unit);
      b.setInsertionPointToStart(&branch.getElseRegion().front());
      work();
    });
  }

  /// The scale bytes of one unit's blocks for rows in [M, pad256(M)).
  void emitPaddingOnlyUnit(Value unit) {
    const int blocks = tiling.channelsPerUnit / 32;
    ifThen(arith::AndIOp::create(b, rowInPadding, isGroupZero), [&] {
      Value pad = arith::ConstantIntOp::create(b, b.getI8Type(), kScalePadByte);
      for (int blk = 0; blk < blocks; ++blk)
        storeScale(add(mul(unit, idx(blocks)), idx(blk)), pad);
    });
  }

private:
  // --- small helpers -------------------------------------------------------
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value i32(int64_t v) { return arith::ConstantIntOp::create(b, b.getI32Type(), v); }
  Value cmp(arith::CmpIPredicate p, Value a, Value c) { return arith::CmpIOp::create(b, p, a, c); }
  Value add(Value a, Value c) { return arith::AddIOp::create(b, a, c); }
  Value mul(Value a, Value c) { return arith::MulIOp::create(b, a, c); }

  void ifThen(Value condition, const std::function<void()> &body) {
    auto op = mlir::scf::IfOp::create(b, condition, /*withElseRegion=*/false);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&op.getThenRegion().front());
    body();
  }

  /// Elements [offset, offset + size) of a 1-D vector. A vector.shuffle
  /// rather than extract_strided_slice: convert-gpu-to-rocdl lowers shuffles
  /// itself, so no separate vector-to-llvm pass has to run before the
  /// workgroup address space is mapped.
  Value slice(Value v, int64_t offset, int64_t size) {
    llvm::SmallVector<int64_t, 4> mask;
    for (int64_t i = 0; i < size; ++i)
      mask.push_back(offset + i);
    return vector::ShuffleOp::create(b, v, v, mask);
  }

  // --- operands ------------------------------------------------------------
  /// 8 consecutive bf16 of x's row `loadRow` starting at `channel`.
  Value loadX8(Value channel) {
    auto type = mlir::VectorType::get({8}, b.getBF16Type());
    return vector::LoadOp::create(b, type, x, mlir::ValueRange{loadRow, channel});
  }

  /// Every thread of the workgroup copies 16-byte pieces of R into LDS; the
  /// barrier comes before any wave may leave (waves past the last unit too).
  void emitStageRotation(Value tid) {
    const int64_t pieces = int64_t(spec.RS) * spec.RS / 8;
    const int64_t threads = tiling.workgroupSize();
    auto v8bf16 = mlir::VectorType::get({8}, b.getBF16Type());
    auto loop = mlir::scf::ForOp::create(b, tid, idx(pieces), idx(threads));
    {
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value flat = mul(loop.getInductionVar(), idx(8));
      Value in = arith::DivUIOp::create(b, flat, idx(spec.RS));
      Value out = arith::RemUIOp::create(b, flat, idx(spec.RS));
      Value piece = vector::LoadOp::create(b, v8bf16, r, mlir::ValueRange{in, out});
      vector::StoreOp::create(b, piece, lds, mlir::ValueRange{in, out});
    }
    mlir::gpu::BarrierOp::create(b);
  }

  /// A operand from R staged row-major in LDS, with two ds_read_b64_tr_b16
  /// (GFX950_SEMANTICS C7): lane t of a 16-lane group points at row
  /// in0 + t/4 (+4), columns out0 + 4(t%4)..+3, and receives column out0 + t
  /// of rows in0..in0+3 (in0+4..in0+7).
  Value transposedOperand(Value in0, Value out0) {
    auto v4bf16 = mlir::VectorType::get({4}, b.getBF16Type());
    Value t = arith::RemUIOp::create(b, lane, idx(kTileRows));
    Value rowInQuad = arith::DivUIOp::create(b, t, idx(4));
    Value column = add(out0, mul(arith::RemUIOp::create(b, t, idx(4)), idx(4)));
    Value low = mlir::amdgpu::TransposeLoadOp::create(
        b, v4bf16, lds, mlir::ValueRange{add(in0, rowInQuad), column});
    Value high = mlir::amdgpu::TransposeLoadOp::create(
        b, v4bf16, lds, mlir::ValueRange{add(add(in0, idx(4)), rowInQuad), column});
    return vector::ShuffleOp::create(b, low, high, llvm::ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  }

  /// Flips the sign bit of every bf16 element (exact negation).
  Value negateBf16(Value v) {
    auto v8i16 = mlir::VectorType::get({8}, b.getI16Type());
    Value bits = vector::BitCastOp::create(b, v8i16, v);
    auto signs = arith::ConstantOp::create(
        b, mlir::DenseElementsAttr::get(v8i16, llvm::APInt(16, 0x8000)));
    return vector::BitCastOp::create(b, v.getType(), arith::XOrIOp::create(b, bits, signs));
  }

  /// A operand of one MFMA for a learned rotation: R[in0 + t][out] for
  /// t = 0..7 (in0 and out are channel indices inside the rotation block), as
  /// vector<8xbf16>. out0 is the first output channel of the 16-channel tile
  /// (out = out0 + lane%16).
  Value rotationOperand(Value unit, Value in0, Value out, Value out0) {
    if (tiling.stagesRotationInLds)
      return transposedOperand(in0, out0);
    llvm::SmallVector<Value, 8> elements;
    for (int t = 0; t < 8; ++t) {
      Value in = add(in0, idx(t));
      llvm::SmallVector<Value, 3> indices;
      if (spec.rot == RotationKind::LearnedPerBlock)
        indices.push_back(unit);
      indices.append({in, out});
      elements.push_back(mlir::memref::LoadOp::create(b, r, indices));
    }
    return vector::FromElementsOp::create(b, mlir::VectorType::get({8}, b.getBF16Type()),
                                          elements);
  }

  /// Sylvester Hadamard entries, computed in registers: H[in][out] =
  /// (-1)^popcount(in & out) * bf16(1/sqrt(RS)) (numerics hadamardMatrixBf16).
  Value hadamardOperand(Value in0, Value out) {
    const uint16_t magnitude = f32ToBf16(hadamardNormF32(spec.RS));
    Value outI32 = arith::IndexCastOp::create(b, b.getI32Type(), out);
    Value in0I32 = arith::IndexCastOp::create(b, b.getI32Type(), in0);
    llvm::SmallVector<Value, 8> elements;
    for (int t = 0; t < 8; ++t) {
      Value common = arith::AndIOp::create(b, add(in0I32, i32(t)), outI32);
      Value parity = arith::AndIOp::create(b, mlir::math::CtPopOp::create(b, common), i32(1));
      Value sign = arith::ShLIOp::create(b, parity, i32(15));
      Value bits = arith::OrIOp::create(b, sign, i32(magnitude));
      Value half = arith::TruncIOp::create(b, b.getI16Type(), bits);
      elements.push_back(arith::BitcastOp::create(b, b.getBF16Type(), half));
    }
    return vector::FromElementsOp::create(b, mlir::VectorType::get({8}, b.getBF16Type()),
                                          elements);
  }

  // --- work units ----------------------------------------------------------
  /// One rotation block of 16 tokens: load the block's x once, then for each
  /// 32-channel output block run two MFMA chains and quantize.
  void emitRotatedUnit(Value unit) {
    const int rs = spec.RS;
    const int chunks = rs / kMfmaBf16ChunkK;
    Value blockBase = mul(unit, idx(rs));
    Value groupChannel = mul(group, idx(8)); // 8(l/16): this lane's first input channel
    // A gathered learned_per_block operand costs 8 loads; with every chunk of
    // a large block in flight at once that is >128 VGPRs. Those kernels walk
    // the chunks in a loop instead (same ascending order, one chunk's loads
    // live at a time) and reload x per chunk from the cache.
    const bool loopChunks = spec.rot == RotationKind::LearnedPerBlock && rs >= 128;
    llvm::SmallVector<Value, 8> xChunks;
    if (!loopChunks)
      for (int c = 0; c < chunks; ++c)
        xChunks.push_back(loadX8(add(blockBase, add(idx(c * 32), groupChannel))));
    Value tokenInTile = arith::RemUIOp::create(b, lane, idx(kTileRows));
    auto zero = arith::ConstantOp::create(
        b, mlir::DenseElementsAttr::get(mlir::VectorType::get({4}, b.getF32Type()), 0.0f));
    // Hadamard: in = 32c + (8g + t), out = 32o + (16 tile + l%16) split at bit
    // 5, so parity(in & out) = parity(c & o) ^ parity((8g+t) & (16 tile+l%16)).
    // Two operand vectors per lane (one per tile) and their negations serve
    // every (o, c): the chain only picks one at build time.
    Value hadamard[2][2];
    if (spec.rot == RotationKind::Hadamard)
      for (int tile = 0; tile < 2; ++tile) {
        hadamard[tile][0] = hadamardOperand(groupChannel, add(idx(tile * 16), tokenInTile));
        hadamard[tile][1] = negateBf16(hadamard[tile][0]);
      }
    // One output block: two MFMA chains over the input chunks, then quantize.
    // `outBlock` is a Value so that the same code serves the unrolled form
    // and the loop; `outBlockConst` is its value when known at build time.
    auto emitOutputBlock = [&](Value outBlock, std::optional<int> outBlockConst) {
      Value tiles[2];
      if (loopChunks) {
        emitChunkLoop(unit, blockBase, groupChannel, outBlock, tokenInTile, zero, tiles);
        Value scaleBlock = add(mul(unit, idx(rs / 32)), outBlock);
        emitQuantizeBlock(scaleBlock, tiles[0], tiles[1]);
        return;
      }
      for (int tile = 0; tile < 2; ++tile) {
        Value out0 = add(mul(outBlock, idx(32)), idx(tile * 16));
        Value out = add(out0, tokenInTile);
        Value acc = zero;
        for (int c = 0; c < chunks; ++c) {
          Value a;
          if (spec.rot != RotationKind::Hadamard)
            a = rotationOperand(unit, add(idx(c * 32), groupChannel), out, out0);
          else if (outBlockConst)
            a = hadamard[tile][__builtin_popcount(unsigned(c & *outBlockConst)) & 1];
          else
            a = mlir::arith::SelectOp::create(b, chunkSignFlipped(c, outBlock),
                                              hadamard[tile][1], hadamard[tile][0]);
          acc = mlir::amdgpu::MFMAOp::create(b, acc.getType(), 16, 16, 32, 1, a, xChunks[c], acc);
        }
        tiles[tile] = acc;
      }
      Value scaleBlock = add(mul(unit, idx(rs / 32)), outBlock);
      emitQuantizeBlock(scaleBlock, tiles[0], tiles[1]);
    };
    // Up to two output blocks are unrolled. Larger blocks loop, so that the
    // register allocator sees one block's accumulators and operands live at a
    // time instead of all of them (RS=256 unrolled needs ~94-150 VGPRs).
    if (rs / 32 <= 2) {
      for (int outBlock = 0; outBlock < rs / 32; ++outBlock)
        emitOutputBlock(idx(outBlock), outBlock);
      return;
    }
    auto loop = mlir::scf::ForOp::create(b, idx(0), idx(rs / 32), idx(1));
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    emitOutputBlock(loop.getInductionVar(), std::nullopt);
  }

  /// Both tiles' MFMA chains of one output block as an scf.for over the
  /// input chunks (ascending), accumulators carried as iter_args.
  void emitChunkLoop(Value unit, Value blockBase, Value groupChannel, Value outBlock,
                     Value tokenInTile, Value zero, Value (&tiles)[2]) {
    const int chunks = spec.RS / kMfmaBf16ChunkK;
    auto loop = mlir::scf::ForOp::create(b, idx(0), idx(chunks), idx(1),
                                         mlir::ValueRange{zero, zero});
    {
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value c = loop.getInductionVar();
      Value in0 = add(mul(c, idx(32)), groupChannel);
      Value xChunk = loadX8(add(blockBase, in0));
      llvm::SmallVector<Value, 2> next;
      for (int tile = 0; tile < 2; ++tile) {
        Value out0 = add(mul(outBlock, idx(32)), idx(tile * 16));
        Value a = rotationOperand(unit, in0, add(out0, tokenInTile), out0);
        Value acc = loop.getRegionIterArgs()[tile];
        next.push_back(
            mlir::amdgpu::MFMAOp::create(b, acc.getType(), 16, 16, 32, 1, a, xChunk, acc));
      }
      mlir::scf::YieldOp::create(b, next);
    }
    tiles[0] = loop.getResult(0);
    tiles[1] = loop.getResult(1);
  }

  /// parity(c & outBlock) as i1: whether the Hadamard chunk (c, outBlock)
  /// uses the negated operand.
  Value chunkSignFlipped(int c, Value outBlock) {
    Value ob = arith::IndexCastOp::create(b, b.getI32Type(), outBlock);
    Value common = arith::AndIOp::create(b, ob, i32(c));
    Value parity = arith::AndIOp::create(b, mlir::math::CtPopOp::create(b, common), i32(1));
    return cmp(arith::CmpIPredicate::ne, parity, i32(0));
  }

  /// No rotation: 8 scale blocks of 16 tokens; each lane loads the channels
  /// it would hold in the MFMA result layout, so quantization is shared.
  void emitPlainUnit(Value unit) {
    const int blocks = tiling.channelsPerUnit / 32;
    auto v4bf16 = mlir::VectorType::get({4}, b.getBF16Type());
    auto v4f32 = mlir::VectorType::get({4}, b.getF32Type());
    for (int blk = 0; blk < blocks; ++blk) {
      Value scaleBlock = add(mul(unit, idx(blocks)), idx(blk));
      Value base = add(mul(scaleBlock, idx(32)), mul(group, idx(4)));
      Value tiles[2];
      for (int tile = 0; tile < 2; ++tile) {
        Value raw = vector::LoadOp::create(b, v4bf16, x,
                                           mlir::ValueRange{loadRow, add(base, idx(tile * 16))});
        tiles[tile] = arith::ExtFOp::create(b, v4f32, raw);
      }
      emitQuantizeBlock(scaleBlock, tiles[0], tiles[1]);
    }
  }

  // --- quantization of one 32-channel block --------------------------------
  /// tile0/tile1: this lane's channels 4g..4g+3 and 16+4g..16+4g+3 of scale
  /// block `scaleBlock` for token `row`, as vector<4xf32>.
  void emitQuantizeBlock(Value scaleBlock, Value tile0, Value tile1) {
    auto v4f32 = mlir::VectorType::get({4}, b.getF32Type());
    if (spec.inter == Intermediate::Bf16) {
      auto v4bf16 = mlir::VectorType::get({4}, b.getBF16Type());
      Value rounded0 = arith::TruncFOp::create(b, v4bf16, tile0);
      Value rounded1 = arith::TruncFOp::create(b, v4bf16, tile1);
      tile0 = arith::ExtFOp::create(b, v4f32, rounded0);
      tile1 = arith::ExtFOp::create(b, v4f32, rounded1);
    }
    // amax: NaN-propagating maximum of |v| (numerics blockAmax).
    Value absMax = arith::MaximumFOp::create(b, mlir::math::AbsFOp::create(b, tile0),
                                             mlir::math::AbsFOp::create(b, tile1));
    Value amax = vector::ReductionOp::create(b, vector::CombiningKind::MAXIMUMF, absMax);
    for (int distance : {16, 32}) {
      auto shuffle = mlir::gpu::ShuffleOp::create(b, amax, distance, kLanes,
                                                  mlir::gpu::ShuffleMode::XOR);
      amax = arith::MaximumFOp::create(b, amax, shuffle.getShuffleResult());
    }
    Value scaleByte = emitScaleByte(b, spec.scale, spec.fmt, amax);
    // v_cvt_scalef32_* read the scale from bits [30:23] of an f32.
    Value scale = arith::BitcastOp::create(
        b, b.getF32Type(), arith::ShLIOp::create(b, scaleByte, i32(23)));

    auto packedType = mlir::VectorType::get({8}, b.getType<mlir::Float4E2M1FNType>());
    Value packed;
    Value halves[4] = {slice(tile0, 0, 2), slice(tile0, 2, 2), slice(tile1, 0, 2),
                       slice(tile1, 2, 2)};
    for (int byte = 0; byte < 4; ++byte)
      packed = mlir::amdgpu::PackedScaledTruncOp::create(b, packedType, halves[byte], scale,
                                                         uint32_t(byte), packed);
    Value bytes = vector::BitCastOp::create(
        b, mlir::VectorType::get({4}, b.getI8Type()), packed);

    ifThen(rowValid, [&] {
      // Codes of channels (4g..4g+3) are bytes 2g, 2g+1 of the block's 16;
      // those of (16+4g..) are bytes 8+2g, 8+2g+1.
      Value codeBase = add(mul(scaleBlock, idx(16)), mul(group, idx(2)));
      vector::StoreOp::create(b, slice(bytes, 0, 2), q, mlir::ValueRange{row, codeBase});
      vector::StoreOp::create(b, slice(bytes, 2, 2), q,
                              mlir::ValueRange{row, add(codeBase, idx(8))});
      ifThen(isGroupZero, [&] {
        storeScale(scaleBlock, arith::TruncIOp::create(b, b.getI8Type(), scaleByte));
      });
    });
    if (rowInPadding) {
      ifThen(arith::AndIOp::create(b, rowInPadding, isGroupZero), [&] {
        storeScale(scaleBlock, arith::ConstantIntOp::create(b, b.getI8Type(), kScalePadByte));
      });
    }
  }

  void storeScale(Value scaleBlock, Value byte) {
    if (spec.layout == ScaleLayout::Plain) {
      mlir::memref::StoreOp::create(b, byte, s, mlir::ValueRange{row, scaleBlock});
      return;
    }
    // AITER mx_scale_shuffle_idx (numerics a4w4ScaleIndex), then back to the
    // 2-D shape of the argument.
    const int64_t paddedCols = types.s.getDimSize(1);
    Value r32 = arith::DivUIOp::create(b, row, idx(32));
    Value index = mul(mul(r32, idx(paddedCols)), idx(32));
    index = add(index, mul(arith::DivUIOp::create(b, scaleBlock, idx(8)), idx(256)));
    index = add(index, mul(arith::RemUIOp::create(b, scaleBlock, idx(4)), idx(64)));
    index = add(index, mul(arith::RemUIOp::create(b, row, idx(16)), idx(4)));
    index = add(index, mul(arith::DivUIOp::create(b, arith::RemUIOp::create(b, scaleBlock, idx(8)),
                                                  idx(4)),
                           idx(2)));
    index = add(index, arith::DivUIOp::create(b, arith::RemUIOp::create(b, row, idx(32)), idx(16)));
    Value flatRow = arith::DivUIOp::create(b, index, idx(paddedCols));
    Value flatCol = arith::RemUIOp::create(b, index, idx(paddedCols));
    mlir::memref::StoreOp::create(b, byte, s, mlir::ValueRange{flatRow, flatCol});
  }

  mlir::ImplicitLocOpBuilder &b;
  const KernelSpec &spec;
  const KernelTiling &tiling;
  const KernelArgTypes &types;
  Value x, r, q, s, m, lds;
  Value lane, group, row, loadRow, rowValid, rowInPadding, isGroupZero, rowTile, mIndex;
};

} // namespace

Status buildRotateQuantKernel(mlir::gpu::GPUModuleOp module, const KernelSpec &spec,
                              llvm::StringRef kernelName) {
  if (Status supported = checkRotateQuantSupported(spec); !supported.ok())
    return supported;
  mlir::MLIRContext *ctx = module.getContext();
  ctx->loadDialect<mlir::amdgpu::AMDGPUDialect, mlir::arith::ArithDialect,
                   mlir::gpu::GPUDialect, mlir::math::MathDialect, mlir::memref::MemRefDialect,
                   mlir::scf::SCFDialect, mlir::vector::VectorDialect>();
  const KernelTiling tiling = chooseRotateQuantTiling(spec);
  const KernelArgTypes types = argTypesFor(ctx, spec);

  llvm::SmallVector<Type, 5> argTypes{types.x};
  if (types.hasRotationMatrix)
    argTypes.push_back(types.r);
  argTypes.append({types.q, types.s, mlir::IntegerType::get(ctx, 32)});

  mlir::ImplicitLocOpBuilder b(mlir::NameLoc::get(mlir::StringAttr::get(ctx, kernelName)), ctx);
  b.setInsertionPointToEnd(module.getBody());
  llvm::SmallVector<Type, 1> workgroupBuffers;
  if (tiling.stagesRotationInLds)
    workgroupBuffers.push_back(mlir::MemRefType::get(
        {spec.RS, spec.RS}, b.getBF16Type(), mlir::AffineMap(),
        mlir::gpu::AddressSpaceAttr::get(ctx, mlir::gpu::AddressSpace::Workgroup)));
  auto func = mlir::gpu::GPUFuncOp::create(b, kernelName, b.getFunctionType(argTypes, {}),
                                           workgroupBuffers);
  func->setAttr(mlir::gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({tiling.workgroupSize(), 1, 1}));
  b.setInsertionPointToStart(&func.getBody().front());
  RotateQuantEmitter(b, spec, tiling, types, func).emitBody();
  mlir::gpu::ReturnOp::create(b);
  return Status::success();
}

} // namespace mxf
