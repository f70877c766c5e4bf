//===- test_e2m3_recipe.cpp - quant_weight reproduces seed 003 ------------===//
//
// Seed 003 quantizes weights to MXFP6 E2M3 with a torch recipe
// (round_e2m3). quant_weight with fmt=fp6_e2m3, scale=even126 must give
// codes and scales whose dequantized bf16 values equal the recipe's output
// bit for bit. The recipe is transcribed here operation by operation.
//
//===----------------------------------------------------------------------===//

#include "numerics/formats.h"
#include "numerics/quantize.h"
#include "numerics/reference.h"
#include "test_seed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace mxf {
namespace {

/// torch.round: round half to even.
float torchRound(float v) { return std::nearbyint(v); }

/// One row of seed 003's round_e2m3, in f32 as torch computes it; bf16 out.
std::vector<uint16_t> roundE2m3Recipe(const std::vector<uint16_t> &row) {
  std::vector<uint16_t> out(row.size());
  for (size_t b = 0; b < row.size(); b += 32) {
    float amax = 0;
    for (size_t i = b; i < b + 32; ++i)
      amax = std::max(amax, std::fabs(bf16ToF32(row[i])));
    int32_t bits = int32_t(f32Bits(amax));
    int32_t exp = int32_t(((uint32_t(bits) + 0x80000u) & 0x7F800000u) >> 23) - 127 - 2;
    float scale = std::exp2(float(std::min(127, std::max(-126, exp))));
    for (size_t i = b; i < b + 32; ++i) {
      float v = bf16ToF32(row[i]);
      float a = std::fabs(v) / scale;
      float q = a < 2.0f ? torchRound(a * 8.0f) / 8.0f
                : a < 4.0f ? torchRound(a * 4.0f) / 4.0f
                           : torchRound(a * 2.0f) / 2.0f;
      q = std::min(q, 7.5f);
      float sign = v > 0 ? 1.0f : v < 0 ? -1.0f : 0.0f; // torch.sign
      out[i] = f32ToBf16(sign * q * scale);
    }
  }
  return out;
}

std::vector<uint16_t> quantWeightDequantBf16(const std::vector<uint16_t> &w, size_t n, size_t k) {
  RotateQuantProblem problem;
  problem.k = k;
  problem.quant.format = ElemFormat::E2M3;
  problem.quant.rule = ScaleRule::Even126;
  Result<QuantizedRows> q = quantWeight(problem, WeightLayout::Plain, w.data(), n, nullptr);
  EXPECT_TRUE(q.ok()) << q.error();
  std::vector<float> deq = dequantizeRows(q.value());
  std::vector<uint16_t> out(deq.size());
  for (size_t i = 0; i < deq.size(); ++i)
    out[i] = f32ToBf16(deq[i]);
  return out;
}

void expectSameAsRecipe(const std::vector<uint16_t> &w, size_t n, size_t k) {
  std::vector<uint16_t> ours = quantWeightDequantBf16(w, n, k);
  for (size_t r = 0; r < n; ++r) {
    std::vector<uint16_t> row(w.begin() + long(r * k), w.begin() + long((r + 1) * k));
    std::vector<uint16_t> recipe = roundE2m3Recipe(row);
    for (size_t i = 0; i < k; ++i) {
      // Bit for bit, signed zeros included: torch.sign(-0.0) is 0, so a -0.0
      // weight comes back +0, and so does ours (numerics elementToEncode).
      uint16_t input = row[i];
      ASSERT_EQ(ours[r * k + i], recipe[i])
          << "row " << r << " col " << i << " input 0x" << std::hex << input;
    }
  }
}

// The codes themselves: under even126 a -0.0 weight is code 0x00 and a
// negative weight that rounds to zero keeps its sign (0x20); under every
// other rule -0.0 keeps its sign.
TEST(E2m3Recipe, SignedZerosFollowTorchSign) {
  std::vector<float> block(32, 1.0f);
  block[0] = -0.0f;
  block[1] = -1e-3f; // rounds to zero at the scale of 1.0
  for (ScaleRule rule : kAllScaleRules) {
    QuantConfig config;
    config.format = ElemFormat::E2M3;
    config.rule = rule;
    uint8_t codes[32], scale;
    quantizeRow(config, block.data(), 32, 0, codes, &scale);
    EXPECT_EQ(codes[0], rule == ScaleRule::Even126 ? 0x00 : 0x20) << scaleRuleName(rule);
    EXPECT_EQ(codes[1], 0x20) << scaleRuleName(rule);
  }
}

TEST(E2m3Recipe, RandomWeightsOfSeveralDistributions) {
  std::mt19937_64 rng(testing::testSeed("E2m3Recipe.Random"));
  std::normal_distribution<float> normal;
  const size_t n = 64, k = 256;
  for (int distribution = 0; distribution < 5; ++distribution) {
    std::vector<uint16_t> w(n * k);
    for (size_t i = 0; i < w.size(); ++i) {
      float v = normal(rng);
      switch (distribution) {
      case 1: v *= (i % 32 == 7) ? 300.0f : 0.01f; break; // one outlier per block
      case 2: v = (i / 32) % 3 == 0 ? 0.0f : v; break;     // all-zero blocks
      case 3: v *= 1e-38f; break;                           // subnormal blocks
      case 4: v = float(int(v * 4)) / 4 * 7.5f; break;      // values on grid boundaries
      }
      w[i] = f32ToBf16(v);
    }
    expectSameAsRecipe(w, n, k);
  }
}

TEST(E2m3Recipe, EveryBf16PatternInsideARandomBlock) {
  // Each finite bf16 value sits in a block with random companions, so it is
  // quantized at many different scales across the sweep.
  std::mt19937_64 rng(testing::testSeed("E2m3Recipe.EveryBf16"));
  std::normal_distribution<float> normal;
  std::vector<uint16_t> w;
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    float v = bf16ToF32(uint16_t(bits));
    if (!std::isfinite(v))
      continue;
    uint16_t companions[31];
    float spread = std::exp2(float(int(rng() % 40) - 20));
    for (uint16_t &c : companions)
      c = f32ToBf16(normal(rng) * spread * std::fabs(v));
    w.push_back(uint16_t(bits));
    w.insert(w.end(), companions, companions + 31);
  }
  size_t k = 32, n = w.size() / k;
  expectSameAsRecipe(w, n, k);
}

} // namespace
} // namespace mxf
