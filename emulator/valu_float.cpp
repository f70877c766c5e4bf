//===- valu_float.cpp - Vector ALU: f32/f64 arithmetic and conversions ----===//
//
// f32 arithmetic is IEEE single precision, round to nearest even, denormals
// kept (the only MODE the emulator accepts; executor.cpp checks it), which is
// what C++ float arithmetic does on the host. Min/max follow IEEE_MODE=1
// (minNum/maxNum: a quiet result from one NaN operand; -0 < +0); maximum3 and
// minimum3 propagate NaN (IEEE 754-2019). Transcendentals (exp, log, rsq,
// sqrt, rcp) are computed correctly rounded: hardware promises 1 ulp, so
// kernels must not depend on their last bit, and the division macro does not
// (see v_div_* below). The f32 division macro follows the ISA pseudo-code.
//
//===----------------------------------------------------------------------===//

#include "emulator/opcode_table.h"
#include "emulator/valu_common.h"

#include "numerics/exact_accumulator.h"
#include "numerics/formats.h"

#include <cmath>
#include <limits>

namespace mxf::emu {

namespace {

using S = Status;
constexpr ValueType F = ValueType::F32;

inline float f(uint32_t bits) { return asFloat(bits); }
inline uint32_t b(float value) { return asBits(value); }
inline uint32_t quiet(uint32_t bits) { return bits | 0x00400000u; }
inline bool isNan(uint32_t bits) { return (bits & 0x7fffffffu) > 0x7f800000u; }
inline unsigned exponentOf(float x) { return (asBits(x) >> 23) & 0xff; }
inline float halfToFloat(uint16_t h) {
  _Float16 x;
  std::memcpy(&x, &h, 2);
  return float(x);
}
inline uint16_t floatToHalf(float v) {
  const _Float16 x = _Float16(v);
  uint16_t h;
  std::memcpy(&h, &x, 2);
  return h;
}
inline bool isDenorm(float x) { return std::fpclassify(x) == FP_SUBNORMAL; }

#define FOP(NAME, N, EXPR)                                                                     \
  S NAME(Wave &w, const Instruction &in) {                                                     \
    return valuOp(w, in, N, F, [](uint32_t a, uint32_t b_, uint32_t c) -> uint32_t {           \
      (void)a; (void)b_; (void)c;                                                              \
      return (EXPR);                                                                           \
    });                                                                                        \
  }

/// IEEE_MODE min/max: one NaN operand yields the other (quiet) operand.
uint32_t maxNum(uint32_t x, uint32_t y) {
  if (isNan(x))
    return isNan(y) ? quiet(x) : y;
  if (isNan(y))
    return x;
  if (f(x) == 0.0f && f(y) == 0.0f)
    return (x & y & 0x80000000u) ? x : (x & 0x80000000u ? y : x); // +0 > -0
  return f(x) >= f(y) ? x : y;
}
uint32_t minNum(uint32_t x, uint32_t y) {
  if (isNan(x))
    return isNan(y) ? quiet(x) : y;
  if (isNan(y))
    return x;
  if (f(x) == 0.0f && f(y) == 0.0f)
    return (x | y) & 0x80000000u ? ((x & 0x80000000u) ? x : y) : x; // -0 < +0
  return f(x) <= f(y) ? x : y;
}
/// IEEE 754-2019 maximum/minimum: NaN propagates.
uint32_t maximum(uint32_t x, uint32_t y) {
  if (isNan(x))
    return quiet(x);
  if (isNan(y))
    return quiet(y);
  return maxNum(x, y);
}
uint32_t minimum(uint32_t x, uint32_t y) {
  if (isNan(x))
    return quiet(x);
  if (isNan(y))
    return quiet(y);
  return minNum(x, y);
}
uint32_t med3(uint32_t x, uint32_t y, uint32_t z) {
  if (isNan(x) || isNan(y) || isNan(z))
    return minNum(minNum(x, y), z);
  return maxNum(minNum(x, y), minNum(maxNum(x, y), z));
}

int32_t cvtI32(float x) {
  if (std::isnan(x))
    return 0;
  if (x >= 2147483648.0f)
    return INT32_MAX;
  if (x <= -2147483648.0f)
    return INT32_MIN;
  return int32_t(x);
}
uint32_t cvtU32(float x) {
  if (std::isnan(x) || x <= 0.0f)
    return 0;
  if (x >= 4294967296.0f)
    return UINT32_MAX;
  return uint32_t(x);
}

FOP(vAddF32, 2, b(f(a) + f(b_)))
FOP(vSubF32, 2, b(f(a) - f(b_)))
FOP(vSubrevF32, 2, b(f(b_) - f(a)))
FOP(vMulF32, 2, b(f(a) * f(b_)))
FOP(vFmaF32, 3, b(std::fma(f(a), f(b_), f(c))))
FOP(vMadF32, 3, b(f(a) * f(b_) + f(c)))
FOP(vMinF32, 2, minNum(a, b_))
FOP(vMaxF32, 2, maxNum(a, b_))
FOP(vMin3F32, 3, minNum(minNum(a, b_), c))
FOP(vMax3F32, 3, maxNum(maxNum(a, b_), c))
FOP(vMed3F32, 3, med3(a, b_, c))
FOP(vMaximum3F32, 3, maximum(maximum(a, b_), c))
FOP(vMinimum3F32, 3, minimum(minimum(a, b_), c))
FOP(vRcpF32, 1, b(1.0f / f(a)))
FOP(vRsqF32, 1, b(float(1.0 / std::sqrt(double(f(a))))))
FOP(vSqrtF32, 1, b(std::sqrt(f(a))))
FOP(vExpF32, 1, b(std::exp2(f(a))))
FOP(vLogF32, 1, b(std::log2(f(a))))
FOP(vFloorF32, 1, b(std::floor(f(a))))
FOP(vCeilF32, 1, b(std::ceil(f(a))))
FOP(vTruncF32, 1, b(std::trunc(f(a))))
FOP(vRndneF32, 1, b(std::nearbyint(f(a))))
FOP(vFractF32, 1, std::isinf(f(a)) ? b(std::numeric_limits<float>::quiet_NaN())
                  : b(std::fmin(f(a) - std::floor(f(a)), 0x1.fffffep-1f)))
FOP(vFrexpMantF32, 1, std::isinf(f(a)) || std::isnan(f(a)) ? a : [](float x) {
  int e;
  return b(std::frexp(x, &e));
}(f(a)))
FOP(vCvtF32I32, 1, b(float(int32_t(a))))
FOP(vCvtF32U32, 1, b(float(a)))
FOP(vCvtF32F16, 1, b(halfToFloat(uint16_t(a))))
/// f32 -> f16 (RNE); with MODE.FP16_OVFL a finite value that overflows
/// clamps to +-65504 (0x7bff) while Inf and NaN stay as they are.
uint16_t halfUnderMode(const Wave &w, float v) {
  const uint16_t h = floatToHalf(v);
  if (w.fp16Overflow && std::isfinite(v) && (h & 0x7fff) == 0x7c00)
    return uint16_t((h & 0x8000) | 0x7bff);
  return h;
}

S vCvtF16F32(Wave &w, const Instruction &in) {
  return valuOp(w, in, 1, F, [&w](uint32_t a, uint32_t, uint32_t) -> uint32_t {
    return halfUnderMode(w, f(a));
  });
}

/// v_cvt_f32_bf16 (gfx950): the bf16 in the low half (op_sel[0]: high half).
S vCvtF32Bf16(Wave &w, const Instruction &in) {
  const bool high = in.mods.opsel & 1;
  Instruction copy = in;
  copy.mods.opsel = 0;
  return valuOp(w, copy, 1, ValueType::Int, [high](uint32_t a, uint32_t, uint32_t) {
    return high ? a & 0xffff0000u : a << 16;
  });
}

// Conversions to integers take float modifiers but produce integers: no omod.
S vCvtI32F32(Wave &w, const Instruction &in) {
  Lanes32 s, d;
  valuSource(w, in, 0, F, s);
  for (unsigned l = 0; l < kWaveSize; ++l)
    d[l] = uint32_t(cvtI32(f(s[l])));
  valuWrite(w, in, d, ValueType::Int, valuWriteMask(w, in));
  return S::success();
}
S vCvtU32F32(Wave &w, const Instruction &in) {
  Lanes32 s, d;
  valuSource(w, in, 0, F, s);
  for (unsigned l = 0; l < kWaveSize; ++l)
    d[l] = cvtU32(f(s[l]));
  valuWrite(w, in, d, ValueType::Int, valuWriteMask(w, in));
  return S::success();
}
S vFrexpExpI32F32(Wave &w, const Instruction &in) {
  Lanes32 s, d;
  valuSource(w, in, 0, F, s);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    int e = 0;
    const float x = f(s[l]);
    if (!std::isinf(x) && !std::isnan(x))
      std::frexp(x, &e);
    d[l] = uint32_t(e);
  }
  valuWrite(w, in, d, ValueType::Int, valuWriteMask(w, in));
  return S::success();
}
S vLdexpF32(Wave &w, const Instruction &in) {
  Lanes32 x, e, d;
  valuSource(w, in, 0, F, x);
  valuSource(w, in, 1, ValueType::Int, e);
  for (unsigned l = 0; l < kWaveSize; ++l)
    d[l] = b(std::ldexp(f(x[l]), int32_t(e[l])));
  valuWrite(w, in, d, F, valuWriteMask(w, in));
  return S::success();
}

/// v_fmac_f32 / v_mac_f32: the destination is the addend.
template <bool Fused> S vMacF32(Wave &w, const Instruction &in) {
  Lanes32 a, bb, d;
  valuSource(w, in, 0, F, a);
  valuSource(w, in, 1, F, bb);
  const uint32_t *acc = w.lanes(in.dst());
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const float c = f(f32Mods(acc[l], in.mods, 2));
    d[l] = Fused ? b(std::fma(f(a[l]), f(bb[l]), c)) : b(f(a[l]) * f(bb[l]) + c);
  }
  valuWrite(w, in, d, F, valuWriteMask(w, in));
  return S::success();
}

