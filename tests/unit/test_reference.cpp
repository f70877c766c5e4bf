//===- test_reference.cpp - The four reference kernel families ------------===//

#include "numerics/reference.h"

#include "numerics/formats.h"
#include "numerics/packing.h"
#include "test_seed.h"

#include <gtest/gtest.h>

#include <numeric>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace mxf {
namespace {

std::vector<uint16_t> randomBf16(size_t n, std::mt19937_64 &rng, float sigma = 1.0f) {
  std::normal_distribution<float> normal(0.0f, sigma);
  std::vector<uint16_t> out(n);
  for (uint16_t &v : out)
    v = f32ToBf16(normal(rng));
  return out;
}

RotateQuantProblem problemFor(size_t k, RotationKind kind, int rs) {
  RotateQuantProblem p;
  p.k = k;
  p.rotation = {kind, rs, 32};
  return p;
}

TEST(Reference, HandMadePlainQuantization) {
  // One block: amax 6 -> EVEN scale byte 127, codes are the fp4 values.
  std::vector<uint16_t> x(32, f32ToBf16(0.0f));
  const float values[] = {0.5f, -1.0f, 1.5f, 6.0f, -0.25f, 2.4f, 3.6f, -5.0f};
  for (size_t i = 0; i < 8; ++i)
    x[i] = f32ToBf16(values[i]);
  Result<QuantizedRows> q = rotateQuant(problemFor(32, RotationKind::None, 0), x.data(), 1, nullptr);
  ASSERT_TRUE(q.ok()) << q.error();
  ASSERT_EQ(q.value().scales, std::vector<uint8_t>{127});
  // codes: 0.5->1, -1->0xA, 1.5->3, 6->7, -0.25->0x8 (tie to 0, sign kept),
  // 2.4->4 (nearer 2), 3.6->6 (nearer 4), -5->0xE (tie between 4 and 6: 4)
  const uint8_t expected[8] = {0x1, 0xA, 0x3, 0x7, 0x8, 0x4, 0x6, 0xE};
  std::vector<uint8_t> codes(32);
  unpackCodes(ElemFormat::E2M1, q.value().codes.data(), 32, codes.data());
  for (size_t i = 0; i < 8; ++i)
    EXPECT_EQ(codes[i], expected[i]) << i;
  for (size_t i = 8; i < 32; ++i)
    EXPECT_EQ(codes[i], 0) << i;
}

TEST(Reference, IdentityLearnedRotationEqualsNoRotation) {
  std::mt19937_64 rng(testing::testSeed("Reference.Identity"));
  for (int rs : kSupportedRotationSizes) {
    const size_t k = 512, m = 3;
    std::vector<uint16_t> x = randomBf16(m * k, rng);
    std::vector<uint16_t> identity(size_t(rs) * rs, 0);
    for (int i = 0; i < rs; ++i)
      identity[size_t(i) * rs + i] = f32ToBf16(1.0f);
    auto plain = rotateQuant(problemFor(k, RotationKind::None, 0), x.data(), m, nullptr);
    auto learned = rotateQuant(problemFor(k, RotationKind::Learned, rs), x.data(), m, identity.data());
    ASSERT_TRUE(plain.ok() && learned.ok());
    EXPECT_EQ(plain.value().codes, learned.value().codes) << rs;
    EXPECT_EQ(plain.value().scales, learned.value().scales) << rs;
  }
}

TEST(Reference, RotationReducesQuantizationErrorOnOutliers) {
  std::mt19937_64 rng(testing::testSeed("Reference.Outliers"));
  const size_t k = 4096, m = 4;
  std::vector<uint16_t> x = randomBf16(m * k, rng, 0.05f);
  for (size_t i = 13; i < x.size(); i += 61) // channel outliers, as in LLM activations
    x[i] = f32ToBf16(bf16ToF32(x[i]) + 20.0f);
  auto error = [&](RotationKind kind, int rs) {
    RotateQuantProblem p = problemFor(k, kind, rs);
    auto q = rotateQuant(p, x.data(), m, nullptr);
    EXPECT_TRUE(q.ok());
    std::vector<float> deq = dequantizeRows(q.value()), rotated(k);
    double err = 0, ref = 0;
    for (size_t r = 0; r < m; ++r) {
      rotateForQuant(p, x.data() + r * k, nullptr, rotated.data());
      for (size_t c = 0; c < k; ++c) {
        err += std::pow(deq[r * k + c] - rotated[c], 2);
        ref += std::pow(rotated[c], 2);
      }
    }
    return std::sqrt(err / ref);
  };
  double rtn = error(RotationKind::None, 0), rotated = error(RotationKind::Hadamard, 64);
  EXPECT_LT(rotated, rtn);
}

TEST(Reference, ShuffledScalesAreTheShuffleOfPlainScales) {
  std::mt19937_64 rng(testing::testSeed("Reference.Shuffled"));
  const size_t k = 1024, m = 5;
  std::vector<uint16_t> x = randomBf16(m * k, rng);
  RotateQuantProblem p = problemFor(k, RotationKind::Hadamard, 128);
  auto plain = rotateQuant(p, x.data(), m, nullptr);
  p.scaleLayout = ScaleLayout::A4W4Shuffle;
  auto shuffled = rotateQuant(p, x.data(), m, nullptr);
  ASSERT_TRUE(plain.ok() && shuffled.ok());
  EXPECT_EQ(shuffled.value().scaleShape.rows, 256u);
  EXPECT_EQ(shuffled.value().scaleShape.cols, 32u);
  EXPECT_EQ(shuffled.value().scales, shuffleScalesA4W4(plain.value().scales.data(), m, k / 32, 256));
  EXPECT_EQ(shuffled.value().codes, plain.value().codes);
}

TEST(Reference, Bf16IntermediateOnlyChangesRoundingBoundaries) {
  std::mt19937_64 rng(testing::testSeed("Reference.Inter"));
  const size_t k = 4096, m = 8;
  std::vector<uint16_t> x = randomBf16(m * k, rng);
  RotateQuantProblem p = problemFor(k, RotationKind::HadamardButterfly, 32);
  auto f32 = rotateQuant(p, x.data(), m, nullptr);
  p.inter = Intermediate::Bf16;
  auto bf16 = rotateQuant(p, x.data(), m, nullptr);
  ASSERT_TRUE(f32.ok() && bf16.ok());
  std::vector<float> a = dequantizeRows(f32.value()), b = dequantizeRows(bf16.value());
  size_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i)
    differ += a[i] != b[i];
  // Seed 004 measured about 0.07% of elements; allow up to 1%.
  EXPECT_LT(double(differ) / a.size(), 0.01);
}

