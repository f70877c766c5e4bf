//===- cvt_scaled.cpp - v_cvt_scalef32_* and v_prng_b32 -------------------===//
//
// The scaled conversions of GFX950_SEMANTICS.md §C1-§C5 (fp4, fp8, and the
// 32-element fp6/bf6 block forms of §C4), through numerics' encodeElemRne /
// encodeElemSr / dequantElem, so that the emulator and the reference share one
// definition. The scale is the E8M0 byte in bits [30:23] of the scale source
// (sign and mantissa ignored). Byte/word selection is the VOP3 OPSEL field;
// writes of one byte or half keep the rest of the destination
// (read-modify-write).
//
//===----------------------------------------------------------------------===//

#include "emulator/opcode_table.h"
#include "emulator/valu_common.h"

#include "numerics/formats.h"
#include "numerics/stochastic.h"

#include <array>
#include <initializer_list>
#include <string>

namespace mxf::emu {

namespace {

using S = Status;

inline uint8_t scaleByte(uint32_t bits) { return uint8_t((bits >> 23) & 0xff); }

/// Float value of a 16-bit source half (bf16 or f16).
template <bool Bf16> float halfValue(uint16_t h) {
  if (Bf16)
    return bf16ToF32(h);
  _Float16 x;
  std::memcpy(&x, &h, 2);
  return float(x);
}
uint16_t toHalf(float v) {
  const _Float16 x = _Float16(v);
  uint16_t h;
  std::memcpy(&h, &x, 2);
  return h;
}

/// Writes `value` into byte (Width 8) or half (16) `index` of the lanes of
/// the destination, keeping the other bits.
void writePart(Wave &w, const Instruction &in, const Lanes32 &value, unsigned index,
               unsigned width) {
  uint32_t *d = w.lanes(in.dst());
  const uint32_t mask = ((width == 8 ? 0xffu : 0xffffu) << (width * index));
  const uint64_t exec = w.exec();
  for (unsigned l = 0; l < kWaveSize; ++l)
    if (laneActive(exec, l))
      d[l] = (d[l] & ~mask) | ((value[l] << (width * index)) & mask);
}

/// v_cvt_scalef32_pk_{fp4,fp8,bf8}_f32 vdst, src0, src1, scale.
template <ElemFormat Fmt> S cvtPkFromF32(Wave &w, const Instruction &in) {
  Lanes32 x0, x1, sc, v;
  valuSource(w, in, 0, ValueType::F32, x0);
  valuSource(w, in, 1, ValueType::F32, x1);
  valuSource(w, in, 2, ValueType::F32, sc);
  const bool fp4 = Fmt == ElemFormat::E2M1;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const uint8_t b = scaleByte(sc[l]);
    const uint32_t lo = encodeElemRne(Fmt, asFloat(x0[l]), b);
    const uint32_t hi = encodeElemRne(Fmt, asFloat(x1[l]), b);
    v[l] = fp4 ? (hi << 4) | lo : (hi << 8) | lo;
  }
  if (fp4)
    writePart(w, in, v, (in.mods.opsel >> 2) & 3, 8); // byte = OPSEL[3:2]
  else
    writePart(w, in, v, (in.mods.opsel >> 3) & 1, 16); // word = OPSEL[3]
  return S::success();
}

/// v_cvt_scalef32_pk_fp4_{f16,bf16} vdst, src0 (two halves), scale.
template <bool Bf16> S cvtPkFp4From16(Wave &w, const Instruction &in) {
  Lanes32 x, sc, v;
  valuSource(w, in, 0, ValueType::Int, x);
  valuSource(w, in, 1, ValueType::F32, sc);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const uint8_t b = scaleByte(sc[l]);
    const uint32_t lo = encodeElemRne(ElemFormat::E2M1, halfValue<Bf16>(uint16_t(x[l])), b);
    const uint32_t hi = encodeElemRne(ElemFormat::E2M1, halfValue<Bf16>(uint16_t(x[l] >> 16)), b);
    v[l] = (hi << 4) | lo;
  }
  writePart(w, in, v, (in.mods.opsel >> 2) & 3, 8);
  return S::success();
}

