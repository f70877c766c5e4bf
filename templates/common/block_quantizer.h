//===- block_quantizer.h - One 32-element MX block: scale and fp4 codes -*- C++ -*-===//
//
// The quantization every template ends in, for one 32-channel scale block
// held in the MFMA result layout (lane t, t+16, t+32, t+48 hold one token's
// 32 values, 8 each as two vector<4xf32>): the optional bf16 rounding of
// the intermediate, the NaN-propagating block maximum (in-lane, then xor 16
// and xor 32 across lanes), the E8M0 scale by the spec's rule
// (scale_rule_ir.h, the IR twin of numerics/), and the codes through the
// hardware's scaled converts: v_cvt_scalef32_pk_fp4_f32 for fp4,
// v_cvt_scalef32_2xpk16_{fp6,bf6}_f32 for fp6, v_cvt_scalef32_pk_{fp8,bf8}_f32
// for fp8. Storing them is CodeWriter's.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_BLOCK_QUANTIZER_H
#define MXFORGE_TEMPLATES_COMMON_BLOCK_QUANTIZER_H

#include "templates/common/ir_builder.h"
#include "templates/common/scale_rule_ir.h"

#include "spec/kernel_spec.h"

#include "numerics/formats.h"
#include "numerics/stochastic.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace mxf {

/// This lane's 8 codes of the block in two pieces: channels 4g..4g+3, then
/// 16+4g..16+4g+3 (g = lane / 16), each piece 4 codes packed as numerics
/// packs them (fp4: 2 bytes, two codes per byte; fp6: 3 bytes, code i at
/// bits 6i..6i+5), so the pieces land unchanged at their offsets in the
/// block's packed bytes (CodeWriter).
struct QuantizedBlock {
  mlir::Value bytes;     // vector<2 * pieceBytes x i8>: piece 0, then piece 1
  mlir::Value scaleByte; // i32: the block's E8M0 byte (the same in all four lanes)
};

/// round=sr: the pair index (i32) of each piece's first two elements, in
/// numerics' numbering (element row * K + channel; pair = element / 2). A
/// piece's 4 elements are its pair and the next.
struct StochasticPairs {
  mlir::Value piece0, piece1;
};

/// Bytes of one lane's piece (4 codes) in `format`'s packing.
inline int64_t codePieceBytes(ElemFormat format) { return formatInfo(format).bits * 4 / 8; }

class BlockQuantizer : private IrBuilder {
public:
  BlockQuantizer(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec) : IrBuilder(b), spec(spec) {}

  /// round=sr: the seed operand's value (i32, the same in every lane).
  void setStochasticSeed(Value seed) { srSeed = seed; }