TEST(Reference, StochasticRoundingIsSeededAndUnbiased) {
  std::mt19937_64 rng(testing::testSeed("Reference.Sr"));
  const size_t k = 2048, m = 4;
  std::vector<uint16_t> x = randomBf16(m * k, rng);
  RotateQuantProblem p = problemFor(k, RotationKind::None, 0);
  p.quant.rounding = Rounding::Sr;
  p.quant.seed = 1234;
  auto a = rotateQuant(p, x.data(), m, nullptr), b = rotateQuant(p, x.data(), m, nullptr);
  p.quant.seed = 1235;
  auto c = rotateQuant(p, x.data(), m, nullptr);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a.value().codes, b.value().codes);
  EXPECT_NE(a.value().codes, c.value().codes);
  EXPECT_EQ(a.value().scales, c.value().scales); // scales never depend on rounding
}

TEST(Reference, EveryFormatPacksItsRows) {
  std::mt19937_64 rng(testing::testSeed("Reference.Formats"));
  const size_t k = 256, m = 2;
  std::vector<uint16_t> x = randomBf16(m * k, rng);
  for (ElemFormat format : kAllElemFormats) {
    RotateQuantProblem p = problemFor(k, RotationKind::Hadamard, 64);
    p.quant.format = format;
    auto q = rotateQuant(p, x.data(), m, nullptr);
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(q.value().codes.size(), m * packedBytes(format, k));
    std::vector<float> deq = dequantizeRows(q.value()), y(k);
    for (size_t r = 0; r < m; ++r) {
      rotateForQuant(p, x.data() + r * k, nullptr, y.data());
      for (size_t c = 0; c < k; ++c) {
        double scale = e8m0Value(q.value().scales[r * (k / 32) + c / 32]);
        // Within half a top-binade step of the input clamped to +-max (EVEN
        // may clip a block's largest values).
        const FormatInfo &info = formatInfo(format);
        double step = scale * std::ldexp(1.0, info.emax - info.mbits);
        double limit = info.maxValue * scale;
        double clamped = std::max(-limit, std::min(limit, double(y[c])));
        ASSERT_LE(std::fabs(deq[r * k + c] - clamped), step / 2) << info.specName;
      }
    }
  }
}

MoeProblem moeProblemFor(RotateQuantProblem quant, MoeRows rows, int topk, int experts,
                         int block) {
  MoeProblem p;
  p.quant = quant;
  p.quant.quant.rule = ScaleRule::Rceil; // AITER's MoE default
  p.rows = rows;
  p.topk = topk;
  p.experts = experts;
  p.block = block;
  return p;
}

