//===- cvt_scaled.cpp - v_cvt_scalef32_* and v_prng_b32 -------------------===//
//
// The scaled conversions of GFX950_SEMANTICS.md §C1-§C5, through numerics'
// encodeElemRne / encodeElemSr / dequantElem, so that the emulator and the
// reference share one definition. The scale is the E8M0 byte in bits [30:23]
// of the scale source (sign and mantissa ignored). Byte/word selection is the
// VOP3 OPSEL field; writes of one byte or half keep the rest of the
// destination (read-modify-write).
//
//===----------------------------------------------------------------------===//

#include "emulator/opcode_table.h"
#include "emulator/valu_common.h"

#include "numerics/formats.h"
#include "numerics/stochastic.h"

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
  r.add("v_cvt_scalef32_f32_fp8", cvtF32F8<ElemFormat::E4M3>);
  r.add("v_cvt_scalef32_f32_bf8", cvtF32F8<ElemFormat::E5M2>);
  r.add("v_prng_b32", vPrngB32);
}

} // namespace mxf::emu