/// v_cvt_scalef32_sr_pk_fp4_f32 vdst, src0[0:1], seed, scale (§C5):
/// element 0 rounds with r = seed, element 1 with r = v_prng_b32(seed).
S cvtSrPkFp4F32(Wave &w, const Instruction &in) {
  Lanes64 x;
  Lanes32 seed, sc, v;
  readLanes64(w, in.src(0), x);
  valuSource(w, in, 1, ValueType::Int, seed);
  valuSource(w, in, 2, ValueType::F32, sc);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const uint8_t b = scaleByte(sc[l]);
    const uint32_t x0 = f32Mods(uint32_t(x[l]), in.mods, 0);
    const uint32_t x1 = f32Mods(uint32_t(x[l] >> 32), in.mods, 0);
    const uint32_t lo = encodeElemSr(ElemFormat::E2M1, asFloat(x0), b, seed[l]);
    const uint32_t hi = encodeElemSr(ElemFormat::E2M1, asFloat(x1), b, prngNext(seed[l]));
    v[l] = (hi << 4) | lo;
  }
  writePart(w, in, v, (in.mods.opsel >> 2) & 3, 8);
  return S::success();
}

/// v_cvt_scalef32_sr_{fp8,bf8}_f32 vdst, src0, seed, scale: one byte.
template <ElemFormat Fmt> S cvtSrF8F32(Wave &w, const Instruction &in) {
  Lanes32 x, seed, sc, v;
  valuSource(w, in, 0, ValueType::F32, x);
  valuSource(w, in, 1, ValueType::Int, seed);
  valuSource(w, in, 2, ValueType::F32, sc);
  for (unsigned l = 0; l < kWaveSize; ++l)
    v[l] = encodeElemSr(Fmt, asFloat(x[l]), scaleByte(sc[l]), seed[l]);
  writePart(w, in, v, (in.mods.opsel >> 2) & 3, 8);
  return S::success();
}

/// v_cvt_scalef32_pk_f32_fp4 vdst[0:1], src0, scale: byte OPSEL[1:0].
S cvtPkF32Fp4(Wave &w, const Instruction &in) {
  Lanes32 x, sc, lo, hi;
  valuSource(w, in, 0, ValueType::Int, x);
  valuSource(w, in, 1, ValueType::F32, sc);
  const unsigned byte = in.mods.opsel & 3;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const uint8_t codes = uint8_t(x[l] >> (8 * byte)), b = scaleByte(sc[l]);
    lo[l] = asBits(dequantElem(ElemFormat::E2M1, codes & 0xf, b));
    hi[l] = asBits(dequantElem(ElemFormat::E2M1, codes >> 4, b));
  }
  writeLanes32(w, in.dst(), lo, w.exec(), 0);
  writeLanes32(w, in.dst(), hi, w.exec(), 1);
  return S::success();
}

/// v_cvt_scalef32_pk_{f16,bf16}_fp4 vdst, src0, scale: two 16-bit results.
template <bool Bf16> S cvtPk16Fp4(Wave &w, const Instruction &in) {
  Lanes32 x, sc, d;
  valuSource(w, in, 0, ValueType::Int, x);
  valuSource(w, in, 1, ValueType::F32, sc);
  const unsigned byte = in.mods.opsel & 3;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const uint8_t codes = uint8_t(x[l] >> (8 * byte)), b = scaleByte(sc[l]);
    const float lo = dequantElem(ElemFormat::E2M1, codes & 0xf, b);
    const float hi = dequantElem(ElemFormat::E2M1, codes >> 4, b);
    d[l] = Bf16 ? uint32_t(f32ToBf16(lo)) | (uint32_t(f32ToBf16(hi)) << 16)
                : uint32_t(toHalf(lo)) | (uint32_t(toHalf(hi)) << 16);
  }
  writeLanes32(w, in.dst(), d, w.exec());
  return S::success();
}