/// AITER's torch reference of sorted MXFP4 scales (op_tests/
/// test_moe_sorting_mxfp4.py, run_torch), written from its tensor ops:
/// entries past num_valid become the bare token count; a row is the scale
/// row of token (stage 1) or token * topk + slot (stage 2); sentinel rows
/// are 0; rows pad to 32 with 0; then view(G, 2, 16, cols/8, 2, 4) and
/// permute(0, 3, 5, 2, 4, 1). Needs cols % 8 == 0, as AITER's does.
std::vector<uint8_t> aiterSortedScales(const std::vector<uint8_t> &rowScales, size_t cols,
                                       std::vector<int32_t> sortedIds, int32_t numValid,
                                       int32_t tokens, int topk, bool stage2) {
  for (size_t i = size_t(numValid); i < sortedIds.size(); ++i)
    sortedIds[i] = tokens;
  const size_t rows = (sortedIds.size() + 31) / 32 * 32;
  std::vector<uint8_t> gathered(rows * cols, 0);
  for (size_t i = 0; i < sortedIds.size(); ++i) {
    const int32_t token = sortedIds[i] & 0xFFFFFF, slot = sortedIds[i] >> 24;
    if (token == tokens)
      continue; // scale[mask] = 0
    const size_t row = stage2 ? size_t(token) * topk + size_t(slot) : size_t(token);
    std::copy_n(rowScales.begin() + long(row * cols), cols, gathered.begin() + long(i * cols));
  }
  std::vector<uint8_t> out(rows * cols);
  const size_t d = cols / 8;
  size_t flat = 0;
  for (size_t g = 0; g < rows / 32; ++g)          // dim 0
    for (size_t c8 = 0; c8 < d; ++c8)             // dim 3
      for (size_t c4 = 0; c4 < 4; ++c4)           // dim 5
        for (size_t r16 = 0; r16 < 16; ++r16)     // dim 2
          for (size_t c2 = 0; c2 < 2; ++c2)       // dim 4
            for (size_t half = 0; half < 2; ++half) // dim 1
              out[flat++] = gathered[(g * 32 + half * 16 + r16) * cols + c8 * 8 + c2 * 4 + c4];
  return out;
}

// Every byte of every output written out, stage 1: K=32 (one block),
// rot=none, rceil. Token 0 is all 1.0: amax 1, d = 1/6 = 1.33 * 2^-3, so
// byte 125 (2^-2) and every code 4.0 = fp4 0x6. Token 1 is all -2.0: byte
// 126 (2^-1), codes -4.0 = 0xE. Routing token 0 -> expert 1, token 1 ->
// expert 0 (topk 1, E 2, block 16): capacity 2 + 32 - 1 = 33, 3 blocks,
// sentinel (1 << 24) | 2.
TEST(Reference, MoeHandMadeStage1EveryByte) {
  std::vector<uint16_t> x(64);
  std::fill_n(x.begin(), 32, f32ToBf16(1.0f));
  std::fill_n(x.begin() + 32, 32, f32ToBf16(-2.0f));
  const int32_t ids[] = {1, 0};
  const float weights[] = {0.5f, 0.25f};
  MoeProblem p = moeProblemFor(problemFor(32, RotationKind::None, 0), MoeRows::Tokens, 1, 2, 16);
  auto moe = rotateQuantMoe(p, x.data(), 2, ids, weights, nullptr, nullptr);
  ASSERT_TRUE(moe.ok()) << moe.error();
  const MoeQuantized &out = moe.value();
  const int32_t S = 0x01000002;
  std::vector<int32_t> sortedIds(33, S);
  sortedIds[0] = 0x00000001;  // expert 0: token 1
  sortedIds[16] = 0x00000000; // expert 1: token 0
  EXPECT_EQ(out.sorting.sortedIds, sortedIds);
  std::vector<float> sortedWeights(33, 0.0f);
  sortedWeights[0] = 0.25f;
  sortedWeights[16] = 0.5f;
  EXPECT_EQ(out.sorting.sortedWeights, sortedWeights);
  EXPECT_EQ(out.sorting.sortedExpertIds, (std::vector<int32_t>{0, 1, -1}));
  EXPECT_EQ(out.sorting.numValidIds[0], 32);
  EXPECT_EQ(out.sorting.numValidIds[1], 2);
  std::vector<uint8_t> codes(16, 0x66);
  codes.resize(32, 0xEE);
  EXPECT_EQ(out.quantized.codes, codes);
  std::vector<uint8_t> scales(33, kMoeScalePadByte);
  scales[0] = 126;  // token 1
  scales[16] = 125; // token 0
  EXPECT_EQ(out.quantized.scales, scales);
  EXPECT_EQ(out.quantized.scaleShape.rows, 33u);
  EXPECT_EQ(out.quantized.scaleShape.cols, 1u);
  EXPECT_EQ(out.scaleBytesWritten, 32u); // num_valid rows of one byte
  EXPECT_EQ(kMoeScalePadByte, 0);
}

