//===- test_stochastic.cpp - v_prng_b32 and stochastic rounding -----------===//

#include "numerics/stochastic.h"

#include "test_seed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace mxf {
namespace {

TEST(Stochastic, PrngIsTheGfx950Lfsr) {
  EXPECT_EQ(prngNext(1), 2u);
  EXPECT_EQ(prngNext(0x40000000), 0x80000000u);
  EXPECT_EQ(prngNext(0x80000000), 197u);            // feedback taps 0xC5
  EXPECT_EQ(prngNext(0xFFFFFFFF), 0xFFFFFFFEu ^ 197u);
  EXPECT_EQ(prngNext(0), 0u);                         // the LFSR's fixed point
}

TEST(Stochastic, ZeroRandomTruncatesAndFullRandomRoundsUp) {
  // 1.25 lies halfway between fp4 1.0 (code 2) and 1.5 (code 3).
  EXPECT_EQ(encodeElemSr(ElemFormat::E2M1, 1.25f, 127, 0), 2);
  EXPECT_EQ(encodeElemSr(ElemFormat::E2M1, 1.25f, 127, 0xFFFFFFFF), 3);
  EXPECT_EQ(encodeElemSr(ElemFormat::E2M1, -1.25f, 127, 0xFFFFFFFF), 0xB);
  // Values on the grid never move, whatever the random word.
  for (uint32_t r : {0u, 1u, 0x80000000u, 0xFFFFFFFFu})
    for (uint8_t code = 0; code < 16; ++code) {
      float v = float(decodeElem(ElemFormat::E2M1, code));
      EXPECT_EQ(encodeElemSr(ElemFormat::E2M1, v, 127, r), code) << v << " " << r;
    }
  // Saturation and specials as in round-to-nearest.
  EXPECT_EQ(encodeElemSr(ElemFormat::E2M1, 100.0f, 127, 0xFFFFFFFF), 7);
  EXPECT_EQ(encodeElemSr(ElemFormat::E2M1, NAN, 127, 0), 7);
  EXPECT_EQ(encodeElemSr(ElemFormat::E2M1, 1.0f, 255, 0), 7);
  EXPECT_EQ(encodeElemSr(ElemFormat::E2M1, -0.0f, 127, 0xFFFFFFFF), 8);
}

TEST(Stochastic, RoundsUpWithProbabilityEqualToTheFraction) {
  // Sweep the random bits that matter (the top 22 for fp4) in steps: the
  // fraction of round-ups equals the position between the two grid points.
  const float values[] = {1.125f, 1.25f, 1.375f, 2.2f, 0.3f, 5.5f};
  for (float v : values) {
    const int kSteps = 1 << 14;
    int ups = 0;
    for (int i = 0; i < kSteps; ++i) {
      uint32_t r = uint32_t(i) << 18;
      uint8_t code = encodeElemSr(ElemFormat::E2M1, v, 127, r);
      ups += float(decodeElem(ElemFormat::E2M1, code)) > v ? 1 : 0;
    }
    double lower = 0, upper = 0;
    for (uint8_t c = 0; c < 8; ++c) {
      double g = decodeElem(ElemFormat::E2M1, c);
      if (g <= v)
        lower = g;
      if (g > v && upper == 0)
        upper = g;
    }
    double expected = (v - lower) / (upper - lower);
    EXPECT_NEAR(double(ups) / kSteps, expected, 1.0 / kSteps + 1e-6) << v;
  }
}

TEST(Stochastic, UnbiasedOnAverageInEveryFormat) {
  std::mt19937 rng(uint32_t(testing::testSeed("Stochastic.Unbiased")));
  std::uniform_real_distribution<float> value(0.1f, 5.0f);
  for (ElemFormat format : kAllElemFormats)
    for (int trial = 0; trial < 20; ++trial) {
      float v = value(rng);
      double sum = 0;
      const int kDraws = 20000;
      for (int i = 0; i < kDraws; ++i)
        sum += decodeElem(format, encodeElemSr(format, v, 127, rng()));
      // Grid spacing at v is at most 1 (fp4 between 4 and 6: 2); the mean of
      // kDraws Bernoulli draws is within 5 sigma of v with overwhelming odds.
      EXPECT_NEAR(sum / kDraws, v, 5 * 2 * 0.5 / std::sqrt(kDraws)) << formatInfo(format).specName;
    }
}

TEST(Stochastic, ElementRandomWordsPairUp) {
  for (uint64_t pair : {0ull, 1ull, 12345ull, (1ull << 40) + 3}) {
    uint32_t even = srRandomForElement(7, 2 * pair), odd = srRandomForElement(7, 2 * pair + 1);
    EXPECT_EQ(odd, prngNext(even));
  }
  EXPECT_NE(srRandomForElement(7, 0), srRandomForElement(8, 0)); // the seed matters
  EXPECT_NE(srRandomForElement(7, 0), srRandomForElement(7, 2));
}

} // namespace
} // namespace mxf