/// v_cvt_scalef32_pk_f32_{fp8,bf8} vdst[0:1], src0, scale: word OPSEL[0].
template <ElemFormat Fmt> S cvtPkF32F8(Wave &w, const Instruction &in) {
  Lanes32 x, sc, lo, hi;
  valuSource(w, in, 0, ValueType::Int, x);
  valuSource(w, in, 1, ValueType::F32, sc);
  const unsigned word = in.mods.opsel & 1;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const uint16_t codes = uint16_t(x[l] >> (16 * word));
    const uint8_t b = scaleByte(sc[l]);
    lo[l] = asBits(dequantElem(Fmt, uint8_t(codes), b));
    hi[l] = asBits(dequantElem(Fmt, uint8_t(codes >> 8), b));
  }
  writeLanes32(w, in.dst(), lo, w.exec(), 0);
  writeLanes32(w, in.dst(), hi, w.exec(), 1);
  return S::success();
}

/// v_cvt_scalef32_pk_{bf16,f16}_{fp8,bf8} vdst, src0, scale: the two 8-bit
/// codes of word OPSEL[0], dequantized and rounded to the 16-bit type (RNE),
/// packed low then high.
template <ElemFormat Fmt, bool Bf16> S cvtPk16F8(Wave &w, const Instruction &in) {
  Lanes32 x, sc, d;
  valuSource(w, in, 0, ValueType::Int, x);
  valuSource(w, in, 1, ValueType::F32, sc);
  const unsigned word = in.mods.opsel & 1;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const uint16_t codes = uint16_t(x[l] >> (16 * word));
    const uint8_t b = scaleByte(sc[l]);
    const float lo = dequantElem(Fmt, uint8_t(codes), b);
    const float hi = dequantElem(Fmt, uint8_t(codes >> 8), b);
    d[l] = Bf16 ? uint32_t(f32ToBf16(lo)) | (uint32_t(f32ToBf16(hi)) << 16)
                : uint32_t(toHalf(lo)) | (uint32_t(toHalf(hi)) << 16);
  }
  writeLanes32(w, in.dst(), d, w.exec());
  return S::success();
}

/// v_cvt_scalef32_f32_{fp8,bf8} vdst, src0, scale: byte OPSEL[1:0].
template <ElemFormat Fmt> S cvtF32F8(Wave &w, const Instruction &in) {
  Lanes32 x, sc, d;
  valuSource(w, in, 0, ValueType::Int, x);
  valuSource(w, in, 1, ValueType::F32, sc);
  const unsigned byte = in.mods.opsel & 3;
  for (unsigned l = 0; l < kWaveSize; ++l)
    d[l] = asBits(dequantElem(Fmt, uint8_t(x[l] >> (8 * byte)), scaleByte(sc[l])));
  writeLanes32(w, in.dst(), d, w.exec());
  return S::success();
}

// ---- fp6 block converts (§C4, ISA ops 594-611) ---------------------------
//
// These move 32 elements at once: 32 fp6/bf6 codes are one 192-bit value in
// six consecutive VGPRs, item i at bits [6i+5:6i] (so items 5, 10, 21 and 26
// straddle dword boundaries). The ISA pseudo-code builds the whole result
// in a temporary before writing D, and LLVM relies on that: it allocates
// destinations overlapping a source (llc emits `v[0:5], v[0:15], v[16:31]`,
// the MC tests `v[20:25], v[10:25], v[10:25]`). So every handler reads all
// of its sources for all lanes before it writes a dword. None of these
// instructions take neg/abs/clamp/omod/op_sel (the assembler rejects them).

constexpr unsigned kFp6Items = 32, kFp6Dwords = 6;

/// Lanes of `n` consecutive dwords of a vector operand.
template <size_t N> using Block = std::array<Lanes32, N>;