// Stage 2, every byte: the same two rows are now token 0's slots 0 and 1
// ([m=1, topk=2, K=32]); slot 0 -> expert 1, slot 1 -> expert 0. A sorted
// row takes the scales of input row token * topk + slot: expert 0's entry
// (slot 1) gets byte 126, expert 1's (slot 0) 125. Had the reference
// gathered by token alone, both would be 125.
TEST(Reference, MoeHandMadeStage2EveryByte) {
  std::vector<uint16_t> x(64);
  std::fill_n(x.begin(), 32, f32ToBf16(1.0f));
  std::fill_n(x.begin() + 32, 32, f32ToBf16(-2.0f));
  const int32_t ids[] = {1, 0};
  const float weights[] = {0.75f, 0.125f};
  MoeProblem p = moeProblemFor(problemFor(32, RotationKind::None, 0), MoeRows::Routed, 2, 2, 16);
  auto moe = rotateQuantMoe(p, x.data(), 1, ids, weights, nullptr, nullptr);
  ASSERT_TRUE(moe.ok()) << moe.error();
  const MoeQuantized &out = moe.value();
  const int32_t S = 0x02000001;
  std::vector<int32_t> sortedIds(32, S); // capacity 2 + 32 - 2
  sortedIds[0] = 0x01000000;             // expert 0: token 0 slot 1
  sortedIds[16] = 0x00000000;            // expert 1: token 0 slot 0
  EXPECT_EQ(out.sorting.sortedIds, sortedIds);
  std::vector<float> sortedWeights(32, 0.0f);
  sortedWeights[0] = 0.125f;
  sortedWeights[16] = 0.75f;
  EXPECT_EQ(out.sorting.sortedWeights, sortedWeights);
  EXPECT_EQ(out.sorting.sortedExpertIds, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(out.sorting.numValidIds[0], 32);
  EXPECT_EQ(out.sorting.numValidIds[1], 1);
  std::vector<uint8_t> codes(16, 0x66); // row (0, 0), then row (0, 1)
  codes.resize(32, 0xEE);
  EXPECT_EQ(out.quantized.codes, codes);
  EXPECT_EQ(out.quantized.rows, 2u);
  std::vector<uint8_t> scales(32, kMoeScalePadByte);
  scales[0] = 126;
  scales[16] = 125;
  EXPECT_EQ(out.quantized.scales, scales);
}

// Shuffled scales against AITER's torch reference of the sorted MXFP4
// scales, both stages, with and without an expert mask, seeded random
// routings (the seed is printed on failure). The whole buffer is compared:
// AITER's reference is 0 past num_valid, and so is ours.
TEST(Reference, MoeSortedScalesMatchAitersTorchReference) {
  const uint64_t seed = testing::testSeed("Reference.MoeAiter");
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 24; ++iter) {
    const size_t k = iter % 2 ? 512 : 256;
    const int experts = iter % 3 == 0 ? 8 : 33, block = (16 << (iter % 4));
    const int topk = 1 + int(rng() % 4);
    const size_t m = 1 + rng() % 40;
    const bool stage2 = iter % 2 == 1, masked = iter % 4 >= 2;
    SCOPED_TRACE("seed " + std::to_string(seed) + ", iter " + std::to_string(iter));
    std::vector<int32_t> ids(m * topk);
    for (size_t t = 0; t < m; ++t) {
      std::vector<int32_t> pool(experts);
      std::iota(pool.begin(), pool.end(), 0);
      std::shuffle(pool.begin(), pool.end(), rng);
      std::copy_n(pool.begin(), topk, ids.begin() + long(t * topk));
    }
    std::vector<float> weights(ids.size());
    for (float &w : weights)
      w = float(rng() % 1000) / 1000.0f;
    std::vector<int32_t> mask(experts);
    for (int32_t &local : mask)
      local = int32_t(rng() % 2);
    const size_t rows = stage2 ? m * topk : m;
    std::vector<uint16_t> x = randomBf16(rows * k, rng);
    MoeProblem p = moeProblemFor(problemFor(k, RotationKind::Hadamard, 64),
                                 stage2 ? MoeRows::Routed : MoeRows::Tokens, topk, experts, block);
    p.quant.scaleLayout = ScaleLayout::A4W4Shuffle;
    auto moe = rotateQuantMoe(p, x.data(), m, ids.data(), weights.data(),
                              masked ? mask.data() : nullptr, nullptr);
    ASSERT_TRUE(moe.ok()) << moe.error();
    RotateQuantProblem dense = p.quant;
    dense.scaleLayout = ScaleLayout::Plain;
    auto rowsQuantized = rotateQuant(dense, x.data(), rows, nullptr);
    ASSERT_TRUE(rowsQuantized.ok());
    // Codes: every input row once, in input-row order.
    EXPECT_EQ(moe.value().quantized.codes, rowsQuantized.value().codes);
    const MoeSorting &sorting = moe.value().sorting;
    std::vector<uint8_t> want =
        aiterSortedScales(rowsQuantized.value().scales, k / 32, sorting.sortedIds,
                          sorting.numValidIds[0], int32_t(m), topk, stage2);
    ASSERT_EQ(moe.value().quantized.scales, want);
    // The written prefix: whole 32-row groups covering num_valid rows.
    const size_t validRows = (size_t(sorting.numValidIds[0]) + 31) / 32 * 32;
    EXPECT_EQ(moe.value().scaleBytesWritten, validRows * (k / 32));
    for (size_t i = moe.value().scaleBytesWritten; i < want.size(); ++i)
      ASSERT_EQ(moe.value().quantized.scales[i], 0) << "unwritten byte " << i;
    // Negative control: the comparison sees a single changed byte.
    if (sorting.numValidIds[0] > 0) {
      std::vector<uint8_t> changed = moe.value().quantized.scales;
      changed[0] ^= 1;
      EXPECT_NE(changed, want);
    }
  }
}

