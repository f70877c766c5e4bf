//===- test_inputs.cpp - The suite's generators and checker, checked ------===//
//
// The e2e suite is only as strong as its inputs: these tests pin down that
// each distribution produces what docs/verification.md claims (in
// particular that scale-boundary rows put block maxima exactly on a
// boundary in the rotated domain where the rotation allows it), that runs
// replay from their seed, and that the expected-image checker locates a
// planted mismatch.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_case.h"
#include "tests/e2e/e2e_check.h"
#include "tests/e2e/e2e_inputs.h"
#include "tests/e2e/gemm_case.h"
#include "tests/unit/test_seed.h"

#include "numerics/formats.h"
#include "numerics/layouts.h"
#include "numerics/quantize.h"
#include "numerics/reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace mxf::e2e {
namespace {

KernelSpec specOf(int k, int rs, RotationKind rot) {
  KernelSpec spec;
  spec.K = k;
  spec.RS = rs;
  spec.rot = rot;
  spec.M = 4;
  return spec;
}

/// Whether `v` (> 0) is m * 2^k, m in {1, 1.75, 1.5 (=6/4)}: a scale-rule
/// boundary.
bool onBoundary(float v) {
  int e;
  const double m = std::frexp(double(v), &e) * 2; // in [1, 2)
  return m == 1.0 || m == 1.75 || m == 1.5;
}
/// Within one bf16 ulp of a boundary (the distribution's ulps -1, 0, +1).
bool nearBoundaryBf16(float v) {
  const uint16_t bits = f32ToBf16(v);
  if (bf16ToF32(bits) != v)
    return false;
  for (int d = -1; d <= 1; ++d)
    if (onBoundary(bf16ToF32(uint16_t(bits + d))))
      return true;
  return false;
}

std::vector<float> rotated(const KernelSpec &spec, const std::vector<uint16_t> &row,
                           const std::vector<uint16_t> &r) {
  std::vector<float> y(row.size());
  rotateForQuant(problemFor(spec, ScaleLayout::Plain), row.data(), r.empty() ? nullptr : r.data(),
                 y.data());
  return y;
}

TEST(E2eInputs, BoundaryValues) {
  EXPECT_EQ(boundaryValue(2, 0, 0), 6.0f);
  EXPECT_EQ(boundaryValue(1, 3, 0), 14.0f);
  EXPECT_EQ(boundaryValue(0, 0, 0), 1.0f);
  EXPECT_EQ(boundaryValue(0, 0, -1), 0.99609375f); // one bf16 ulp below 1
  EXPECT_EQ(boundaryValue(0, 0, 1), 1.0078125f);
  EXPECT_EQ(boundaryValue(2, -3, 1), 0.75f + 1.0f / 256);
}

TEST(E2eInputs, BoundaryRowsHitBoundariesWithoutRotation) {
  std::mt19937_64 rng = runEngine(testing::testSeed("E2eInputs.BoundaryRowsWithoutRotation"), 0);
  const KernelSpec spec = specOf(4096, 0, RotationKind::None);
  for (int trial = 0; trial < 8; ++trial) {
    const std::vector<uint16_t> row = activationRow(spec, Distribution::ScaleBoundaries, rng);
    for (size_t b = 0; b < row.size() / 32; ++b) {
      std::vector<float> v(32);
      for (size_t i = 0; i < 32; ++i)
        v[i] = bf16ToF32(row[b * 32 + i]);
      const float amax = blockAmax(v.data(), 32);
      ASSERT_TRUE(nearBoundaryBf16(amax)) << "block " << b << " amax " << amax;
    }
  }
}

/// Hadamard RS=64/256: every rotated 32-block's maximum |y| is a boundary
/// or one f32 ulp from one, and the block holds at most two magnitudes (the
/// split units: the maximum at one parity of i, a smaller value at the other).
TEST(E2eInputs, BoundaryRowsHitBoundariesThroughExactHadamard) {
  std::mt19937_64 rng = runEngine(testing::testSeed("E2eInputs.BoundaryRowsHadamard"), 0);
  size_t offByUlp = 0, split = 0, subnormal = 0;
  for (int rs : {64, 256}) {
    const KernelSpec spec = specOf(2048, rs, RotationKind::Hadamard);
    for (int trial = 0; trial < 6; ++trial) {
      const std::vector<float> y =
          rotated(spec, activationRow(spec, Distribution::ScaleBoundaries, rng), {});
      for (size_t b = 0; b < y.size() / 32; ++b) {
        const float a = blockAmax(y.data() + b * 32, 32);
        float other = a;
        for (size_t i = 0; i < 32; ++i) {
          const float v = std::fabs(y[b * 32 + i]);
          if (v != a) {
            ASSERT_TRUE(other == a || other == v) << "RS=" << rs << " block " << b;
            ASSERT_LT(v, a);
            ASSERT_EQ(std::fabs(y[b * 32 + (i ^ 1)]), a) << "RS=" << rs << " block " << b;
            other = v;
          }
        }
        split += other != a;
        subnormal += a > 0 && a < std::ldexp(1.0f, -126);
        // |y| = B, B + ulp(B) or B - ulp(B) (two f32 ulps below B = 2^k),
        // B itself within one bf16 ulp of a boundary.
        bool hit = nearBoundaryBf16(a);
        for (int d : {-1, 1, 2})
          if (!hit && nearBoundaryBf16(f32FromBits(f32Bits(a) + d))) {
            hit = true;
            ++offByUlp;
          }
        ASSERT_TRUE(hit) << "RS=" << rs << " block " << b << " |y| " << a;
      }
    }
  }
  EXPECT_GT(offByUlp, 0u) << "the two-hot (f32 ulp) construction never ran";
  EXPECT_GT(split, 0u) << "the split (two magnitudes per block) construction never ran";
  EXPECT_GT(subnormal, 0u) << "no boundary at the f32 subnormal threshold";
}

TEST(E2eInputs, SignedPermutationKeepsBoundaries) {
  std::mt19937_64 rng = runEngine(testing::testSeed("E2eInputs.SignedPermutation"), 0);
  for (RotationKind kind : {RotationKind::Learned, RotationKind::LearnedPerBlock}) {
    const KernelSpec spec = specOf(1024, 128, kind);
    const std::vector<uint16_t> r = learnedRotation(spec, MatrixKind::SignedPermutation, rng);
    const std::vector<float> y =
        rotated(spec, activationRow(spec, Distribution::ScaleBoundaries, rng), r);
    // Each rotated block's maximum is one of the row's boundary inputs.
    for (size_t b = 0; b < y.size() / 32; ++b)
      ASSERT_TRUE(nearBoundaryBf16(blockAmax(y.data() + b * 32, 32))) << "block " << b;
  }
}

TEST(E2eInputs, OrthogonalMatrices) {
  std::mt19937_64 rng = runEngine(testing::testSeed("E2eInputs.OrthogonalMatrices"), 0);
  const int rs = 64;
  const std::vector<double> q = randomOrthogonal(rs, rng);
  double worst = 0;
  for (int a = 0; a < rs; ++a)
    for (int b = 0; b < rs; ++b) {
      double dot = 0;
      for (int i = 0; i < rs; ++i)
        dot += q[size_t(i) * rs + a] * q[size_t(i) * rs + b];
      worst = std::max(worst, std::fabs(dot - (a == b)));
    }
  EXPECT_LT(worst, 1e-12);

  // Rounded to bf16 (2^-9 relative per entry), still orthogonal to ~1e-2,
  // and the per-block matrices differ from each other.
  const KernelSpec spec = specOf(1024, 128, RotationKind::LearnedPerBlock);
  const std::vector<uint16_t> r = learnedRotation(spec, MatrixKind::Orthogonal, rng);
  ASSERT_EQ(r.size(), size_t(8) * 128 * 128);
  for (size_t m = 0; m < 8; ++m) {
    const uint16_t *rm = r.data() + m * 128 * 128;
    double err = 0;
    for (int a = 0; a < 128; a += 7)
      for (int b = 0; b < 128; b += 5) {
        double dot = 0;
        for (int i = 0; i < 128; ++i)
          dot += double(bf16ToF32(rm[i * 128 + a])) * bf16ToF32(rm[i * 128 + b]);
        err = std::max(err, std::fabs(dot - (a == b)));
      }
    EXPECT_LT(err, 2e-2) << "matrix " << m;
  }
  EXPECT_FALSE(std::equal(r.begin(), r.begin() + 128 * 128, r.begin() + 128 * 128));
}

TEST(E2eInputs, SubnormalAndZeroRows) {
  std::mt19937_64 rng = runEngine(testing::testSeed("E2eInputs.SubnormalAndZeroRows"), 0);
  const KernelSpec spec = specOf(4096, 64, RotationKind::Hadamard);
  const std::vector<uint16_t> sub = activationRow(spec, Distribution::Subnormals, rng);
  size_t subnormals = 0;
  for (uint16_t v : sub)
    subnormals += (v & 0x7F80) == 0 && (v & 0x7F) != 0;
  EXPECT_GT(subnormals, sub.size() / 3);

  const std::vector<uint16_t> zeros = activationRow(spec, Distribution::ZeroBlocks, rng);
  size_t zeroUnits = 0;
  for (size_t u = 0; u < zeros.size() / 64; ++u)
    zeroUnits += std::all_of(zeros.begin() + u * 64, zeros.begin() + (u + 1) * 64,
                             [](uint16_t v) { return (v & 0x7FFF) == 0; });
  EXPECT_GT(zeroUnits, 0u);
}

TEST(E2eInputs, FiniteDistributionsAreFinite) {
  std::mt19937_64 rng = runEngine(testing::testSeed("E2eInputs.FiniteDistributionsAreFinite"), 0);
  for (int rs : {0, 32, 64, 128, 256})
    for (size_t d = 0; d < kNumFiniteDistributions; ++d) {
      const KernelSpec spec = specOf(16384, rs, rs ? RotationKind::Hadamard : RotationKind::None);
      const std::vector<uint16_t> row = activationRow(spec, Distribution(d), rng);
      for (uint16_t v : row)
        ASSERT_NE(v & 0x7F80, 0x7F80) << distributionName(Distribution(d)) << " RS=" << rs;
    }
}

// The non_finite rows reach every special case of the scale rules: a NaN,
// an infinity and a maximum at or above 1.75 * 2^127 (scale=even's rounding
// carries into exponent 255) each appear, and most blocks stay finite.
TEST(E2eInputs, NonFiniteRowsReachEverySpecialCase) {
  std::mt19937_64 rng =
      runEngine(testing::testSeed("E2eInputs.NonFiniteRowsReachEverySpecialCase"), 0);
  for (int rs : {0, 64, 128}) {
    const KernelSpec spec = specOf(4096, rs, rs ? RotationKind::Hadamard : RotationKind::None);
    size_t nans = 0, infs = 0, huge = 0, finite = 0;
    for (int r = 0; r < 8; ++r)
      for (uint16_t v : activationRow(spec, Distribution::NonFinite, rng)) {
        const uint16_t magnitude = v & 0x7FFF;
        nans += magnitude > 0x7F80;
        infs += magnitude == 0x7F80;
        huge += magnitude >= 0x7F60 && magnitude < 0x7F80;
        finite += magnitude < 0x7F80;
      }
    EXPECT_GT(nans, 0u) << "RS=" << rs;
    EXPECT_GT(infs, 0u) << "RS=" << rs;
    EXPECT_GT(huge, 0u) << "RS=" << rs;
    EXPECT_GT(finite, 8u * 4096 * 3 / 4) << "RS=" << rs;
  }
  EXPECT_EQ(distributionFor(5, 0), Distribution::NonFinite);
}

TEST(E2eInputs, RunsReplayFromTheSeed) {
  KernelSpec spec = specOf(512, 64, RotationKind::Learned);
  RunContext context;
  context.seed = 12345;
  context.specIndex = 3;
  const RunInputs a = drawInputs(spec, 3, context), b = drawInputs(spec, 3, context);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.r, b.r);
  context.run = 1;
  EXPECT_NE(drawInputs(spec, 3, context).x, a.x);
  EXPECT_EQ(rowCountsFor(16, 7), rowCountsFor(16, 7));
  EXPECT_EQ(rowCountsFor(1, 7), std::vector<int>{1});
  EXPECT_EQ(rowCountsFor(2, 7), (std::vector<int>{1, 2}));
  for (uint64_t seed = 0; seed < 50; ++seed) {
    const std::vector<int> counts = rowCountsFor(3, seed);
    ASSERT_EQ(counts, (std::vector<int>{1, 2, 3}));
  }
}