  /// tile0/tile1: this lane's channels 4g..4g+3 and 16+4g..16+4g+3 of the
  /// block (g = lane / 16), as vector<4xf32>. `pairs`: round=sr only.
  QuantizedBlock quantize(Value tile0, Value tile1, StochasticPairs pairs = {}) {
    constexpr int kLanes = 64;
    auto v4f32 = mlir::VectorType::get({4}, b.getF32Type());
    if (spec.inter == Intermediate::Bf16) {
      auto v4bf16 = mlir::VectorType::get({4}, b.getBF16Type());
      Value rounded0 = mlir::arith::TruncFOp::create(b, v4bf16, tile0);
      Value rounded1 = mlir::arith::TruncFOp::create(b, v4bf16, tile1);
      tile0 = mlir::arith::ExtFOp::create(b, v4f32, rounded0);
      tile1 = mlir::arith::ExtFOp::create(b, v4f32, rounded1);
    }
    // amax: NaN-propagating maximum of |v| (numerics blockAmax).
    Value absMax = mlir::arith::MaximumFOp::create(b, mlir::math::AbsFOp::create(b, tile0),
                                                   mlir::math::AbsFOp::create(b, tile1));
    Value amax =
        mlir::vector::ReductionOp::create(b, mlir::vector::CombiningKind::MAXIMUMF, absMax);
    for (int distance : {16, 32}) {
      auto shuffle = mlir::gpu::ShuffleOp::create(b, amax, distance, kLanes,
                                                  mlir::gpu::ShuffleMode::XOR);
      amax = mlir::arith::MaximumFOp::create(b, amax, shuffle.getShuffleResult());
    }
    Value scaleByte = emitScaleByte(b, spec.scale, spec.fmt, amax);
    if (spec.scale == ScaleRule::Even126) {
      // numerics elementToEncode: seed 003's recipe signs with torch.sign,
      // so -0.0 is encoded as +0 (the converts would keep its sign).
      tile0 = positiveZeros(tile0);
      tile1 = positiveZeros(tile1);
    }
    // v_cvt_scalef32_* read the scale from bits [30:23] of an f32.
    Value scale = mlir::arith::BitcastOp::create(
        b, b.getF32Type(), mlir::arith::ShLIOp::create(b, scaleByte, i32(23)));

    if (spec.round == Rounding::Sr) {
      const int bits = formatInfo(spec.fmt).bits;
      return {bits == 8   ? packFp8Stochastic(tile0, tile1, scale, pairs)
              : bits == 6 ? packFp6Stochastic(tile0, tile1, scale, pairs)
                          : packFp4Stochastic(tile0, tile1, scale, pairs),
              scaleByte};
    }
    if (spec.round == Rounding::Rna) // fp6_e2m3 only (the spec's rule)
      return {packE2M3HalfAway(tile0, tile1, scaleByte), scaleByte};
    if (formatInfo(spec.fmt).bits == 6)
      return {packFp6(tile0, tile1, scale), scaleByte};
    if (formatInfo(spec.fmt).bits == 8)
      return {packFp8(tile0, tile1, scale), scaleByte};
    auto packedType = mlir::VectorType::get({8}, b.getType<mlir::Float4E2M1FNType>());
    Value packed;
    Value halves[4] = {slice(tile0, 0, 2), slice(tile0, 2, 2), slice(tile1, 0, 2),
                       slice(tile1, 2, 2)};
    for (int byte = 0; byte < 4; ++byte)
      packed = mlir::amdgpu::PackedScaledTruncOp::create(b, packedType, halves[byte], scale,
                                                         uint32_t(byte), packed);
    Value bytes = mlir::vector::BitCastOp::create(
        b, mlir::VectorType::get({4}, b.getI8Type()), packed);
    return {bytes, scaleByte};
  }

private:
  /// `values` (vector<4xf32>) with -0.0 replaced by +0.0, on the bits.
  Value positiveZeros(Value values) {
    auto v4i32 = mlir::VectorType::get({4}, b.getI32Type());
    Value bits = mlir::vector::BitCastOp::create(b, v4i32, values);
    auto splat = [&](int32_t v) {
      return mlir::arith::ConstantOp::create(b, mlir::DenseElementsAttr::get(v4i32, v));
    };
    Value negativeZero = mlir::arith::CmpIOp::create(b, mlir::arith::CmpIPredicate::eq, bits,
                                                     splat(int32_t(0x80000000u)));
    Value fixed = mlir::arith::SelectOp::create(b, negativeZero, splat(0), bits);
    return mlir::vector::BitCastOp::create(b, values.getType(), fixed);
  }