TEST(Reference, MoeRejectsBadInputs) {
  std::mt19937_64 rng(testing::testSeed("Reference.MoeRejects"));
  const size_t k = 256, m = 5;
  std::vector<uint16_t> x = randomBf16(m * k, rng);
  const int32_t bad[] = {0, 0, 1, 2, 0, 1, 2, 3, 9, 1};
  const float weights[10] = {};
  MoeProblem p = moeProblemFor(problemFor(k, RotationKind::Hadamard, 64), MoeRows::Tokens, 2, 4, 32);
  auto rejected = rotateQuantMoe(p, x.data(), m, bad, weights, nullptr, nullptr);
  ASSERT_FALSE(rejected.ok());
  EXPECT_NE(rejected.error().find("= 9 is outside [0, E = 4)"), std::string::npos)
      << rejected.error();
  const int32_t good[] = {0, 2, 2, 3, 0, 3, 2, 0, 3, 2};
  auto noWeights = rotateQuantMoe(p, x.data(), m, good, nullptr, nullptr, nullptr);
  ASSERT_FALSE(noWeights.ok());
  EXPECT_NE(noWeights.error().find("topkWeights is null"), std::string::npos);
  p.quant.rotation = {RotationKind::Learned, 64, 32};
  auto noR = rotateQuantMoe(p, x.data(), m, good, weights, nullptr, nullptr);
  ASSERT_FALSE(noR.ok());
  EXPECT_NE(noR.error().find("needs its matrix"), std::string::npos);
}

TEST(Reference, GemmMatchesADoublePrecisionDotOfTheDequantizedOperands) {
  std::mt19937_64 rng(testing::testSeed("Reference.Gemm"));
  const size_t k = 512, m = 3, n = 32;
  std::vector<uint16_t> x = randomBf16(m * k, rng), w = randomBf16(n * k, rng);
  RotateQuantProblem act = problemFor(k, RotationKind::Hadamard, 128);
  auto wq = quantWeight(act, WeightLayout::Plain, w.data(), n, nullptr);
  auto xq = rotateQuant(act, x.data(), m, nullptr);
  ASSERT_TRUE(wq.ok() && xq.ok());
  GemmProblem gemm;
  gemm.activation = act;
  gemm.n = n;
  auto y = rotateQuantGemm(gemm, x.data(), m, nullptr, wq.value().codes.data(),
                           wq.value().scales.data());
  ASSERT_TRUE(y.ok()) << y.error();
  std::vector<float> a = dequantizeRows(xq.value()), b = dequantizeRows(wq.value());
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      double exact = 0, magnitude = 0;
      for (size_t c = 0; c < k; ++c) {
        exact += double(a[i * k + c]) * b[j * k + c];
        magnitude += std::fabs(double(a[i * k + c]) * b[j * k + c]);
      }
      // Four f32 roundings (one per 128-chunk) and one bf16 rounding.
      double bound = std::fabs(exact) * std::ldexp(1.0, -8) + magnitude * 4 * std::ldexp(1.0, -24);
      ASSERT_NEAR(bf16ToF32(y.value()[i * n + j]), exact, bound) << i << "," << j;
    }
  // The same product through preshuffled weights and shuffled weight scales.
  RotateQuantProblem shuffledScales = act;
  shuffledScales.scaleLayout = ScaleLayout::A4W4Shuffle;
  auto wq2 = quantWeight(shuffledScales, WeightLayout::Preshuffle16x16, w.data(), n, nullptr);
  ASSERT_TRUE(wq2.ok());
  gemm.weightLayout = WeightLayout::Preshuffle16x16;
  gemm.weightScaleLayout = ScaleLayout::A4W4Shuffle;
  auto y2 = rotateQuantGemm(gemm, x.data(), m, nullptr, wq2.value().codes.data(),
                            wq2.value().scales.data());
  ASSERT_TRUE(y2.ok()) << y2.error();
  EXPECT_EQ(y.value(), y2.value());
}