/// v_fmamk_f32 D = S0 * K + S1 and v_fmaak_f32 D = S0 * S1 + K, fused, with
/// the literal K (an immediate operand LLVM lists between or after them).
template <bool KMultiplies> S vFmaKF32(Wave &w, const Instruction &in) {
  if (in.numImms != 1 || in.numSrcs != 2)
    return S::failure("expected two sources and one literal");
  const float k = f(uint32_t(in.imms[0]));
  Lanes32 a, bb, d;
  valuSource(w, in, 0, F, a);
  valuSource(w, in, 1, F, bb);
  for (unsigned l = 0; l < kWaveSize; ++l)
    d[l] = KMultiplies ? b(std::fma(f(a[l]), k, f(bb[l]))) : b(std::fma(f(a[l]), f(bb[l]), k));
  valuWrite(w, in, d, F, valuWriteMask(w, in));
  return S::success();
}

/// v_cvt_pk_f16_f32 (VOP3): D = {f16(S1), f16(S0)}, round to nearest even.
S vCvtPkF16F32(Wave &w, const Instruction &in) {
  Lanes32 a, bb, d;
  valuSource(w, in, 0, F, a);
  valuSource(w, in, 1, F, bb);
  for (unsigned l = 0; l < kWaveSize; ++l)
    d[l] = uint32_t(halfUnderMode(w, f(a[l]))) | (uint32_t(halfUnderMode(w, f(bb[l]))) << 16);
  valuWrite(w, in, d, ValueType::Int, valuWriteMask(w, in));
  return S::success();
}