  /// fp6 (E2M3 or E3M2) with v_cvt_scalef32_2xpk16_{fp6,bf6}_f32, which
  /// packs item 2p from src0[p] and item 2p+1 from src1[p] (§C4) into 192
  /// bits. Only items 0..7 are this lane's (src0 = channels 0, 2 of each
  /// piece, src1 = 1, 3); the other 24 source elements are poison, so they
  /// need no registers of their own, and only the first 48 bits of the
  /// result are kept: piece 0 in bytes 0..2 (items 0..3), piece 1 in bytes
  /// 3..5.
  Value packFp6(Value tile0, Value tile1, Value scale) {
    auto v16f32 = mlir::VectorType::get({16}, b.getF32Type());
    Value sources[2] = {mlir::LLVM::PoisonOp::create(b, v16f32),
                        mlir::LLVM::PoisonOp::create(b, v16f32)};
    for (int item = 0; item < 8; ++item) {
      Value tile = item < 4 ? tile0 : tile1;
      Value value = mlir::vector::ExtractOp::create(b, tile, int64_t(item % 4));
      sources[item % 2] =
          mlir::vector::InsertOp::create(b, value, sources[item % 2], int64_t(item / 2));
    }
    auto v6i32 = mlir::VectorType::get({6}, b.getI32Type());
    Value packed =
        spec.fmt == ElemFormat::E2M3
            ? Value(mlir::ROCDL::CvtScaleF322xPk16Fp6F32Op::create(b, v6i32, sources[0],
                                                                    sources[1], scale))
            : Value(mlir::ROCDL::CvtScaleF322xPk16Bf6F32Op::create(b, v6i32, sources[0],
                                                                    sources[1], scale));
    Value firstTwo = slice(packed, 0, 2);
    Value bytes = mlir::vector::BitCastOp::create(b, mlir::VectorType::get({8}, b.getI8Type()),
                                                  firstTwo);
    return slice(bytes, 0, 6);
  }

  /// round=rna (AITER A6W6's element rounding, numerics encodeE2M3HalfAway)
  /// on the vector ALUs: no convert rounds half away from zero. Per element
  /// s = v * 2^(127 - byte) (one f32 multiply, as ldexp rounds it: the
  /// factor is a power of two, subnormal for bytes 254 and 255), a =
  /// min(|s|, 7.5), the binade's level spacing q (8, 4 or 2) and code
  /// offset (0, 8, 16), magnitude = trunc(a*q + 0.5) + offset (a*q is exact
  /// and a*q + 0.5 >= 0.5, so truncation is floor and a fused multiply-add
  /// would round the same), the sign bit when s < 0, code 0 for NaN. The 8
  /// codes are packed as packFp6 leaves them: piece p = c0 | c1<<6 | c2<<12
  /// | c3<<18, bytes 0..2 and 3..5.
  Value packE2M3HalfAway(Value tile0, Value tile1, Value scaleByte) {
    using namespace mlir::arith;
    auto f32 = [&](float v) {
      return Value(ConstantFloatOp::create(b, b.getF32Type(), llvm::APFloat(v)));
    };
    // 2^(127 - byte) as f32 bits: normal up to byte 253, then 0x00400000
    // (byte 254) and 0x00200000 (byte 255).
    Value normalBits = ShLIOp::create(b, SubIOp::create(b, i32(254), scaleByte), i32(23));
    Value subnormalBits = ShRUIOp::create(
        b, i32(0x00400000),
        MaxSIOp::create(b, SubIOp::create(b, scaleByte, i32(254)), i32(0)));
    Value factor = BitcastOp::create(
        b, b.getF32Type(),
        SelectOp::create(b, cmp(CmpIPredicate::ult, scaleByte, i32(254)), normalBits,
                         subnormalBits));
    auto code = [&](Value v) {
      Value s = MulFOp::create(b, v, factor);
      Value magnitude = mlir::math::AbsFOp::create(b, s);
      Value a = SelectOp::create(b, CmpFOp::create(b, CmpFPredicate::OLT, magnitude, f32(7.5f)),
                                 magnitude, f32(7.5f));
      Value belowTwo = CmpFOp::create(b, CmpFPredicate::OLT, a, f32(2.0f));
      Value belowFour = CmpFOp::create(b, CmpFPredicate::OLT, a, f32(4.0f));
      Value q = SelectOp::create(b, belowTwo, f32(8.0f),
                                 SelectOp::create(b, belowFour, f32(4.0f), f32(2.0f)));
      Value offset =
          SelectOp::create(b, belowTwo, i32(0), SelectOp::create(b, belowFour, i32(8), i32(16)));
      Value biased = AddFOp::create(b, MulFOp::create(b, a, q), f32(0.5f));
      Value level = AddIOp::create(b, FPToSIOp::create(b, b.getI32Type(), biased), offset);
      Value negative = CmpFOp::create(b, CmpFPredicate::OLT, s, f32(0.0f));
      Value signed_ = OrIOp::create(b, level, SelectOp::create(b, negative, i32(0x20), i32(0)));
      Value isNaN = CmpFOp::create(b, CmpFPredicate::UNO, s, s);
      return Value(SelectOp::create(b, isNaN, i32(0), signed_));
    };
    Value pieces[2];
    Value tiles[2] = {tile0, tile1};
    for (int piece = 0; piece < 2; ++piece) {
      Value word = i32(0);
      for (int i = 0; i < 4; ++i) {
        Value c = code(mlir::vector::ExtractOp::create(b, tiles[piece], int64_t(i)));
        word = OrIOp::create(b, word, i ? Value(ShLIOp::create(b, c, i32(6 * i))) : c);
      }
      pieces[piece] = word;
    }
    // low = piece0 | piece1 << 24; high = piece1 >> 8.
    Value low = OrIOp::create(b, pieces[0], ShLIOp::create(b, pieces[1], i32(24)));
    Value high = ShRUIOp::create(b, pieces[1], i32(8));
    auto v2i32 = mlir::VectorType::get({2}, b.getI32Type());
    Value words = mlir::vector::FromElementsOp::create(b, v2i32, mlir::ValueRange{low, high});
    Value bytes =
        mlir::vector::BitCastOp::create(b, mlir::VectorType::get({8}, b.getI8Type()), words);
    return slice(bytes, 0, 6);
  }