// W6A16: bf16 activations (rotated, then rounded to bf16) x MXFP6 weights,
// within the bound of K/32 MFMA roundings, and the same y through the tiled
// layout and shuffled scales.
TEST(Reference, W6A16GemmMatchesADoublePrecisionDotOfItsOperands) {
  std::mt19937_64 rng(testing::testSeed("Reference.W6A16Gemm"));
  const size_t k = 512, m = 3, n = 32;
  std::vector<uint16_t> x = randomBf16(m * k, rng), w = randomBf16(n * k, rng);
  RotateQuantProblem act = problemFor(k, RotationKind::Hadamard, 64);
  act.quant.format = ElemFormat::E2M3;
  auto wq = quantWeight(act, WeightLayout::Plain, w.data(), n, nullptr);
  ASSERT_TRUE(wq.ok()) << wq.error();
  auto a = gemmActivationValues(act, x.data(), m, nullptr);
  ASSERT_TRUE(a.ok()) << a.error();
  std::vector<float> rotated(k);
  rotateForQuant(act, x.data(), nullptr, rotated.data());
  for (size_t c = 0; c < k; ++c) // the B operand is bf16 of the rotation
    ASSERT_EQ(a.value()[c], double(bf16ToF32(f32ToBf16(rotated[c])))) << c;
  GemmProblem gemm;
  gemm.activation = act;
  gemm.n = n;
  auto y = rotateQuantGemm(gemm, x.data(), m, nullptr, wq.value().codes.data(),
                           wq.value().scales.data());
  ASSERT_TRUE(y.ok()) << y.error();
  const std::vector<float> b = dequantizeRows(wq.value());
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      double exact = 0, magnitude = 0;
      for (size_t c = 0; c < k; ++c) {
        exact += a.value()[i * k + c] * b[j * k + c];
        magnitude += std::fabs(a.value()[i * k + c] * b[j * k + c]);
      }
      // 16 f32 roundings (four per 128-chunk) and one bf16 rounding.
      double bound = std::fabs(exact) * std::ldexp(1.0, -8) + magnitude * 16 * std::ldexp(1.0, -24);
      ASSERT_NEAR(bf16ToF32(y.value()[i * n + j]), exact, bound) << i << "," << j;
    }
  RotateQuantProblem shuffledScales = act;
  shuffledScales.scaleLayout = ScaleLayout::A4W4Shuffle;
  auto tiled = quantWeight(shuffledScales, WeightLayout::W6A16Tile16x128, w.data(), n, nullptr);
  ASSERT_TRUE(tiled.ok()) << tiled.error();
  gemm.weightLayout = WeightLayout::W6A16Tile16x128;
  gemm.weightScaleLayout = ScaleLayout::A4W4Shuffle;
  auto y2 = rotateQuantGemm(gemm, x.data(), m, nullptr, tiled.value().codes.data(),
                            tiled.value().scales.data());
  ASSERT_TRUE(y2.ok()) << y2.error();
  EXPECT_EQ(y.value(), y2.value());
  gemm.weightLayout = WeightLayout::Preshuffle16x16; // an fp4 layout
  auto wrong = rotateQuantGemm(gemm, x.data(), m, nullptr, tiled.value().codes.data(),
                               tiled.value().scales.data());
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().find("not preshuffle_16x16"), std::string::npos) << wrong.error();
}

// The W6A16 order by hand: in a 128-channel chunk, products 2^24 (channel
// 0, MFMA group t=0), 1 (channel 8, t=1), 1 (channel 16, t=2), -2^24
// (channel 24, t=3). Four roundings: 2^24, 2^24 + 1 -> 2^24 (even),
// again 2^24, then 0. One exact sum of the chunk (A4W4's order), or
// contiguous 32-channel groups, would give 2.
TEST(Reference, W6A16GemmRoundsOncePerMfmaGroup) {
  EXPECT_EQ(gemmChannelOfTerm(ElemFormat::E2M3, 1, 0), 8u);
  EXPECT_EQ(gemmChannelOfTerm(ElemFormat::E2M3, 3, 7), 31u);
  EXPECT_EQ(gemmChannelOfTerm(ElemFormat::E2M3, 0, 8), 32u);
  EXPECT_EQ(gemmChannelOfTerm(ElemFormat::E2M3, 3, 31), 127u);
  EXPECT_EQ(gemmChannelOfTerm(ElemFormat::E2M3, 2, 31), 119u);
  EXPECT_EQ(gemmChannelOfTerm(ElemFormat::E2M1, 0, 77), 77u);
  const size_t k = 128, n = 16;
  std::vector<uint16_t> x(k, f32ToBf16(0.0f));
  x[0] = f32ToBf16(16777216.0f);
  x[8] = f32ToBf16(1.0f);
  x[16] = f32ToBf16(1.0f);
  x[24] = f32ToBf16(-16777216.0f);
  std::vector<uint8_t> codes(k, 0x08); // e2m3 1.0 everywhere
  std::vector<uint8_t> row(packedBytes(ElemFormat::E2M3, k)), weights;
  packCodes(ElemFormat::E2M3, codes.data(), k, row.data());
  for (size_t j = 0; j < n; ++j)
    weights.insert(weights.end(), row.begin(), row.end());
  std::vector<uint8_t> scales(n * k / 32, 127);
  GemmProblem gemm;
  gemm.activation = problemFor(k, RotationKind::None, 0);
  gemm.activation.quant.format = ElemFormat::E2M3;
  gemm.n = n;
  auto y = rotateQuantGemm(gemm, x.data(), 1, nullptr, weights.data(), scales.data());
  ASSERT_TRUE(y.ok()) << y.error();
  for (size_t j = 0; j < n; ++j)
    EXPECT_EQ(bf16ToF32(y.value()[j]), 0.0f) << j;
  // Moved into t=0 beside 2^24, the two ones still vanish one at a time
  // (channel 1 with the 2^24 in one rounding: 2^24 + 1 -> 2^24; channel 16
  // in t=2); moved into t=3 beside -2^24 (channels 25 and 26: -2^24 + 2
  // exactly, then + 2^24 = 2), they survive.
  x[8] = f32ToBf16(0.0f);
  x[16] = f32ToBf16(0.0f);
  x[25] = f32ToBf16(1.0f);
  x[26] = f32ToBf16(1.0f);
  y = rotateQuantGemm(gemm, x.data(), 1, nullptr, weights.data(), scales.data());
  ASSERT_TRUE(y.ok()) << y.error();
  EXPECT_EQ(bf16ToF32(y.value()[0]), 2.0f);
}