/// v_cvt_pk_bf16_f32: D = {bf16(S1), bf16(S0)}, round to nearest even.
S vCvtPkBf16F32(Wave &w, const Instruction &in) {
  Lanes32 a, bb, d;
  valuSource(w, in, 0, F, a);
  valuSource(w, in, 1, F, bb);
  for (unsigned l = 0; l < kWaveSize; ++l)
    d[l] = uint32_t(f32ToBf16(f(a[l]))) | (uint32_t(f32ToBf16(f(bb[l]))) << 16);
  valuWrite(w, in, d, ValueType::Int, valuWriteMask(w, in));
  return S::success();
}

// --- The f32 division macro (ISA §12.11 V_DIV_SCALE/FMAS/FIXUP_F32). ---

/// V_DIV_SCALE_F32 D, VCC = (S0 to scale, S1 denominator, S2 numerator).
S vDivScaleF32(Wave &w, const Instruction &in) {
  Lanes32 s0, s1, s2, d;
  valuSource(w, in, 0, F, s0);
  valuSource(w, in, 1, F, s1);
  valuSource(w, in, 2, F, s2);
  const uint64_t mask = w.exec();
  uint64_t vcc = 0;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(mask, l))
      continue;
    const float x = f(s0[l]), den = f(s1[l]), num = f(s2[l]);
    float out = x;
    bool flag = false;
    if (num == 0.0f || den == 0.0f) {
      out = std::numeric_limits<float>::quiet_NaN();
    } else if (int(exponentOf(num)) - int(exponentOf(den)) >= 96) {
      flag = true; // N/D near MAX_FLOAT: only scale the denominator
      if (x == den)
        out = std::ldexp(x, 64);
    } else if (isDenorm(den)) {
      out = std::ldexp(x, 64);
    } else if (std::fpclassify(1.0 / double(den)) == FP_SUBNORMAL && isDenorm(num / den)) {
      flag = true;
      if (x == den)
        out = std::ldexp(x, 64);
    } else if (std::fpclassify(1.0 / double(den)) == FP_SUBNORMAL) {
      out = std::ldexp(x, -64);
    } else if (isDenorm(num / den)) {
      flag = true; // only scale the numerator
      if (x == num)
        out = std::ldexp(x, 64);
    } else if (exponentOf(num) <= 23) {
      out = std::ldexp(x, 64); // tiny numerator
    }
    d[l] = b(out);
    if (flag)
      vcc |= 1ull << l;
  }
  valuWrite(w, in, d, F, mask);
  if (in.numDefs > 1)
    writeMask(w, in.defs[1], vcc);
  else
    w.setVcc(vcc);
  return S::success();
}