  /// fp8 (E4M3 or E5M2) with v_cvt_scalef32_pk_{fp8,bf8}_f32, two values
  /// into one 16-bit half of a word per instruction: a piece is one word
  /// (4 codes, a byte each, in channel order), the lane's two pieces 8 bytes.
  Value packFp8(Value tile0, Value tile1, Value scale) {
    mlir::Type element = spec.fmt == ElemFormat::E4M3
                             ? mlir::Type(b.getType<mlir::Float8E4M3FNType>())
                             : mlir::Type(b.getType<mlir::Float8E5M2Type>());
    auto packedType = mlir::VectorType::get({4}, element);
    auto v4i8 = mlir::VectorType::get({4}, b.getI8Type());
    Value words[2];
    Value tiles[2] = {tile0, tile1};
    for (int piece = 0; piece < 2; ++piece) {
      Value packed;
      for (int half = 0; half < 2; ++half)
        packed = mlir::amdgpu::PackedScaledTruncOp::create(
            b, packedType, slice(tiles[piece], 2 * half, 2), scale, uint32_t(half), packed);
      words[piece] = mlir::vector::BitCastOp::create(b, v4i8, packed);
    }
    return mlir::vector::ShuffleOp::create(b, words[0], words[1],
                                           llvm::ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  }

  // --- stochastic rounding (numerics/stochastic.h) -------------------------
  Value mix(Value h) { // fmix32
    auto xorShift = [&](Value v, int64_t shift) {
      return mlir::arith::XOrIOp::create(b, v, mlir::arith::ShRUIOp::create(b, v, i32(shift)));
    };
    h = xorShift(h, 16);
    h = mlir::arith::MulIOp::create(b, h, i32(int32_t(0x85EBCA6Bu)));
    h = xorShift(h, 13);
    h = mlir::arith::MulIOp::create(b, h, i32(int32_t(0xC2B2AE35u)));
    return xorShift(h, 16);
  }

  /// srRandomForElement's base word of pair `pair` (< 2^32, so the pair's
  /// high word is 0 and its mix a build-time constant).
  Value pairWord(Value pair) {
    const int32_t high = int32_t(fmix32(0x9E3779B9u));
    return mix(mlir::arith::XOrIOp::create(b, srSeed,
                                           mix(mlir::arith::XOrIOp::create(b, pair, i32(high)))));
  }

  /// v_prng_b32: (s << 1) ^ (s[31] ? 197 : 0), the odd element's word.
  Value prngNext(Value s) {
    Value top = cmp(mlir::arith::CmpIPredicate::slt, s, i32(0));
    return mlir::arith::XOrIOp::create(b, mlir::arith::ShLIOp::create(b, s, i32(1)),
                                       mlir::arith::SelectOp::create(b, top, i32(197), i32(0)));
  }

  /// One i32 of 4 code bytes as vector<4xi8>.
  Value wordBytes(Value word) {
    auto v1i32 = mlir::VectorType::get({1}, b.getI32Type());
    return mlir::vector::BitCastOp::create(
        b, mlir::VectorType::get({4}, b.getI8Type()),
        mlir::vector::FromElementsOp::create(b, v1i32, mlir::ValueRange{word}));
  }

  /// `code` (an i32 whose byte 0 an SR convert wrote) as byte `index` of a
  /// word. LLVM 22 does not tie the SR converts' old-value operand to their
  /// destination (the register it picks may hold anything in the other
  /// bytes), so each convert writes byte 0 of its own register and the
  /// bytes are assembled here instead of chained through `oldVdst`.
  Value placeByte(Value word, Value code, int index) {
    Value byte = mlir::arith::AndIOp::create(b, code, i32(0xFF));
    if (index)
      byte = mlir::arith::ShLIOp::create(b, byte, i32(8 * index));
    return mlir::arith::OrIOp::create(b, word, byte);
  }

  /// fp4 with v_cvt_scalef32_sr_pk_fp4_f32: byte 2p + j of the lane's word is
  /// pair j of piece p; the instruction rounds the pair's even element with
  /// the given word and the odd one with v_prng_b32 of it, as numerics does.
  Value packFp4Stochastic(Value tile0, Value tile1, Value scale, StochasticPairs pairs) {
    Value word = i32(0);
    Value tiles[2] = {tile0, tile1}, first[2] = {pairs.piece0, pairs.piece1};
    for (int piece = 0; piece < 2; ++piece)
      for (int j = 0; j < 2; ++j) {
        Value pair = mlir::arith::AddIOp::create(b, first[piece], i32(j));
        Value code = mlir::ROCDL::CvtScaleF32SrPkFp4F32Op::create(
            b, b.getI32Type(), i32(0), slice(tiles[piece], 2 * j, 2), pairWord(pair), scale,
            b.getI32IntegerAttr(0));
        word = placeByte(word, code, 2 * piece + j);
      }
    return wordBytes(word);
  }

  /// fp6 with v_cvt_scalef32_sr_pk32_{fp6,bf6}_f32, one pair per
  /// instruction. The convert rounds item i with its seed advanced i times by
  /// v_prng_b32, so items 0 and 1 get numerics' words of a pair (the pair's
  /// word, then v_prng_b32 of it) and item 2 would not get the next pair's:
  /// each of the lane's 4 pairs takes its own convert with its own word, its
  /// codes in bits 0..11 of the result (the other 30 sources are poison and
  /// their items are dropped). The 48 bits of the lane's 8 codes are then
  /// pair p at bits 12p..12p+11: bytes 0..2 piece 0, 3..5 piece 1, as
  /// packFp6 leaves them.
  Value packFp6Stochastic(Value tile0, Value tile1, Value scale, StochasticPairs pairs) {
    auto v32f32 = mlir::VectorType::get({32}, b.getF32Type());
    auto v6i32 = mlir::VectorType::get({6}, b.getI32Type());
    Value tiles[2] = {tile0, tile1}, first[2] = {pairs.piece0, pairs.piece1};
    Value twelveBits[4];
    for (int piece = 0; piece < 2; ++piece)
      for (int j = 0; j < 2; ++j) {
        Value source = mlir::LLVM::PoisonOp::create(b, v32f32);
        for (int item = 0; item < 2; ++item)
          source = mlir::vector::InsertOp::create(
              b, mlir::vector::ExtractOp::create(b, tiles[piece], int64_t(2 * j + item)), source,
              int64_t(item));
        Value word = pairWord(mlir::arith::AddIOp::create(b, first[piece], i32(j)));
        Value packed =
            spec.fmt == ElemFormat::E2M3
                ? Value(mlir::ROCDL::CvtScaleF32SrPk32Fp6F32Op::create(b, v6i32, source, word,
                                                                       scale))
                : Value(mlir::ROCDL::CvtScaleF32SrPk32Bf6F32Op::create(b, v6i32, source, word,
                                                                       scale));
        twelveBits[2 * piece + j] = mlir::arith::AndIOp::create(
            b, mlir::vector::ExtractOp::create(b, packed, int64_t(0)), i32(0xFFF));
      }
    auto orShifted = [&](Value into, Value bits, int64_t shift) {
      Value moved = shift >= 0 ? Value(mlir::arith::ShLIOp::create(b, bits, i32(int32_t(shift))))
                               : Value(mlir::arith::ShRUIOp::create(b, bits, i32(int32_t(-shift))));
      return Value(mlir::arith::OrIOp::create(b, into, moved));
    };
    // low = p0 | p1 << 12 | p2 << 24 (its low 8 bits); high = p2 >> 8 | p3 << 4.
    Value low = orShifted(orShifted(twelveBits[0], twelveBits[1], 12), twelveBits[2], 24);
    Value high = orShifted(orShifted(i32(0), twelveBits[2], -8), twelveBits[3], 4);
    auto v2i32 = mlir::VectorType::get({2}, b.getI32Type());
    Value words = mlir::vector::FromElementsOp::create(b, v2i32, mlir::ValueRange{low, high});
    Value bytes =
        mlir::vector::BitCastOp::create(b, mlir::VectorType::get({8}, b.getI8Type()), words);
    return slice(bytes, 0, 6);
  }

  /// fp8 with v_cvt_scalef32_sr_{fp8,bf8}_f32, one element per instruction,
  /// placed at byte e of its piece's word; odd elements take v_prng_b32 of
  /// their pair's word.
  Value packFp8Stochastic(Value tile0, Value tile1, Value scale, StochasticPairs pairs) {
    Value tiles[2] = {tile0, tile1}, first[2] = {pairs.piece0, pairs.piece1}, bytes[2];
    for (int piece = 0; piece < 2; ++piece) {
      Value word = i32(0);
      for (int e = 0; e < 4; ++e) {
        Value base = pairWord(mlir::arith::AddIOp::create(b, first[piece], i32(e / 2)));
        Value random = e % 2 ? prngNext(base) : base;
        Value element = mlir::vector::ExtractOp::create(b, tiles[piece], int64_t(e));
        auto byteZero = b.getI32IntegerAttr(0);
        Value code = spec.fmt == ElemFormat::E4M3
                         ? Value(mlir::ROCDL::CvtScaleF32SrFp8F32Op::create(
                               b, b.getI32Type(), i32(0), element, random, scale, byteZero))
                         : Value(mlir::ROCDL::CvtScaleF32SrBf8F32Op::create(
                               b, b.getI32Type(), i32(0), element, random, scale, byteZero));
        word = placeByte(word, code, e);
      }
      bytes[piece] = wordBytes(word);
    }
    return mlir::vector::ShuffleOp::create(b, bytes[0], bytes[1],
                                           llvm::ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  }

  const KernelSpec &spec;
  Value srSeed; // round=sr
};

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_BLOCK_QUANTIZER_H
