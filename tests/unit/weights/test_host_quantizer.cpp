//===- test_host_quantizer.cpp - The fast host path equals the reference --===//
//
// Byte-for-byte comparisons of weights/ against numerics/: the element
// encoder over every scale byte, the rotation on hostile rows (so that the
// exact fallback runs), and quantWeightHost against quantWeight over a
// sampled matrix of specs (every RS, rotation, format, scale rule, layout,
// intermediate and rounding appears), with 1 and 2 threads.
//
//===----------------------------------------------------------------------===//

#include "weights/host_quantizer.h"

#include "numerics/formats.h"
#include "numerics/reference.h"
#include "test_seed.h"
#include "weight_test_inputs.h"
#include "weights/row_quantizer.h"
#include "weights/row_rotator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace mxf {
namespace {

using testing::hostileBf16;
using testing::learnedRotation;
using testing::normalBf16;

float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(HostQuantizer, Emax2EncoderEqualsReferenceAtEveryScale) {
  std::mt19937_64 rng(testing::testSeed("HostQuantizer.Emax2Encoder"));
  std::uniform_int_distribution<uint32_t> anyBits;
  for (ElemFormat format : {ElemFormat::E2M1, ElemFormat::E2M3}) {
    const int m = formatInfo(format).mbits;
    for (int b = 0; b < 256; ++b) {
      std::vector<float> xs;
      // Every grid point and midpoint of the format at this scale, and
      // their f32 neighbours: the tie and saturation boundaries.
      for (int step = 0; step <= 8 << m; ++step) {
        float v = std::ldexp(float(step), -(m + 1) + b - 127);
        for (float x : {v, std::nextafter(v, 0.0f), std::nextafter(v, INFINITY)})
          xs.insert(xs.end(), {x, -x});
      }
      for (int i = 0; i < 200; ++i)
        xs.push_back(fromBits(anyBits(rng)));
      xs.insert(xs.end(), {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1e-45f, -1e-45f});
      for (float x : xs) {
        const uint8_t expected = encodeElemRne(format, x, uint8_t(b));
        const uint8_t got = weights::encodeEmax2Rne(format, x, uint8_t(b));
        ASSERT_EQ(got, expected) << formatInfo(format).specName << " x=" << x << " (bits 0x"
                                 << std::hex << fromBits(0) << ") scale byte " << std::dec << b;
      }
    }
  }
}

RotateQuantProblem problemOf(size_t k, RotationKind kind, int rs) {
  RotateQuantProblem p;
  p.k = k;
  p.rotation = {kind, rs, 32};
  return p;
}

TEST(HostQuantizer, RotationEqualsReferenceOnHostileRows) {
  std::mt19937_64 rng(testing::testSeed("HostQuantizer.HostileRotation"));
  const size_t k = 1024, rows = 24;
  size_t fallbacks = 0;
  for (RotationKind kind : {RotationKind::Hadamard, RotationKind::HadamardButterfly,
                            RotationKind::Learned, RotationKind::LearnedPerBlock}) {
    for (int rs : kSupportedRotationSizes) {
      for (Intermediate inter : {Intermediate::F32, Intermediate::Bf16}) {
        RotateQuantProblem p = problemOf(k, kind, rs);
        p.inter = inter;
        // Both conventions of a learned R (the plan transposes R[out][in]).
        if (isLearned(kind) && inter == Intermediate::Bf16)
          p.rotation.convention = RotationConvention::XRt;
        std::vector<uint16_t> r = learnedRotation(
            rs, kind == RotationKind::LearnedPerBlock ? k / size_t(rs) : 1, rng);
        std::vector<uint16_t> x = hostileBf16(rows * k, rng, /*specials=*/true);
        weights::RotationPlan plan(p, r.data());
        weights::RowRotator rotator(plan);
        std::vector<float> expected(k), got(k);
        for (size_t row = 0; row < rows; ++row) {
          rotateForQuant(p, x.data() + row * k, r.data(), expected.data());
          rotator.rotate(x.data() + row * k, got.data());
          ASSERT_EQ(0, std::memcmp(expected.data(), got.data(), k * sizeof(float)))
              << rotationKindName(kind) << " RS=" << rs << " rconv="
              << rotationConventionName(p.rotation.convention) << " row " << row;
        }
        fallbacks += rotator.exactFallbacks();
      }
    }
  }
  // The hostile inputs are there to reach the exact path; if none did, this
  // test no longer tests it.
  EXPECT_GT(fallbacks, 0u);
}

struct WeightCase {
  RotateQuantProblem problem;
  WeightLayout wlayout;
  std::string name;
};

std::string describe(const RotateQuantProblem &p, WeightLayout wl) {
  return std::string("rot=") + rotationKindName(p.rotation.kind) +
         ",RS=" + std::to_string(p.rotation.rs) + ",fmt=" + formatInfo(p.quant.format).specName +
         ",scale=" + scaleRuleName(p.quant.rule) + ",round=" + roundingName(p.quant.rounding) +
         ",inter=" + intermediateName(p.inter) + ",layout=" + scaleLayoutName(p.scaleLayout) +
         ",wlayout=" + weightLayoutName(wl);
}

/// Every (rotation, RS) pair with every format and layout combination,
/// and the remaining keys (scale rule, rounding, intermediate) drawn at
/// random per case: about 90 cases.
std::vector<WeightCase> sampledCases(std::mt19937_64 &rng, size_t k) {
  std::vector<std::pair<RotationKind, int>> rotations = {{RotationKind::None, 0}};
  for (RotationKind kind : {RotationKind::Hadamard, RotationKind::HadamardButterfly,
                            RotationKind::Learned, RotationKind::LearnedPerBlock})
    for (int rs : kSupportedRotationSizes)
      rotations.push_back({kind, rs});
  std::uniform_int_distribution<size_t> rule(0, std::size(kAllScaleRules) - 1);
  std::uniform_int_distribution<int> coin(0, 3);
  std::vector<WeightCase> cases;
  for (auto [kind, rs] : rotations)
    for (ElemFormat format : {ElemFormat::E2M1, ElemFormat::E2M3})
      for (ScaleLayout layout : {ScaleLayout::Plain, ScaleLayout::A4W4Shuffle})
        for (WeightLayout wl : {WeightLayout::Plain, WeightLayout::Preshuffle16x16,
                                WeightLayout::W6A16Tile16x128}) {
          if (wl == WeightLayout::Preshuffle16x16 && format != ElemFormat::E2M1)
            continue;
          if (wl == WeightLayout::W6A16Tile16x128 && format != ElemFormat::E2M3)
            continue;
          if (format == ElemFormat::E2M3 && layout == ScaleLayout::A4W4Shuffle && coin(rng))
            continue; // keep the run short; the pairs still appear
          WeightCase c;
          c.problem = problemOf(k, kind, rs);
          c.problem.quant.format = format;
          c.problem.quant.rule = kAllScaleRules[rule(rng)];
          c.problem.quant.rounding = coin(rng) == 0 ? Rounding::Sr : Rounding::Rne;
          c.problem.quant.seed = uint32_t(rng());
          c.problem.inter = coin(rng) < 2 ? Intermediate::Bf16 : Intermediate::F32;
          c.problem.scaleLayout = layout;
          c.wlayout = wl;
          c.name = describe(c.problem, wl);
          cases.push_back(c);
        }
  return cases;
}

TEST(HostQuantizer, EqualsReferenceByteForByteOverSampledSpecs) {
  std::mt19937_64 rng(testing::testSeed("HostQuantizer.SampledSpecs"));
  const size_t k = 512, n = 48;
  std::vector<WeightCase> cases = sampledCases(rng, k);
  ASSERT_GE(cases.size(), 80u);
  for (size_t i = 0; i < cases.size(); ++i) {
    const WeightCase &c = cases[i];
    const RotationKind kind = c.problem.rotation.kind;
    std::vector<uint16_t> r = learnedRotation(
        c.problem.rotation.rs ? c.problem.rotation.rs : 32,
        kind == RotationKind::LearnedPerBlock ? k / size_t(c.problem.rotation.rs) : 1, rng);
    // Alternate ordinary weights and hostile ones (specials included).
    std::vector<uint16_t> w = i % 2 ? hostileBf16(n * k, rng, true) : normalBf16(n * k, rng);
    const uint16_t *rotation = isLearned(kind) ? r.data() : nullptr;
    Result<QuantizedRows> expected = quantWeight(c.problem, c.wlayout, w.data(), n, rotation);
    ASSERT_TRUE(expected.ok()) << c.name << ": " << expected.error();
    for (unsigned threads : {1u, 2u}) {
      Result<QuantizedRows> got =
          weights::quantWeightHost(c.problem, c.wlayout, w.data(), n, rotation, threads);
      ASSERT_TRUE(got.ok()) << c.name << ": " << got.error();
      EXPECT_EQ(got.value().scaleShape.rows, expected.value().scaleShape.rows) << c.name;
      EXPECT_EQ(got.value().scaleShape.cols, expected.value().scaleShape.cols) << c.name;
      ASSERT_EQ(got.value().codes, expected.value().codes) << c.name << " threads=" << threads;
      ASSERT_EQ(got.value().scales, expected.value().scales) << c.name << " threads=" << threads;
    }
  }
}

TEST(HostQuantizer, W6A16TilesEqualTheReferenceOnRandomShapes) {
  std::mt19937_64 rng(testing::testSeed("HostQuantizer.W6A16RandomShapes"));
  std::uniform_int_distribution<size_t> rowTiles(1, 9), kTiles(1, 8);
  const std::pair<RotationKind, int> rotations[] = {{RotationKind::None, 0},
                                                    {RotationKind::Hadamard, 32},
                                                    {RotationKind::Hadamard, 128},
                                                    {RotationKind::Learned, 64},
                                                    {RotationKind::HadamardButterfly, 128}};
  for (size_t iter = 0; iter < 12; ++iter) {
    const size_t n = 16 * rowTiles(rng), k = 128 * kTiles(rng);
    auto [kind, rs] = rotations[iter % std::size(rotations)];
    RotateQuantProblem p = problemOf(k, kind, rs);
    p.quant.format = ElemFormat::E2M3;
    p.quant.rule = iter % 2 ? ScaleRule::Even126 : ScaleRule::Even;
    p.scaleLayout = iter % 3 == 0 ? ScaleLayout::A4W4Shuffle : ScaleLayout::Plain;
    const std::string name = describe(p, WeightLayout::W6A16Tile16x128) + ",N=" +
                             std::to_string(n) + ",K=" + std::to_string(k);
    std::vector<uint16_t> r = learnedRotation(rs ? rs : 32, 1, rng);
    const uint16_t *rotation = isLearned(kind) ? r.data() : nullptr;
    std::vector<uint16_t> w = normalBf16(n * k, rng);
    Result<QuantizedRows> expected =
        quantWeight(p, WeightLayout::W6A16Tile16x128, w.data(), n, rotation);
    ASSERT_TRUE(expected.ok()) << name << ": " << expected.error();
    for (unsigned threads : {1u, 2u, 3u}) {
      Result<QuantizedRows> got = weights::quantWeightHost(p, WeightLayout::W6A16Tile16x128,
                                                           w.data(), n, rotation, threads);
      ASSERT_TRUE(got.ok()) << name << ": " << got.error();
      ASSERT_EQ(got.value().codes, expected.value().codes) << name << " threads=" << threads;
      ASSERT_EQ(got.value().scales, expected.value().scales) << name << " threads=" << threads;
    }
    // Control: the tiles are not the plain bytes (so the comparison above
    // would notice a host path that forgot to place them).
    Result<QuantizedRows> plain =
        weights::quantWeightHost(p, WeightLayout::Plain, w.data(), n, rotation, 1);
    ASSERT_TRUE(plain.ok()) << plain.error();
    EXPECT_NE(plain.value().codes, expected.value().codes) << name;
  }
}

TEST(HostQuantizer, OutputDoesNotDependOnThreadCount) {
  std::mt19937_64 rng(testing::testSeed("HostQuantizer.Threads"));
  const size_t k = 2048, n = 400; // 400 rows: batches end mid-way for every count
  RotateQuantProblem p = problemOf(k, RotationKind::Hadamard, 128);
  p.scaleLayout = ScaleLayout::A4W4Shuffle;
  std::vector<uint16_t> w = normalBf16(n * k, rng);
  Result<QuantizedRows> one =
      weights::quantWeightHost(p, WeightLayout::Preshuffle16x16, w.data(), n, nullptr, 1);
  ASSERT_TRUE(one.ok()) << one.error();
  for (unsigned threads : {2u, 3u, 7u, 0u}) {
    Result<QuantizedRows> many =
        weights::quantWeightHost(p, WeightLayout::Preshuffle16x16, w.data(), n, nullptr, threads);
    ASSERT_TRUE(many.ok());
    EXPECT_EQ(many.value().codes, one.value().codes) << threads;
    EXPECT_EQ(many.value().scales, one.value().scales) << threads;
  }
}

TEST(HostQuantizer, RejectsWhatTheReferenceRejects) {
  std::vector<uint16_t> w(128 * 40, 0);
  struct Bad {
    RotateQuantProblem problem;
    WeightLayout wl;
    size_t n;
    const char *needle;
  };
  RotateQuantProblem fp6 = problemOf(64, RotationKind::None, 0);
  fp6.quant.format = ElemFormat::E2M3;
  RotateQuantProblem fp6K128 = fp6;
  fp6K128.k = 128;
  const Bad cases[] = {
      {problemOf(40, RotationKind::None, 0), WeightLayout::Plain, 16, "multiple of 32"},
      {problemOf(64, RotationKind::Hadamard, 48), WeightLayout::Plain, 16, "RS=48"},
      {problemOf(64, RotationKind::Learned, 32), WeightLayout::Plain, 16, "learned rotation"},
      {fp6, WeightLayout::Preshuffle16x16, 16, "needs fmt=fp4"},
      {problemOf(64, RotationKind::None, 0), WeightLayout::Preshuffle16x16, 24, "multiple of 16"},
      {problemOf(32, RotationKind::None, 0), WeightLayout::Preshuffle16x16, 16, "multiple of 32"},
      {problemOf(128, RotationKind::None, 0), WeightLayout::W6A16Tile16x128, 16,
       "needs fmt=fp6_e2m3"},
      {fp6, WeightLayout::W6A16Tile16x128, 16, "multiple of 128"},
      {fp6K128, WeightLayout::W6A16Tile16x128, 24, "multiple of 16"},
  };
  for (const Bad &c : cases) {
    Result<QuantizedRows> got = weights::quantWeightHost(c.problem, c.wl, w.data(), c.n, nullptr, 1);
    ASSERT_FALSE(got.ok()) << c.needle;
    EXPECT_NE(got.error().find(c.needle), std::string::npos) << got.error();
    EXPECT_FALSE(quantWeight(c.problem, c.wl, w.data(), c.n, nullptr).ok()) << c.needle;
  }
}

} // namespace
} // namespace mxf