TEST(Reference, RotatedGemmApproximatesTheUnquantizedProduct) {
  std::mt19937_64 rng(testing::testSeed("Reference.RotatedGemm"));
  const size_t k = 1024, m = 2, n = 16;
  std::vector<uint16_t> x = randomBf16(m * k, rng), w = randomBf16(n * k, rng, 0.02f);
  RotateQuantProblem act = problemFor(k, RotationKind::Hadamard, 64);
  auto wq = quantWeight(act, WeightLayout::Plain, w.data(), n, nullptr);
  ASSERT_TRUE(wq.ok());
  GemmProblem gemm;
  gemm.activation = act;
  gemm.n = n;
  auto y = rotateQuantGemm(gemm, x.data(), m, nullptr, wq.value().codes.data(),
                           wq.value().scales.data());
  ASSERT_TRUE(y.ok());
  double err = 0, ref = 0;
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      double exact = 0;
      for (size_t c = 0; c < k; ++c)
        exact += double(bf16ToF32(x[i * k + c])) * bf16ToF32(w[j * k + c]);
      err += std::pow(bf16ToF32(y.value()[i * n + j]) - exact, 2);
      ref += exact * exact;
    }
  // MXFP4 on both operands: relative RMS error of a few 10%, far below 1.
  EXPECT_LT(std::sqrt(err / ref), 0.35);
}

TEST(Reference, BadProblemsAreErrors) {
  std::vector<uint16_t> x(64, 0);
  auto badK = rotateQuant(problemFor(48, RotationKind::None, 0), x.data(), 1, nullptr);
  ASSERT_FALSE(badK.ok());
  EXPECT_NE(badK.error().find("K=48"), std::string::npos);
  auto noMatrix = rotateQuant(problemFor(64, RotationKind::Learned, 64), x.data(), 1, nullptr);
  ASSERT_FALSE(noMatrix.ok());
  EXPECT_NE(noMatrix.error().find("matrix"), std::string::npos);
  RotateQuantProblem fp6 = problemFor(64, RotationKind::None, 0);
  fp6.quant.format = ElemFormat::E2M3;
  EXPECT_FALSE(quantWeight(fp6, WeightLayout::Preshuffle16x16, x.data(), 1, nullptr).ok());
  GemmProblem gemm;
  gemm.activation = problemFor(64, RotationKind::None, 0);
  gemm.n = 15;
  std::vector<uint8_t> codes(64 * 32), scales(64 * 2);
  auto badN = rotateQuantGemm(gemm, x.data(), 1, nullptr, codes.data(), scales.data());
  ASSERT_FALSE(badN.ok());
  EXPECT_NE(badN.error().find("N=15"), std::string::npos);
}

TEST(Reference, QuantWeightW6A16HandComputedTile) {
  // One 16 x 128 tile, no rotation, fp6_e2m3, scale=even: every block is
  // all +1.0 or all -1.0, so its scale is 2^(0 - 2) (byte 125) and every
  // code is 4.0 = E2M3 0b011000 (24), or 0b111000 (56) negated. 32 equal
  // codes c pack as the 3-byte pattern c | c<<6, c>>2 | c<<4, c>>4 | c<<2:
  // 18 86 61 for 24, 38 8E E3 for 56. The lane l = 16 s + r of row r,
  // block s is negative when l % 3 == 0 (so a wrong lane order shows).
  const size_t n = 16, k = 128;
  std::vector<uint16_t> w(n * k);
  for (size_t r = 0; r < n; ++r)
    for (size_t c = 0; c < k; ++c)
      w[r * k + c] = f32ToBf16((16 * (c / 32) + r) % 3 == 0 ? -1.0f : 1.0f);
  RotateQuantProblem p = problemFor(k, RotationKind::None, 0);
  p.quant.format = ElemFormat::E2M3;
  Result<QuantizedRows> q = quantWeight(p, WeightLayout::W6A16Tile16x128, w.data(), n, nullptr);
  ASSERT_TRUE(q.ok()) << q.error();
  ASSERT_EQ(q.value().codes.size(), 1536u);
  EXPECT_EQ(q.value().scales, std::vector<uint8_t>(n * k / 32, 125));
  const uint8_t positive[3] = {0x18, 0x86, 0x61}, negative[3] = {0x38, 0x8E, 0xE3};
  for (size_t l = 0; l < 64; ++l) {
    const uint8_t *pattern = l % 3 == 0 ? negative : positive;
    for (size_t j = 0; j < 16; ++j)
      ASSERT_EQ(q.value().codes[16 * l + j], pattern[j % 3]) << "lane " << l << " head " << j;
    for (size_t j = 0; j < 8; ++j)
      ASSERT_EQ(q.value().codes[1024 + 8 * l + j], pattern[(16 + j) % 3])
          << "lane " << l << " tail " << j;
  }
}