// y's NaNs: any NaN matches any NaN inside a row (a NaN's sign and payload
// are unspecified), but not in the stride gaps, and a finite difference or a
// NaN where numerics/ has a number is still caught.
TEST(E2eCheck, GemmYNanSignsMatchOnlyInsideRows) {
  auto image = [](std::vector<uint16_t> values) {
    std::vector<uint8_t> bytes(values.size() * 2);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  };
  // Two rows of 3 columns at a stride of 4 (one gap element per row).
  const std::vector<uint8_t> expected = image({0x3F80, 0xFFC0, 0x7FC1, 0xFFFF, 0, 1, 2, 0xFFFF});
  auto compare = [&](std::vector<uint16_t> got) { return compareGemmY(image(got), expected, 4, 3); };
  EXPECT_EQ(compare({0x3F80, 0x7FC0, 0xFFC0, 0xFFFF, 0, 1, 2, 0xFFFF}), "");
  EXPECT_NE(compare({0x3F80, 0x7FC0, 0xFFC0, 0x7FC0, 0, 1, 2, 0xFFFF}), "")
      << "a NaN of another sign in a stride gap";
  EXPECT_NE(compare({0x3F80, 0x7FC0, 0x7FC1, 0xFFFF, 0, 1, 3, 0xFFFF}), "");
  EXPECT_NE(compare({0x7FC0, 0xFFC0, 0x7FC1, 0xFFFF, 0, 1, 2, 0xFFFF}), "");
}

