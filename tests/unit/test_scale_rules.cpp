//===- test_scale_rules.cpp - Scale rules by hand, by table and by sweep --===//

#include "numerics/scale_rules.h"
#include "numerics/a6w6.h"

#include "test_seed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace mxf {
namespace {

const float kSubnormal = std::numeric_limits<float>::denorm_min() * 12345;
const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

uint8_t fp4(ScaleRule rule, float amax) { return computeScaleByte(rule, ElemFormat::E2M1, amax); }

TEST(ScaleRules, HandComputedFp4Blocks) {
  // floor: floor(log2 amax) - 2 + 127.
  EXPECT_EQ(fp4(ScaleRule::Floor, 6.0f), 127);   // log2 6 = 2.58 -> 2
  EXPECT_EQ(fp4(ScaleRule::Floor, 8.0f), 128);
  EXPECT_EQ(fp4(ScaleRule::Floor, 7.99f), 127);
  EXPECT_EQ(fp4(ScaleRule::Floor, 0.75f), 124);  // -1 - 2
  // even: amax rounded up to 2^(e+1) when its significand is >= 1.75.
  EXPECT_EQ(fp4(ScaleRule::Even, 6.0f), 127);    // 1.5 * 4 stays 4
  EXPECT_EQ(fp4(ScaleRule::Even, 7.0f), 128);    // 1.75 * 4 -> 8
  EXPECT_EQ(fp4(ScaleRule::Even, 6.99f), 127);
  EXPECT_EQ(fp4(ScaleRule::Even, 3.5f), 127);    // 1.75 * 2 -> 4
  // rceil: smallest power of two >= amax / 6.
  EXPECT_EQ(fp4(ScaleRule::Rceil, 6.0f), 127);   // d = 1
  EXPECT_EQ(fp4(ScaleRule::Rceil, std::nextafter(6.0f, 7.0f)), 128);
  EXPECT_EQ(fp4(ScaleRule::Rceil, 3.0f), 126);   // d = 0.5
  EXPECT_EQ(fp4(ScaleRule::Rceil, 12.0f), 128);
  EXPECT_EQ(fp4(ScaleRule::Rceil, 1.0f), 125);   // d = 0.1667 -> 0.25
  // ceil: ceil(log2 amax) - 2.
  EXPECT_EQ(fp4(ScaleRule::Ceil, 4.0f), 127);
  EXPECT_EQ(fp4(ScaleRule::Ceil, 4.5f), 128);
  EXPECT_EQ(fp4(ScaleRule::Ceil, 6.0f), 128);
  // Other formats use their own emax / max.
  EXPECT_EQ(computeScaleByte(ScaleRule::Floor, ElemFormat::E4M3, 448.0f), 127);
  EXPECT_EQ(computeScaleByte(ScaleRule::Rceil, ElemFormat::E4M3, 448.0f), 127);
  EXPECT_EQ(computeScaleByte(ScaleRule::Rceil, ElemFormat::E2M3, 7.5f), 127);
  // e2m3 rounds up a binade from significand 2 - 2^-4 = 1.9375 on.
  EXPECT_EQ(computeScaleByte(ScaleRule::Even, ElemFormat::E2M3, 7.5f), 127);  // 1.875 * 4
  EXPECT_EQ(computeScaleByte(ScaleRule::Even, ElemFormat::E2M3, 7.75f), 128); // 1.9375 * 4
}

TEST(ScaleRules, RceilRecipOnlyDiffersWhereTheReciprocalRoundsDifferently) {
  // Exhaustive search (done once offline over every finite f32) finds a
  // single amax where amax/6 and amax*f32(1/6) round to different powers of
  // two: 3 * 2^-149. Check that one, and equality on a dense sweep around
  // powers of two where the rounding of d matters most.
  float tiny = f32FromBits(3);
  EXPECT_EQ(fp4(ScaleRule::Rceil, tiny), 0);      // 3*2^-149 / 6 rounds to 0
  EXPECT_EQ(fp4(ScaleRule::RceilRecip, tiny), 1); // * 0x3E2AAAAB rounds to 2^-149
  for (int e = -100; e <= 100; e += 7)
    for (int ulps = -64; ulps <= 64; ++ulps) {
      float amax = f32FromBits(uint32_t(int64_t(f32Bits(std::ldexp(6.0f, e))) + ulps));
      ASSERT_EQ(fp4(ScaleRule::Rceil, amax), fp4(ScaleRule::RceilRecip, amax)) << amax;
    }
}

// AITER's Ceil (_f32_to_e8m0_ceil_impl of amax / 2^emax) on hand-computed
// maxima around the subnormal quotients, where it differs from
// clamp(ceil(log2 amax) - emax) + 127.
TEST(ScaleRules, CeilFollowsAitersQuotientBits) {
  EXPECT_EQ(fp4(ScaleRule::Ceil, 1.0f), 125);                    // 0.25: exponent 125
  EXPECT_EQ(fp4(ScaleRule::Ceil, std::ldexp(1.0f, -124)), 1);    // quotient 2^-126, normal
  EXPECT_EQ(fp4(ScaleRule::Ceil, std::ldexp(1.5f, -124)), 2);    // 1.5 * 2^-126: bumped
  EXPECT_EQ(fp4(ScaleRule::Ceil, std::ldexp(1.0f, -126)), 1);    // 2^-128: subnormal
  EXPECT_EQ(fp4(ScaleRule::Ceil, std::ldexp(1.0f, -125)), 1);    // 2^-127: subnormal
  EXPECT_EQ(fp4(ScaleRule::Ceil, f32FromBits(3)), 1);            // 0.75 ulp rounds up to 1 ulp
  EXPECT_EQ(fp4(ScaleRule::Ceil, f32FromBits(2)), 0);            // exactly half an ulp: even, 0
  EXPECT_EQ(fp4(ScaleRule::Ceil, f32FromBits(1)), 0);            // a quarter ulp: 0
  EXPECT_EQ(computeScaleByte(ScaleRule::Ceil, ElemFormat::E4M3, std::ldexp(1.0f, -120)), 1);
  EXPECT_EQ(computeScaleByte(ScaleRule::Ceil, ElemFormat::E4M3, f32FromBits(0x81)), 1);
  EXPECT_EQ(computeScaleByte(ScaleRule::Ceil, ElemFormat::E4M3, f32FromBits(0x80)), 0);
}

TEST(ScaleRules, SpecialBlocks) {
  struct Row {
    ScaleRule rule;
    uint8_t zero, subnormal, inf, nan;
  } table[] = {
      // Columns: amax = 0, subnormal, Inf, NaN (docs/numerics.md, table "special blocks").
      {ScaleRule::Floor, 0, 0, 0xFF, 0xFF},
      {ScaleRule::Even, 0, 0, 254, 0xFF},
      {ScaleRule::Rceil, 0, 1, 0xFF, 0xFF},
      {ScaleRule::RceilRecip, 0, 1, 0xFF, 0xFF},
      {ScaleRule::Ceil, 0, 1, 0xFF, 0xFF}, // AITER: the quotient amax/4 is subnormal
      {ScaleRule::Even126, 1, 1, 253, 1}, // NaN: torch's int32 add wraps the sign bit
      {ScaleRule::A6W6, 127, 0, 254, 254}, // AITER's packer: E = 255 -> 2^127
  };
  for (const Row &row : table) {
    SCOPED_TRACE(scaleRuleName(row.rule));
    EXPECT_EQ(fp4(row.rule, 0.0f), row.zero);
    EXPECT_EQ(fp4(row.rule, kSubnormal), row.subnormal);
    EXPECT_EQ(fp4(row.rule, kInf), row.inf);
    EXPECT_EQ(fp4(row.rule, f32FromBits(0x7FFFFFFF)), row.nan);
  }
  // A NaN with a small payload: Even126 follows the bits (exponent 255 -> 2^126).
  EXPECT_EQ(fp4(ScaleRule::Even126, kNaN), 253);
}

// Second definitions, written with long double comparisons instead of bits.
int largestPowerAtMost(long double v) { // max e with 2^e <= v, v > 0 finite
  int e = -200;
  while (std::ldexp(1.0L, e + 1) <= v)
    ++e;
  return e;
}
int smallestPowerAtLeast(long double v) {
  int e = -200;
  while (std::ldexp(1.0L, e) < v)
    ++e;
  return e;
}
uint8_t clampBiased(int s, int lo) { return uint8_t(std::max(lo, std::min(127, s)) + 127); }

uint8_t slowScale(ScaleRule rule, ElemFormat format, float amax) {
  const FormatInfo &info = formatInfo(format);
  const bool subnormal = amax < std::numeric_limits<float>::min();
  // Significand threshold above which EVEN rounds amax up a binade.
  const long double roundUp = 2.0L - std::ldexp(1.0L, -(info.mbits + 1));
  switch (rule) {
  case ScaleRule::Floor:
    return amax == 0 ? 0 : clampBiased(largestPowerAtMost(amax) - info.emax, -127);
  case ScaleRule::Ceil: {
    // The quotient amax / 2^emax, exact in long double, then rounded to f32
    // (RNE into the subnormals) by the conversion, as AITER divides.
    const float q = float((long double)amax / std::ldexp(1.0L, info.emax));
    return q == 0 ? 0 : uint8_t(std::max(1, smallestPowerAtLeast(q) + 127));
  }
  case ScaleRule::Rceil:
  case ScaleRule::RceilRecip: {
    float d = rule == ScaleRule::Rceil ? amax / float(info.maxValue)
                                       : amax * float(1.0 / info.maxValue);
    return d == 0 ? 0 : uint8_t(std::max(1, smallestPowerAtLeast(d) + 127));
  }
  case ScaleRule::Even:
  case ScaleRule::Even126: {
    int lo = rule == ScaleRule::Even ? -127 : -126;
    if (amax == 0 || subnormal)
      return clampBiased(-1000, lo);
    int e = largestPowerAtMost(amax);
    if (amax / std::ldexp(1.0L, e) >= roundUp)
      ++e;
    if (rule == ScaleRule::Even && e > 127)
      return 254; // rounded to Inf: floor(log2 Inf) clamps to 127
    return clampBiased(e - info.emax, lo);
  }
  case ScaleRule::A6W6:
    // floor(log2 amax) - emax as FLOOR, but zero means scale 1 and a
    // subnormal amax the smallest scale (the exponent field is 0).
    if (amax == 0)
      return 127;
    return subnormal ? 0 : clampBiased(largestPowerAtMost(amax) - info.emax, -127);
  }
  return 0;
}

TEST(ScaleRules, RandomFiniteBlockMaximaMatchTheSecondDefinition) {
  std::mt19937_64 rng(testing::testSeed("ScaleRules.RandomFinite"));
  std::uniform_int_distribution<uint32_t> bits(0, 0x7F7FFFFF);
  for (int i = 0; i < 20000; ++i) {
    float amax = f32FromBits(bits(rng));
    for (ElemFormat format : kAllElemFormats)
      for (ScaleRule rule : kAllScaleRules)
        ASSERT_EQ(computeScaleByte(rule, format, amax), slowScale(rule, format, amax))
            << scaleRuleName(rule) << " " << formatInfo(format).specName << " amax bits 0x"
            << std::hex << f32Bits(amax);
  }
}

TEST(ScaleRules, ContractOfEachRuleOnRandomNormalBlocks) {
  // FLOOR maps amax into [2^emax, 2^(emax+1)), RCEIL never clips, CEIL maps
  // into (2^(emax-1), 2^emax].
  std::mt19937_64 rng(testing::testSeed("ScaleRules.Contract"));
  std::uniform_real_distribution<double> logMag(-60, 60);
  for (int i = 0; i < 20000; ++i) {
    float amax = float(std::exp2(logMag(rng)));
    for (ElemFormat format : kAllElemFormats) {
      const FormatInfo &info = formatInfo(format);
      auto scaled = [&](ScaleRule rule) {
        return (long double)amax / std::ldexp(1.0L, computeScaleByte(rule, format, amax) - 127);
      };
      long double f = scaled(ScaleRule::Floor);
      ASSERT_GE(f, std::ldexp(1.0L, info.emax));
      ASSERT_LT(f, std::ldexp(1.0L, info.emax + 1));
      ASSERT_LE(scaled(ScaleRule::Rceil), info.maxValue);
      ASSERT_GT(scaled(ScaleRule::Rceil), info.maxValue / 2);
      ASSERT_LE(scaled(ScaleRule::Ceil), std::ldexp(1.0L, info.emax));
      ASSERT_GT(scaled(ScaleRule::Ceil), std::ldexp(1.0L, info.emax - 1));
    }
  }
}

TEST(ScaleRules, A6W6IsAiterA6W6ScaleByteForE2M3) {
  // The rule generalizes numerics/a6w6.h's a6w6ScaleByte (AITER's HIP
  // packer for E2M3) to every format's emax; for E2M3 they are one function.
  std::mt19937_64 rng(testing::testSeed("ScaleRules.A6W6IsAiterA6W6ScaleByteForE2M3"));
  for (int i = 0; i < 200000; ++i) {
    const float amax = std::fabs(f32FromBits(uint32_t(rng())));
    ASSERT_EQ(computeScaleByte(ScaleRule::A6W6, ElemFormat::E2M3, amax), a6w6ScaleByte(amax))
        << std::hexfloat << amax;
  }
  for (float amax : {0.0f, kSubnormal, kInf, 1.0f, 7.5f, 8.0f, 0x1.fffffep+127f})
    EXPECT_EQ(computeScaleByte(ScaleRule::A6W6, ElemFormat::E2M3, amax), a6w6ScaleByte(amax));
  // Hand-computed: floor(log2 amax) - 2 + 127.
  EXPECT_EQ(computeScaleByte(ScaleRule::A6W6, ElemFormat::E2M3, 7.5f), 127);  // 2 - 2
  EXPECT_EQ(computeScaleByte(ScaleRule::A6W6, ElemFormat::E2M3, 0.25f), 123); // -2 - 2
  EXPECT_EQ(computeScaleByte(ScaleRule::A6W6, ElemFormat::E2M3, 8.0f), 128);  // 3 - 2
  EXPECT_EQ(computeScaleByte(ScaleRule::A6W6, ElemFormat::E2M1, 8.0f), 128);  // fp4 emax 2 too
  EXPECT_EQ(computeScaleByte(ScaleRule::A6W6, ElemFormat::E4M3, 512.0f), 128); // 9 - 8
}

TEST(ScaleRules, NamesRoundTrip) {
  for (ScaleRule rule : kAllScaleRules)
    EXPECT_EQ(parseScaleRule(scaleRuleName(rule)), rule);
  EXPECT_FALSE(parseScaleRule("round").has_value());
}

} // namespace
} // namespace mxf
