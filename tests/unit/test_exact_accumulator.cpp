//===- test_exact_accumulator.cpp - Exact sum, one rounding ---------------===//

#include "numerics/exact_accumulator.h"

#include "numerics/formats.h"
#include "test_seed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace mxf {
namespace {

float sumOf(std::initializer_list<double> terms) {
  ExactAccumulator acc;
  for (double t : terms)
    acc.add(t);
  return acc.roundToF32();
}

TEST(ExactAccumulator, CancellationLosesNothing) {
  EXPECT_EQ(sumOf({1e30, 1.0, -1e30}), 1.0f);
  EXPECT_EQ(sumOf({0x1p-149, 0x1p127, -0x1p127}), 0x1p-149f);
  EXPECT_EQ(sumOf({0x1p1000, 3.0, -0x1p1000}), 3.0f); // beyond f32 in between
}

TEST(ExactAccumulator, RoundsOnceToNearestEven) {
  EXPECT_EQ(sumOf({1.0, 0x1p-24}), 1.0f);                       // tie -> even
  EXPECT_EQ(sumOf({1.0, 0x1p-24, 0x1p-80}), 1.0f + 0x1p-23f);   // sticky breaks the tie
  EXPECT_EQ(sumOf({1.0, 0x1p-23, 0x1p-24}), 1.0f + 0x1p-22f);   // odd + tie -> up
  // Two roundings would give 1 + 2^-23 here ((1 + 2^-24) + 2^-24 in f32 is 1).
  EXPECT_EQ(sumOf({1.0, 0x1p-24, 0x1p-24}), 1.0f + 0x1p-23f);
  EXPECT_EQ(sumOf({-1.0, -0x1p-24, -0x1p-80}), -(1.0f + 0x1p-23f));
}

TEST(ExactAccumulator, SubnormalsOverflowAndSpecials) {
  EXPECT_EQ(sumOf({0x1p-150, 0x1p-151}), 0x1p-149f);  // 0.75 ulp rounds up
  EXPECT_EQ(sumOf({0x1p-150}), 0.0f);                 // tie to even (0)
  EXPECT_EQ(sumOf({0x1.8p-149, 0}), 0x1p-148f);       // 1.5 ulp -> 2 ulp
  EXPECT_EQ(sumOf({0x1p127, 0x1p127}), INFINITY);
  EXPECT_EQ(sumOf({0x1.fffffefp127}), 0x1.fffffep127f); // below the overflow tie
  EXPECT_EQ(sumOf({0x1.ffffffp127}), INFINITY);          // at the tie: rounds to 2^128
  EXPECT_TRUE(std::isnan(sumOf({INFINITY, -INFINITY})));
  EXPECT_TRUE(std::isnan(sumOf({1.0, NAN})));
  EXPECT_EQ(sumOf({-INFINITY, 1e300}), -INFINITY);
  EXPECT_TRUE(std::signbit(sumOf({-0.0, -0.0})));
  EXPECT_FALSE(std::signbit(sumOf({-0.0, 0.0})));
  EXPECT_FALSE(std::signbit(sumOf({1.0, -1.0})));
  EXPECT_EQ(sumOf({std::numeric_limits<double>::denorm_min(), 1.0}), 1.0f);
}

TEST(ExactAccumulator, RandomSumsMatchOneRoundingOfAnExactDouble) {
  // Terms are small integers times a shared power of two, so their exact sum
  // fits in a double's 53 bits and float(double) is then the one rounding.
  std::mt19937_64 rng(testing::testSeed("ExactAccumulator.RandomSums"));
  std::uniform_int_distribution<int64_t> mantissa(-(int64_t(1) << 40), int64_t(1) << 40);
  std::uniform_int_distribution<int> exponent(-170, 90);
  for (int trial = 0; trial < 20000; ++trial) {
    int e = exponent(rng);
    ExactAccumulator acc;
    int64_t total = 0;
    for (int i = 0; i < 32; ++i) {
      int64_t m = mantissa(rng) >> (rng() % 40);
      total += m;
      acc.add(std::ldexp(double(m), e));
    }
    float expected = float(std::ldexp(double(total), e));
    ASSERT_EQ(f32Bits(acc.roundToF32()), f32Bits(expected)) << "trial " << trial;
  }
}

TEST(ExactAccumulator, FusedSumStartsFromTheAccumulator) {
  const double terms[] = {0x1p-24, 0x1p-24};
  EXPECT_EQ(fusedSumF32(1.0f, terms, 2), 1.0f + 0x1p-23f);
  EXPECT_EQ(fusedSumF32(-2.0f, terms, 0), -2.0f);
}

} // namespace
} // namespace mxf

namespace mxf {
namespace {

TEST(ExactAccumulator, FusedSumFastPathAgreesWithTheAccumulator) {
  // fusedSumF32 takes a plain double sum when that is provably exact; it
  // must agree with the 2,176-bit accumulator everywhere, on both sides of
  // the 47-bit window and with zeros, subnormals and cancellation.
  std::mt19937_64 rng(testing::testSeed("ExactAccumulator.FastPath"));
  std::uniform_int_distribution<int> spread(0, 80), count(0, 40), kind(0, 9);
  std::normal_distribution<double> normal;
  size_t checked = 0;
  for (int trial = 0; trial < 50000; ++trial) {
    const int base = int(rng() % 300) - 170, width = spread(rng);
    std::vector<double> terms(size_t(count(rng)));
    for (double &t : terms) {
      switch (kind(rng)) {
      case 0: t = 0.0; break;
      case 1: t = -0.0; break;
      default:
        // A bf16-sized significand, as MFMA products of bf16 have.
        t = std::ldexp(double(bf16ToF32(f32ToBf16(float(normal(rng))))),
                       base + int(rng() % uint64_t(width + 1)));
      }
    }
    float acc = kind(rng) == 0 ? -0.0f : float(std::ldexp(normal(rng), base + 20));
    ExactAccumulator exact;
    exact.add(double(acc));
    for (double t : terms)
      exact.add(t);
    ASSERT_EQ(f32Bits(fusedSumF32(acc, terms.data(), terms.size())), f32Bits(exact.roundToF32()))
        << "trial " << trial;
    ++checked;
  }
  EXPECT_EQ(checked, 50000u);
}

} // namespace
} // namespace mxf