/// V_DIV_FMAS_F32: fma(S0, S1, S2), post-scaled when VCC[lane] is set.
/// The ISA's pseudo-code prints a fixed factor 2^32, which cannot undo
/// V_DIV_SCALE_F32's 2^64 scaling in either direction; the scaled quotient
/// S2 tells which way it went (> 1: the denominator was scaled up, the
/// quotient must grow; < 1: the numerator was, it must shrink), so the model
/// scales by 2^+-64, with the fma and the scaling rounded once (exactly, in
/// numerics' ExactAccumulator), which makes the macro give the correctly
/// rounded quotient across the whole f32 range (tested).
S vDivFmasF32(Wave &w, const Instruction &in) {
  Lanes32 s0, s1, s2, d;
  valuSource(w, in, 0, F, s0);
  valuSource(w, in, 1, F, s1);
  valuSource(w, in, 2, F, s2);
  const uint64_t vcc = w.vcc();
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const float x = f(s0[l]), y = f(s1[l]), z = f(s2[l]);
    if (!((vcc >> l) & 1)) {
      d[l] = b(std::fma(x, y, z));
      continue;
    }
    const int scale = exponentOf(z) > 127 ? 64 : -64;
    if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z)) {
      d[l] = b(std::ldexp(std::fma(x, y, z), scale));
      continue;
    }
    ExactAccumulator acc;
    acc.add(std::ldexp(double(x) * double(y), scale)); // exact: 48-bit product
    acc.add(std::ldexp(double(z), scale));
    d[l] = b(acc.roundToF32());
  }
  valuWrite(w, in, d, F, valuWriteMask(w, in));
  return S::success();
}

/// V_DIV_FIXUP_F32 D = (S0 quotient, S1 denominator, S2 numerator).
S vDivFixupF32(Wave &w, const Instruction &in) {
  Lanes32 s0, s1, s2, d;
  valuSource(w, in, 0, F, s0);
  valuSource(w, in, 1, F, s1);
  valuSource(w, in, 2, F, s2);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const float q = f(s0[l]), den = f(s1[l]), num = f(s2[l]);
    const bool signOut = std::signbit(den) != std::signbit(num);
    uint32_t out;
    if (std::isnan(num))
      out = quiet(s2[l]);
    else if (std::isnan(den))
      out = quiet(s1[l]);
    else if (den == 0.0f && num == 0.0f)
      out = 0xffc00000u;
    else if (std::isinf(den) && std::isinf(num))
      out = 0xffc00000u;
    else if (den == 0.0f || std::isinf(num))
      out = signOut ? 0xff800000u : 0x7f800000u;
    else if (std::isinf(den) || num == 0.0f)
      out = signOut ? 0x80000000u : 0u;
    else if (int(exponentOf(num)) - int(exponentOf(den)) < -150)
      out = signOut ? 0x80000000u : 0u; // underflow: |N/D| < 2^-150 rounds to 0
    else if (exponentOf(den) == 255)
      out = signOut ? 0xff800000u : 0x7f800000u;
    else
      out = (b(q) & 0x7fffffffu) | (signOut ? 0x80000000u : 0u);
    d[l] = out;
  }
  valuWrite(w, in, d, F, valuWriteMask(w, in));
  return S::success();
}