TEST(Reference, QuantWeightW6A16IsPlainFp6PlacedForTheLanes) {
  // The rotation and quantization do not change, only the byte placement:
  // each lane's dwordx4 at tile + 16 l and dwordx2 at tile + 1024 + 8 l,
  // read as one little-endian 192-bit string (as v_cvt_scalef32_pk32_bf16_fp6
  // reads its six dwords), are that block's 32 codes in order.
  std::mt19937_64 rng(testing::testSeed("Reference.QuantWeightW6A16IsPlainFp6PlacedForTheLanes"));
  std::uniform_int_distribution<size_t> tiles(1, 4);
  for (int iter = 0; iter < 6; ++iter) {
    const size_t n = 16 * tiles(rng), k = 128 * tiles(rng);
    SCOPED_TRACE("n " + std::to_string(n) + ", k " + std::to_string(k));
    RotateQuantProblem p = problemFor(k, RotationKind::Hadamard, 64);
    p.quant.format = ElemFormat::E2M3;
    p.quant.rule = ScaleRule::Even126;
    p.scaleLayout = iter % 2 ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain;
    std::vector<uint16_t> w = randomBf16(n * k, rng, 0.02f);
    Result<QuantizedRows> plain = quantWeight(p, WeightLayout::Plain, w.data(), n, nullptr);
    Result<QuantizedRows> tiled =
        quantWeight(p, WeightLayout::W6A16Tile16x128, w.data(), n, nullptr);
    ASSERT_TRUE(plain.ok() && tiled.ok()) << plain.error() << tiled.error();
    EXPECT_EQ(tiled.value().scales, plain.value().scales);
    EXPECT_EQ(tiled.value().codes.size(), n * k * 6 / 8);
    const size_t rowBytes = k * 6 / 8;
    std::vector<uint8_t> codes(32), lane(24), laneCodes(32);
    for (size_t row = 0; row < n; ++row)
      for (size_t block = 0; block < k / 32; ++block) {
        unpackCodes(ElemFormat::E2M3, plain.value().codes.data() + row * rowBytes + block * 24, 32,
                    codes.data());
        const size_t tile = ((row / 16) * (k / 128) + block / 4) * 1536;
        const size_t l = (block % 4) * 16 + row % 16;
        std::copy_n(tiled.value().codes.data() + tile + 16 * l, 16, lane.data());
        std::copy_n(tiled.value().codes.data() + tile + 1024 + 8 * l, 8, lane.data() + 16);
        unpackCodes(ElemFormat::E2M3, lane.data(), 32, laneCodes.data());
        ASSERT_EQ(laneCodes, codes) << "row " << row << ", block " << block;
      }
    Result<std::vector<uint8_t>> back = untileWeightsW6A16(tiled.value().codes.data(), n, k);
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back.value(), plain.value().codes);
  }
}

TEST(Reference, QuantWeightW6A16RejectsWhatTheLayoutCannotHold) {
  std::vector<uint16_t> w(32 * 256, 0);
  RotateQuantProblem fp6 = problemFor(256, RotationKind::None, 0);
  fp6.quant.format = ElemFormat::E2M3;
  auto fp4 = quantWeight(problemFor(256, RotationKind::None, 0), WeightLayout::W6A16Tile16x128,
                         w.data(), 16, nullptr);
  ASSERT_FALSE(fp4.ok());
  EXPECT_NE(fp4.error().find("needs fmt=fp6_e2m3"), std::string::npos) << fp4.error();
  auto rows8 = quantWeight(fp6, WeightLayout::W6A16Tile16x128, w.data(), 8, nullptr);
  ASSERT_FALSE(rows8.ok());
  EXPECT_NE(rows8.error().find("n (rows) = 8"), std::string::npos) << rows8.error();
  RotateQuantProblem k96 = fp6;
  k96.k = 96;
  auto badK = quantWeight(k96, WeightLayout::W6A16Tile16x128, w.data(), 16, nullptr);
  ASSERT_FALSE(badK.ok());
  EXPECT_NE(badK.error().find("multiple of 128"), std::string::npos) << badK.error();
  // Sanity: the same shapes are fine in plain packing.
  EXPECT_TRUE(quantWeight(k96, WeightLayout::Plain, w.data(), 8, nullptr).ok());
  GemmProblem gemm;
  gemm.activation = problemFor(256, RotationKind::None, 0);
  gemm.n = 16;
  gemm.weightLayout = WeightLayout::W6A16Tile16x128;
  std::vector<uint8_t> codes(16 * 128), scales(16 * 8);
  auto y = rotateQuantGemm(gemm, w.data(), 1, nullptr, codes.data(), scales.data());
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.error().find("w6a16_16x128"), std::string::npos) << y.error();
}

} // namespace
} // namespace mxf
