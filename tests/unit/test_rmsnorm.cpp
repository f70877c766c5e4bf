//===- test_rmsnorm.cpp - numerics' residual add + RMSNorm ---------------===//
//
// The front end of rmsnorm_rotate_quant (numerics/rmsnorm.h): the sum of
// squares in its defined order (pinned on a row where every other order
// gives another value), each step's rounding, and the whole against a
// float64 RMSNorm within the bound the roundings allow.
//
//===----------------------------------------------------------------------===//

#include "numerics/formats.h"
#include "numerics/rmsnorm.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace mxf {
namespace {

uint16_t bf16(float value) { return f32ToBf16(value); }

/// A row where the order decides: channel 0 squares to 2^24, the other 31
/// channels to 1. At 2^24 the f32 spacing is 2, so 2^24 + 1 rounds back to
/// 2^24 (a tie, to even): group 0's seven ones are lost one by one, groups
/// 1-3 sum to 8 each without loss, and the block's partial (q0 + q1) +
/// (q2 + q3) keeps their 24: 2^24 + 24. Adding the 32 squares one by one
/// loses all 31 ones (2^24); float64 keeps them (2^24 + 31).
std::vector<uint16_t> orderDecidingRow() {
  std::vector<uint16_t> z(32, bf16(1.0f));
  z[0] = bf16(4096.0f);
  return z;
}

TEST(RmsNorm, SumOfSquaresFollowsTheLaneOrder) {
  const std::vector<uint16_t> z = orderDecidingRow();
  EXPECT_EQ(sumOfSquaresF32(z.data(), 32), 16777216.0f + 24.0f);
  // Negative controls: the orders a kernel might drift to give other values.
  float sequential = 0.0f;
  for (uint16_t value : z)
    sequential += bf16ToF32(value) * bf16ToF32(value);
  EXPECT_EQ(sequential, 16777216.0f);
  double exact = 0.0;
  for (uint16_t value : z)
    exact += double(bf16ToF32(value)) * bf16ToF32(value);
  EXPECT_EQ(exact, 16777216.0 + 31.0);
  EXPECT_NE(sumOfSquaresF32(z.data(), 32), float(exact));
}

TEST(RmsNorm, BlocksAddInAscendingOrder) {
  // Block 0 is 2^24 (as above, with every other channel 0), blocks 1 and 2
  // are 1 each: ascending from block 0 loses both (2^24 + 1 ties to 2^24,
  // twice); adding blocks 1 and 2 first would keep them (2^24 + 2).
  std::vector<uint16_t> z(96, bf16(0.0f));
  z[0] = bf16(4096.0f);
  z[32] = bf16(1.0f);
  z[64] = bf16(1.0f);
  EXPECT_EQ(sumOfSquaresF32(z.data(), 96), 16777216.0f);
  EXPECT_NE((1.0f + 1.0f) + 16777216.0f, 16777216.0f) << "the other order differs";
}

TEST(RmsNorm, EachStepRoundsOnceAsDocumented) {
  // Residual add: 1 + 2^-8 is a tie between bf16 1 and 1 + 2^-7: to even.
  const uint16_t x[2] = {bf16(1.0f), bf16(3.0f)};
  const uint16_t r[2] = {bf16(0.00390625f), bf16(0.5f)};
  uint16_t z[2];
  residualAddRow(x, r, 2, z);
  EXPECT_EQ(bf16ToF32(z[0]), 1.0f);
  EXPECT_EQ(bf16ToF32(z[1]), 3.5f);
  residualAddRow(x, nullptr, 2, z);
  EXPECT_EQ(z[0], x[0]);
  EXPECT_EQ(z[1], x[1]);

  // s = 1 / sqrt(S / K + eps), each operation one f32 rounding.
  EXPECT_EQ(rmsScaleF32(32.0f, 32, 0.0f), 1.0f);
  EXPECT_EQ(rmsScaleF32(128.0f, 32, 0.0f), 0.5f);
  const float eps = 1e-6f;
  const float expected = 1.0f / std::sqrt(1.0f + eps);
  EXPECT_EQ(rmsScaleF32(32.0f, 32, eps), expected);
  EXPECT_LT(expected, 1.0f);

  // y = bf16(bf16(z * s) * g): z = 1, s just below 1 rounds to bf16 1, so y = g.
  std::vector<uint16_t> ones(32, bf16(1.0f)), gain(32);
  for (size_t i = 0; i < gain.size(); ++i)
    gain[i] = bf16(0.25f * float(i + 1));
  const RmsNormRows rows = rmsNormRows(ones.data(), nullptr, gain.data(), eps, 1, 32);
  EXPECT_EQ(rows.y, gain);
  EXPECT_EQ(rows.z, ones);
}

TEST(RmsNorm, AgreesWithFloat64WithinTheRoundingsBound) {
  std::mt19937_64 rng(testing::testSeed("RmsNorm.AgreesWithFloat64WithinTheRoundingsBound"));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const size_t m = 5, k = 4096;
  std::vector<uint16_t> x(m * k), r(m * k), gamma(k);
  for (uint16_t &value : x)
    value = bf16(normal(rng) * 3.0f);
  for (uint16_t &value : r)
    value = bf16(normal(rng));
  for (uint16_t &value : gamma)
    value = bf16(1.0f + 0.1f * normal(rng));
  const float eps = 1e-5f;
  const RmsNormRows rows = rmsNormRows(x.data(), r.data(), gamma.data(), eps, m, k);
  size_t checked = 0;
  for (size_t row = 0; row < m; ++row) {
    double squares = 0.0;
    for (size_t i = 0; i < k; ++i) {
      const double z = bf16ToF32(rows.z[row * k + i]);
      EXPECT_EQ(rows.z[row * k + i],
                bf16(bf16ToF32(x[row * k + i]) + bf16ToF32(r[row * k + i])));
      squares += z * z;
    }
    // The f32 sum: at most k * 2^-24 relative (a loose bound for k terms).
    const float sum = sumOfSquaresF32(rows.z.data() + row * k, k);
    EXPECT_LE(std::abs(sum - squares), squares * double(k) * 0x1p-24) << "row " << row;
    const double s = 1.0 / std::sqrt(squares / double(k) + eps);
    for (size_t i = 0; i < k; ++i) {
      const double exact = bf16ToF32(rows.z[row * k + i]) * s * bf16ToF32(gamma[i]);
      const double got = bf16ToF32(rows.y[row * k + i]);
      // Two bf16 roundings (2^-8 relative each) and s's few f32 ulps.
      EXPECT_LE(std::abs(got - exact), std::abs(exact) * (2 * 0x1p-8 + 0x1p-16) + 1e-30)
          << "row " << row << " channel " << i;
      ++checked;
    }
  }
  EXPECT_EQ(checked, m * k);
}

} // namespace
} // namespace mxf