// --- f64 (a few, for completeness of address/scale arithmetic). ---
template <int Op> S vF64(Wave &w, const Instruction &in) {
  Lanes64 s[3], d;
  const unsigned n = Op == 2 ? 3 : 2;
  for (unsigned i = 0; i < n; ++i) {
    readLanes64(w, in.src(i), s[i]);
    for (uint64_t &v : s[i])
      v = f64Mods(v, in.mods, i);
  }
  if (in.mods.omod || in.mods.clamp)
    return S::failure("omod/clamp on f64 ops is not modelled");
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const double x = asDouble(s[0][l]), y = asDouble(s[1][l]);
    const double r = Op == 0 ? x + y : Op == 1 ? x * y : std::fma(x, y, asDouble(s[2][l]));
    d[l] = asBits64(r);
  }
  writeLanes64(w, in.dst(), d, w.exec());
  return S::success();
}

} // namespace

void registerValuFloat(OpRegistry &r) {
  r.add("v_add_f32", vAddF32);
  r.add("v_sub_f32", vSubF32);
  r.add("v_subrev_f32", vSubrevF32);
  r.add("v_mul_f32", vMulF32);
  r.add("v_fma_f32", vFmaF32);
  r.add("v_mad_f32", vMadF32);
  r.add("v_fmac_f32", vMacF32<true>);
  r.add("v_mac_f32", vMacF32<false>);
  r.add("v_min_f32", vMinF32);
  r.add("v_max_f32", vMaxF32);
  r.add("v_min3_f32", vMin3F32);
  r.add("v_max3_f32", vMax3F32);
  r.add("v_med3_f32", vMed3F32);
  r.add("v_maximum3_f32", vMaximum3F32);
  r.add("v_minimum3_f32", vMinimum3F32);
  r.add("v_rcp_f32", vRcpF32);
  // The same reciprocal; it differs only in raising the integer
  // divide-by-zero flag, which the emulator does not model (LLVM's integer
  // division expansion uses it and corrects the quotient exactly).
  r.add("v_rcp_iflag_f32", vRcpF32);
  r.add("v_fmamk_f32", vFmaKF32<true>);
  r.add("v_fmaak_f32", vFmaKF32<false>);
  r.add("v_cvt_pk_f16_f32", vCvtPkF16F32);
  r.add("v_rsq_f32", vRsqF32);
  r.add("v_sqrt_f32", vSqrtF32);
  r.add("v_exp_f32", vExpF32);
  r.add("v_log_f32", vLogF32);
  r.add("v_floor_f32", vFloorF32);
  r.add("v_ceil_f32", vCeilF32);
  r.add("v_trunc_f32", vTruncF32);
  r.add("v_rndne_f32", vRndneF32);
  r.add("v_fract_f32", vFractF32);
  r.add("v_frexp_mant_f32", vFrexpMantF32);
  r.add("v_frexp_exp_i32_f32", vFrexpExpI32F32);
  r.add("v_ldexp_f32", vLdexpF32);
  r.add("v_cvt_f32_i32", vCvtF32I32);
  r.add("v_cvt_f32_u32", vCvtF32U32);
  r.add("v_cvt_i32_f32", vCvtI32F32);
  r.add("v_cvt_u32_f32", vCvtU32F32);
  r.add("v_cvt_f32_bf16", vCvtF32Bf16);
  r.add("v_cvt_f32_f16", vCvtF32F16);
  r.add("v_cvt_f16_f32", vCvtF16F32);
  r.add("v_cvt_pk_bf16_f32", vCvtPkBf16F32);
  r.add("v_div_scale_f32", vDivScaleF32);
  r.add("v_div_fmas_f32", vDivFmasF32);
  r.add("v_div_fixup_f32", vDivFixupF32);
  r.add("v_add_f64", vF64<0>);
  r.add("v_mul_f64", vF64<1>);
  r.add("v_fma_f64", vF64<2>);
}

} // namespace mxf::emu