/// Fails unless operand `op` is `dwords` VGPRs/AGPRs: the handlers below index
/// its dwords directly.
S checkVector(const Operand &op, unsigned dwords, const char *what) {
  if (!op.isVector() || op.count != dwords)
    return S::failure(std::string(what) + " must be " + std::to_string(dwords) +
                      " vector registers, the decoder gave " + std::to_string(op.count));
  return S::success();
}
/// The first failure among `checks`, or success.
S firstFailure(std::initializer_list<S> checks) {
  for (const S &check : checks)
    if (!check.ok())
      return check;
  return S::success();
}

template <size_t N> void readBlock(const Wave &w, const Operand &op, Block<N> &out) {
  for (unsigned r = 0; r < unsigned(N); ++r)
    readLanes32(w, op, out[r], r);
}
template <size_t N> void writeBlock(Wave &w, const Operand &op, const Block<N> &in) {
  for (unsigned r = 0; r < unsigned(N); ++r)
    writeLanes32(w, op, in[r], w.exec(), r);
}

/// Item `i` of lane `l` of a packed fp6 block: bits [6i+5:6i] of the 192-bit
/// little-endian concatenation of the six dwords.
uint8_t fp6Item(const Block<kFp6Dwords> &src, unsigned l, unsigned i) {
  const unsigned bit = 6 * i, word = bit / 32, shift = bit % 32;
  uint64_t pair = src[word][l];
  if (word + 1 < kFp6Dwords)
    pair |= uint64_t(src[word + 1][l]) << 32;
  return uint8_t((pair >> shift) & 0x3f);
}
/// Places a 6-bit code at item `i` of lane `l` (the dwords start zeroed).
void setFp6Item(Block<kFp6Dwords> &dst, unsigned l, unsigned i, uint8_t code) {
  const unsigned bit = 6 * i, word = bit / 32, shift = bit % 32;
  const uint64_t v = uint64_t(code & 0x3f) << shift;
  dst[word][l] |= uint32_t(v);
  if (v >> 32)
    dst[word + 1][l] |= uint32_t(v >> 32);
}

/// v_cvt_scalef32_2xpk16_{fp6,bf6}_f32 vdst[0:5], src0[0:15], src1[0:15], scale:
/// item 2p <- src0[p], item 2p+1 <- src1[p] (ISA op 594: dOffset = 12p).
template <ElemFormat Fmt> S cvt2xPk16F6F32(Wave &w, const Instruction &in) {
  if (S st = firstFailure({checkVector(in.src(0), 16, "src0"), checkVector(in.src(1), 16, "src1"),
                           checkVector(in.dst(), kFp6Dwords, "vdst")});
      !st.ok())
    return st;
  Block<16> x0, x1;
  Lanes32 sc;
  readBlock(w, in.src(0), x0);
  readBlock(w, in.src(1), x1);
  valuSource(w, in, 2, ValueType::F32, sc);
  Block<kFp6Dwords> d{};
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const uint8_t b = scaleByte(sc[l]);
    for (unsigned p = 0; p < 16; ++p) {
      setFp6Item(d, l, 2 * p, encodeElemRne(Fmt, asFloat(x0[p][l]), b));
      setFp6Item(d, l, 2 * p + 1, encodeElemRne(Fmt, asFloat(x1[p][l]), b));
    }
  }
  writeBlock(w, in.dst(), d);
  return S::success();
}

/// v_cvt_scalef32_pk32_{fp6,bf6}_{f16,bf16} vdst[0:5], src0[0:15], scale:
/// item i <- 16-bit element i (dword i/2, low half for even i).
template <ElemFormat Fmt, bool Bf16> S cvtPk32F6From16(Wave &w, const Instruction &in) {
  if (S st = firstFailure(
          {checkVector(in.src(0), 16, "src0"), checkVector(in.dst(), kFp6Dwords, "vdst")});
      !st.ok())
    return st;
  Block<16> x;
  Lanes32 sc;
  readBlock(w, in.src(0), x);
  valuSource(w, in, 1, ValueType::F32, sc);
  Block<kFp6Dwords> d{};
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const uint8_t b = scaleByte(sc[l]);
    for (unsigned i = 0; i < kFp6Items; ++i) {
      const uint16_t h = uint16_t(x[i / 2][l] >> (16 * (i % 2)));
      setFp6Item(d, l, i, encodeElemRne(Fmt, halfValue<Bf16>(h), b));
    }
  }
  writeBlock(w, in.dst(), d);
  return S::success();
}

