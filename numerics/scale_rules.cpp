//===- scale_rules.cpp - E8M0 block scale rules ---------------------------===//
//
// Each rule follows the arithmetic of GFX950_SEMANTICS.md section B, written
// on the f32 bit pattern wherever the source implementation does so, because
// that is what makes the choice bit-exact near powers of two.
//
//===----------------------------------------------------------------------===//

#include "numerics/scale_rules.h"

#include <algorithm>
#include <cmath>

namespace mxf {
namespace {

const std::pair<ScaleRule, const char *> kRuleNames[] = {
    {ScaleRule::Floor, "floor"},
    {ScaleRule::Even, "even"},
    {ScaleRule::Rceil, "rceil"},
    {ScaleRule::RceilRecip, "rceil_recip"},
    {ScaleRule::Ceil, "ceil"},
    {ScaleRule::Even126, "even126"},
    {ScaleRule::A6W6, "a6w6"},
};

constexpr uint8_t kNanScale = 0xFF;

uint32_t exponentField(uint32_t bits) { return (bits >> 23) & 0xFF; }
uint32_t mantissaField(uint32_t bits) { return bits & 0x7FFFFF; }

uint8_t biasedClamped(int s, int lo, int hi) { return uint8_t(std::clamp(s, lo, hi) + 127); }

/// floor(log2 v) for finite v > 0, exact (v may be an f32 subnormal).
int floorLog2(float v) {
  int exp;
  std::frexp(double(v), &exp);
  return exp - 1;
}

/// "Round up to a power of two" on the bits of d: the E8M0 byte of the
/// smallest power of two >= d, for d >= 0 (RCEIL in AITER/TE/Triton kernels).
uint8_t roundUpExponent(float d) {
  uint32_t bits = f32Bits(d);
  uint32_t e = exponentField(bits);
  bool bump = mantissaField(bits) != 0 && e < 255;
  return uint8_t(e + (bump ? 1 : 0));
}

} // namespace

const char *scaleRuleName(ScaleRule rule) {
  for (const auto &[candidate, name] : kRuleNames)
    if (candidate == rule)
      return name;
  return "?";
}

std::optional<ScaleRule> parseScaleRule(std::string_view name) {
  for (const auto &[rule, spelling] : kRuleNames)
    if (name == spelling)
      return rule;
  return std::nullopt;
}

uint8_t computeScaleByte(ScaleRule rule, ElemFormat format, float amax) {
  const FormatInfo &info = formatInfo(format);
  amax = std::fabs(amax);
  switch (rule) {
  case ScaleRule::Floor:
    // OCP MX reference: an infinite or NaN block maximum makes the scale NaN.
    if (!std::isfinite(amax))
      return kNanScale;
    if (amax == 0.0f)
      return 0;
    return biasedClamped(floorLog2(amax) - info.emax, -127, 127);

  case ScaleRule::Even: {
    // AITER Triton: add half an ulp of the element mantissa to amax's bits,
    // drop the mantissa, then take floor(log2) of that float. An Inf block
    // therefore clamps to 2^127 (byte 254); a NaN block is our choice: NaN.
    if (std::isnan(amax))
      return kNanScale;
    uint32_t rounded = (f32Bits(amax) + (1u << (22 - info.mbits))) & 0xFF800000u;
    float roundedAmax = f32FromBits(rounded);
    if (roundedAmax == 0.0f)
      return 0;
    if (std::isinf(roundedAmax))
      return 254;
    return biasedClamped(floorLog2(roundedAmax) - info.emax, -127, 127);
  }

  case ScaleRule::Rceil:
    // amax / max as one correctly rounded f32 division (torch reference,
    // torchao, TransformerEngine), then round up to a power of two.
    return roundUpExponent(amax / float(info.maxValue));

  case ScaleRule::RceilRecip:
    // AITER's HIP kernels multiply by the f32 reciprocal (1/6 = 0x3E2AAAAB).
    return roundUpExponent(amax * float(1.0 / info.maxValue));

  case ScaleRule::Ceil: {
    // AITER's Ceil (torchao's CEIL): ceil_pow2 of the f32 quotient
    // amax / 2^emax, read off its bits: E + (M != 0). The quotient is
    // rounded to f32 (RNE, into the subnormals), so an amax whose exponent
    // field is at most emax gives a subnormal quotient and byte 1, unless
    // the quotient rounds to zero (amax <= 2^(emax - 150)); a zero amax gives 0.
    if (!std::isfinite(amax))
      return kNanScale;
    const uint32_t quotient = f32Bits(std::ldexp(amax, -info.emax));
    return uint8_t(exponentField(quotient) + (mantissaField(quotient) != 0));
  }

  case ScaleRule::Even126: {
    // Seed 003's round_e2m3 on the exponent field, exactly as torch computes
    // it: int32 add (wrapping), mask, shift, clamp to [-126, 127].
    uint32_t rounded = f32Bits(amax) + (1u << (22 - info.mbits));
    int s = int(exponentField(rounded & 0x7F800000u)) - 127 - info.emax;
    return biasedClamped(s, -126, 127);
  }

  case ScaleRule::A6W6: {
    // AITER's A6W6 HIP packer on the exponent field E of amax: 0 -> byte
    // 127 (scale 1), E = 0 (subnormal) -> -127, E = 255 (Inf; NaN too, our
    // choice) -> 127, else E - 127 - emax (= floor(log2 amax) - emax),
    // clamped to +-127. For fp6_e2m3 this is a6w6ScaleByte.
    const uint32_t bits = f32Bits(amax);
    if (amax == 0.0f)
      return 127;
    const int e = int(exponentField(bits));
    const int s = e == 0 ? -127 : e == 255 ? 127 : e - 127 - info.emax;
    return biasedClamped(s, -127, 127);
  }
  }
  return kNanScale;
}

} // namespace mxf
