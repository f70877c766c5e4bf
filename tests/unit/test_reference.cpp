//===- test_reference.cpp - The four reference kernel families ------------===//

#include "numerics/reference.h"

#include "numerics/formats.h"
#include "numerics/packing.h"
#include "test_seed.h"

#include <gtest/gtest.h>

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

TEST(Reference, MoeCodesInTokenOrderScalesInSortedOrder) {
  std::mt19937_64 rng(testing::testSeed("Reference.Moe"));
  const size_t k = 256, m = 5;
  const int topk = 2, experts = 4, block = 32;
  std::vector<uint16_t> x = randomBf16(m * k, rng);
  const int32_t topkIds[] = {0, 2, 2, 3, 0, 3, 2, 0, 3, 2}; // expert 1 receives nothing
  RotateQuantProblem p = problemFor(k, RotationKind::Hadamard, 64);
  p.scaleLayout = ScaleLayout::Plain;
  auto moe = rotateQuantMoe(p, x.data(), m, topkIds, topk, experts, block, nullptr);
  auto dense = rotateQuant(p, x.data(), m, nullptr);
  ASSERT_TRUE(moe.ok()) << moe.error();
  ASSERT_TRUE(dense.ok());
  EXPECT_EQ(moe.value().quantized.codes, dense.value().codes);
  const MoeSorting &s = moe.value().sorting;
  const size_t cols = k / 32;
  ASSERT_EQ(moe.value().quantized.scales.size(), s.sortedIds.size() * cols);
  for (size_t i = 0; i < s.sortedIds.size(); ++i) {
    int32_t token = s.sortedIds[i] & 0xFFFFFF, slot = s.sortedIds[i] >> 24;
    for (size_t c = 0; c < cols; ++c) {
      uint8_t got = moe.value().quantized.scales[i * cols + c];
      if (slot == topk)
        ASSERT_EQ(got, kScalePadByte) << i;
      else
        ASSERT_EQ(got, dense.value().scales[size_t(token) * cols + c]) << i;
    }
  }
  // Shuffled: rows padded to 32, the shuffle of the plain sorted scales.
  p.scaleLayout = ScaleLayout::A4W4Shuffle;
  auto shuffled = rotateQuantMoe(p, x.data(), m, topkIds, topk, experts, block, nullptr);
  ASSERT_TRUE(shuffled.ok());
  EXPECT_EQ(shuffled.value().quantized.scales,
            shuffleScalesA4W4(moe.value().quantized.scales.data(), s.sortedIds.size(), cols, 32));
  // A bad routing is an error, not a crash.
  const int32_t bad[] = {0, 0, 1, 2, 0, 1, 2, 3, 9, 1};
  auto rejected = rotateQuantMoe(p, x.data(), m, bad, topk, experts, block, nullptr);
  EXPECT_FALSE(rejected.ok());
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