TEST(E2eCheck, ShuffledImageAndPlantedMismatch) {
  OutputShape shape;
  shape.k = 512;
  shape.bucket = 8;
  shape.qCols = 256;
  shape.sRows = 256;
  shape.sCols = 16;
  shape.layout = ScaleLayout::A4W4Shuffle;
  const size_t m = 3;
  std::vector<uint8_t> codes(m * 256), scales(m * 16);
  for (size_t i = 0; i < codes.size(); ++i)
    codes[i] = uint8_t(i * 7);
  for (size_t i = 0; i < scales.size(); ++i)
    scales[i] = uint8_t(100 + i);
  const ExpectedOutputs expected = expectedOutputs(shape, m, codes, scales, 0xA5);
  EXPECT_EQ(expected.bytesWritten, m * 256 + 256 * 16);
  const std::vector<uint8_t> shuffled = shuffleScalesA4W4(scales.data(), m, 16, 256);
  EXPECT_EQ(shuffled, expected.s);
  EXPECT_EQ(expected.q[m * 256], 0xA5);

  std::vector<uint8_t> q = expected.q, s = expected.s;
  EXPECT_TRUE(compareOutputs(expected, shape, q, s).ok());
  s[a4w4ScaleIndex(2, 5, 16)] ^= 1;        // a real scale
  s[a4w4ScaleIndex(200, 1, 16)] = 0xA5;    // padding left as poison
  q[5 * 256 + 3] = 0;                      // a row past M written
  const Comparison c = compareOutputs(expected, shape, q, s);
  ASSERT_EQ(c.mismatches, 3u);
  EXPECT_EQ(c.byRegion[size_t(Region::CodePastM)], 1u);
  EXPECT_EQ(c.byRegion[size_t(Region::Scale)], 1u);
  EXPECT_EQ(c.byRegion[size_t(Region::ScalePadding)], 1u);
  bool found = false;
  for (const Mismatch &mm : c.first)
    found |= mm.buffer[0] == 's' && mm.row == 2 && mm.byte == 5 && mm.region == Region::Scale;
  EXPECT_TRUE(found) << c.describe();
}

TEST(E2eCheck, PlainImageLeavesRowsPastM) {
  OutputShape shape;
  shape.k = 256;
  shape.bucket = 4;
  shape.qCols = 128;
  shape.sRows = 4;
  shape.sCols = 8;
  const ExpectedOutputs expected =
      expectedOutputs(shape, 1, std::vector<uint8_t>(128, 1), std::vector<uint8_t>(8, 2), 0x5B);
  EXPECT_EQ(expected.bytesWritten, 128u + 8u);
  EXPECT_EQ(expected.s[8], 0x5B);
  EXPECT_EQ(expected.sRegion[8], Region::ScalePastM);
  EXPECT_EQ(expected.s[7], 2);
}

} // namespace
} // namespace mxf::e2e