/// v_cvt_scalef32_sr_pk32_{fp6,bf6}_f32 vdst[0:5], src0[0:31], seed, scale:
/// item i rounds with the seed advanced i times by v_prng_b32 (ISA op 596:
/// randomVal = S1, then randomVal = v_prng_b32(randomVal) after each item).
template <ElemFormat Fmt> S cvtSrPk32F6F32(Wave &w, const Instruction &in) {
  if (S st = firstFailure(
          {checkVector(in.src(0), 32, "src0"), checkVector(in.dst(), kFp6Dwords, "vdst")});
      !st.ok())
    return st;
  Block<32> x;
  Lanes32 seed, sc;
  readBlock(w, in.src(0), x);
  valuSource(w, in, 1, ValueType::Int, seed);
  valuSource(w, in, 2, ValueType::F32, sc);
  Block<kFp6Dwords> d{};
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const uint8_t b = scaleByte(sc[l]);
    uint32_t r = seed[l];
    for (unsigned i = 0; i < kFp6Items; ++i, r = prngNext(r))
      setFp6Item(d, l, i, encodeElemSr(Fmt, asFloat(x[i][l]), b, r));
  }
  writeBlock(w, in.dst(), d);
  return S::success();
}

enum class Wide : uint8_t { F32, Bf16, F16 };

/// v_cvt_scalef32_pk32_{f32,bf16,f16}_{fp6,bf6} vdst, src0[0:5], scale:
/// element i = code i * 2^(b-127); f32 fills 32 VGPRs, bf16/f16 pack two per
/// VGPR (element i in dword i/2, low half for even i) into 16.
template <ElemFormat Fmt, Wide Out> S cvtPk32FromF6(Wave &w, const Instruction &in) {
  constexpr unsigned kDst = Out == Wide::F32 ? 32 : 16;
  if (S st = firstFailure(
          {checkVector(in.src(0), kFp6Dwords, "src0"), checkVector(in.dst(), kDst, "vdst")});
      !st.ok())
    return st;
  Block<kFp6Dwords> x;
  Lanes32 sc;
  readBlock(w, in.src(0), x);
  valuSource(w, in, 1, ValueType::F32, sc);
  Block<kDst> d{};
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const uint8_t b = scaleByte(sc[l]);
    for (unsigned i = 0; i < kFp6Items; ++i) {
      const float v = dequantElem(Fmt, fp6Item(x, l, i), b);
      if constexpr (Out == Wide::F32)
        d[i][l] = asBits(v);
      else
        d[i / 2][l] |= uint32_t(Out == Wide::Bf16 ? f32ToBf16(v) : toHalf(v)) << (16 * (i % 2));
    }
  }
  writeBlock(w, in.dst(), d);
  return S::success();
}

/// v_prng_b32: D = (S << 1) ^ (S[31] ? 197 : 0) (§C5).
S vPrngB32(Wave &w, const Instruction &in) {
  return valuOp(w, in, 1, ValueType::Int,
                [](uint32_t a, uint32_t, uint32_t) { return prngNext(a); });
}

} // namespace

void registerCvtScaled(OpRegistry &r) {
  r.add("v_cvt_scalef32_pk_fp4_f32", cvtPkFromF32<ElemFormat::E2M1>);
  r.add("v_cvt_scalef32_pk_fp8_f32", cvtPkFromF32<ElemFormat::E4M3>);
  r.add("v_cvt_scalef32_pk_bf8_f32", cvtPkFromF32<ElemFormat::E5M2>);
  r.add("v_cvt_scalef32_pk_fp4_bf16", cvtPkFp4From16<true>);
  r.add("v_cvt_scalef32_pk_fp4_f16", cvtPkFp4From16<false>);
  r.add("v_cvt_scalef32_sr_pk_fp4_f32", cvtSrPkFp4F32);
  r.add("v_cvt_scalef32_sr_fp8_f32", cvtSrF8F32<ElemFormat::E4M3>);
  r.add("v_cvt_scalef32_sr_bf8_f32", cvtSrF8F32<ElemFormat::E5M2>);
  r.add("v_cvt_scalef32_pk_f32_fp4", cvtPkF32Fp4);
  r.add("v_cvt_scalef32_pk_bf16_fp4", cvtPk16Fp4<true>);
  r.add("v_cvt_scalef32_pk_f16_fp4", cvtPk16Fp4<false>);
  r.add("v_cvt_scalef32_pk_f32_fp8", cvtPkF32F8<ElemFormat::E4M3>);
  r.add("v_cvt_scalef32_pk_f32_bf8", cvtPkF32F8<ElemFormat::E5M2>);
  r.add("v_cvt_scalef32_pk_bf16_fp8", cvtPk16F8<ElemFormat::E4M3, true>);
  r.add("v_cvt_scalef32_pk_bf16_bf8", cvtPk16F8<ElemFormat::E5M2, true>);
  r.add("v_cvt_scalef32_pk_f16_fp8", cvtPk16F8<ElemFormat::E4M3, false>);
  r.add("v_cvt_scalef32_pk_f16_bf8", cvtPk16F8<ElemFormat::E5M2, false>);
  r.add("v_cvt_scalef32_f32_fp8", cvtF32F8<ElemFormat::E4M3>);
  r.add("v_cvt_scalef32_f32_bf8", cvtF32F8<ElemFormat::E5M2>);
  constexpr ElemFormat Fp6 = ElemFormat::E2M3, Bf6 = ElemFormat::E3M2;
  r.add("v_cvt_scalef32_2xpk16_fp6_f32", cvt2xPk16F6F32<Fp6>);
  r.add("v_cvt_scalef32_2xpk16_bf6_f32", cvt2xPk16F6F32<Bf6>);
  r.add("v_cvt_scalef32_pk32_fp6_bf16", cvtPk32F6From16<Fp6, true>);
  r.add("v_cvt_scalef32_pk32_fp6_f16", cvtPk32F6From16<Fp6, false>);
  r.add("v_cvt_scalef32_pk32_bf6_bf16", cvtPk32F6From16<Bf6, true>);
  r.add("v_cvt_scalef32_pk32_bf6_f16", cvtPk32F6From16<Bf6, false>);
  r.add("v_cvt_scalef32_sr_pk32_fp6_f32", cvtSrPk32F6F32<Fp6>);
  r.add("v_cvt_scalef32_sr_pk32_bf6_f32", cvtSrPk32F6F32<Bf6>);
  r.add("v_cvt_scalef32_pk32_f32_fp6", cvtPk32FromF6<Fp6, Wide::F32>);
  r.add("v_cvt_scalef32_pk32_f32_bf6", cvtPk32FromF6<Bf6, Wide::F32>);
  r.add("v_cvt_scalef32_pk32_bf16_fp6", cvtPk32FromF6<Fp6, Wide::Bf16>);
  r.add("v_cvt_scalef32_pk32_bf16_bf6", cvtPk32FromF6<Bf6, Wide::Bf16>);
  r.add("v_cvt_scalef32_pk32_f16_fp6", cvtPk32FromF6<Fp6, Wide::F16>);
  r.add("v_cvt_scalef32_pk32_f16_bf6", cvtPk32FromF6<Bf6, Wide::F16>);
  // Not modelled: v_cvt_scalef32_sr_pk32_{fp6,bf6}_{f16,bf16}. numerics'
  // encodeElemSr defines the random-bit alignment for f32 sources only (§C5);
  // for 16-bit sources it is not documented (as for sr_pk_fp4_{f16,bf16}), so
  // these stop the run rather than guess.
  r.add("v_prng_b32", vPrngB32);
}

} // namespace mxf::emu
