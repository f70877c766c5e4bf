//===- test_rotation.cpp - Hadamard, learned rotations, summation order ---===//

#include "numerics/rotation.h"

#include "numerics/formats.h"
#include "test_seed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace mxf {
namespace {

/// A random orthogonal rs x rs matrix (Gram-Schmidt on Gaussian rows, in
/// double), optionally rounded to bf16.
std::vector<double> randomOrthogonal(int rs, std::mt19937_64 &rng) {
  std::normal_distribution<double> normal;
  std::vector<double> q(size_t(rs) * rs);
  for (double &v : q)
    v = normal(rng);
  for (int i = 0; i < rs; ++i) {
    for (int p = 0; p < i; ++p) {
      double dot = 0;
      for (int j = 0; j < rs; ++j)
        dot += q[size_t(i) * rs + j] * q[size_t(p) * rs + j];
      for (int j = 0; j < rs; ++j)
        q[size_t(i) * rs + j] -= dot * q[size_t(p) * rs + j];
    }
    double norm = 0;
    for (int j = 0; j < rs; ++j)
      norm += q[size_t(i) * rs + j] * q[size_t(i) * rs + j];
    for (int j = 0; j < rs; ++j)
      q[size_t(i) * rs + j] /= std::sqrt(norm);
  }
  return q;
}

std::vector<uint16_t> toBf16(const std::vector<double> &values) {
  std::vector<uint16_t> out(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = f32ToBf16(float(values[i]));
  return out;
}

/// Rows of R . R^T computed in double from the bf16/f32 entries.
double maxDeviationFromIdentity(const std::vector<double> &r, int rs) {
  double worst = 0;
  for (int i = 0; i < rs; ++i)
    for (int j = 0; j < rs; ++j) {
      double dot = 0;
      for (int k = 0; k < rs; ++k)
        dot += r[size_t(i) * rs + k] * r[size_t(j) * rs + k];
      worst = std::max(worst, std::fabs(dot - (i == j ? 1.0 : 0.0)));
    }
  return worst;
}

TEST(Rotation, HadamardNormIsCorrectlyRounded) {
  for (int rs : kSupportedRotationSizes) {
    float norm = hadamardNormF32(rs);
    long double exact = 1.0L / std::sqrt((long double)rs);
    long double below = std::nextafter(norm, 0.0f), above = std::nextafter(norm, 1.0f);
    EXPECT_LE(std::fabs(norm - exact), std::fabs(below - exact)) << rs;
    EXPECT_LE(std::fabs(norm - exact), std::fabs(above - exact)) << rs;
  }
  EXPECT_EQ(hadamardNormF32(64), 0.125f);
  EXPECT_EQ(hadamardNormF32(256), 0.0625f);
}

TEST(Rotation, HadamardMatrixIsOrthogonalWithinItsRounding) {
  for (int rs : kSupportedRotationSizes) {
    std::vector<uint16_t> h = hadamardMatrixBf16(rs);
    std::vector<double> entries(h.size());
    for (size_t i = 0; i < h.size(); ++i)
      entries[i] = bf16ToF32(h[i]);
    // Symmetric, entries +-1/sqrt(rs) rounded to bf16.
    for (int i = 0; i < rs; ++i)
      for (int j = 0; j < rs; ++j)
        ASSERT_EQ(h[size_t(i) * rs + j], h[size_t(j) * rs + i]);
    // Powers of 4 are exact; 32 and 128 carry the bf16 rounding of 1/sqrt(rs)
    // (relative 2^-9 at most), squared into the diagonal.
    double tolerance = (rs == 64 || rs == 256) ? 0.0 : 2 * std::ldexp(1.0, -8);
    EXPECT_LE(maxDeviationFromIdentity(entries, rs), tolerance) << rs;
  }
}

TEST(Rotation, ButterflyRotationIsOrthogonalWithinF32Rounding) {
  for (int rs : kSupportedRotationSizes) {
    // Rotating each unit vector gives the rows of the butterfly's matrix.
    std::vector<double> rows(size_t(rs) * rs);
    std::vector<uint16_t> unit(rs);
    std::vector<float> y(rs);
    for (int i = 0; i < rs; ++i) {
      std::fill(unit.begin(), unit.end(), 0);
      unit[size_t(i)] = f32ToBf16(1.0f);
      rotateRow({RotationKind::HadamardButterfly, rs, 32}, unit.data(), size_t(rs), nullptr,
                y.data());
      for (int j = 0; j < rs; ++j)
        rows[size_t(i) * rs + j] = y[size_t(j)];
    }
    EXPECT_LE(maxDeviationFromIdentity(rows, rs), 1e-6) << rs;
  }
}

TEST(Rotation, LearnedRandomOrthogonalInBf16) {
  std::mt19937_64 rng(testing::testSeed("Rotation.LearnedOrthogonal"));
  for (int rs : kSupportedRotationSizes) {
    std::vector<uint16_t> r = toBf16(randomOrthogonal(rs, rng));
    std::vector<double> entries(r.size());
    for (size_t i = 0; i < r.size(); ++i)
      entries[i] = bf16ToF32(r[i]);
    // bf16 keeps 8 bits: each row's error is about 2^-9 relative in norm.
    EXPECT_LE(maxDeviationFromIdentity(entries, rs), 0.02) << rs;
  }
}

/// The matrix path by its definition, computed differently: inputs whose
/// exponents span a small range, so the exact chunk sum fits a long double's
/// 64-bit significand and one cast to float is the one rounding.
TEST(Rotation, MatrixPathMatchesItsDefinitionForEveryChunkSize) {
  std::mt19937_64 rng(testing::testSeed("Rotation.MatrixPathDefinition"));
  std::uniform_real_distribution<double> mag(-1, 1);
  auto narrowBf16 = [&]() { // |v| in [2^-12, 1): products span 2^-24..1
    double v = mag(rng);
    double a = std::max(std::fabs(v), std::ldexp(1.0, -12));
    return f32ToBf16(float(std::copysign(a, v)));
  };
  for (int rs : kSupportedRotationSizes)
    for (int chunk : {32, 64, rs}) {
      if (rs % chunk)
        continue;
      const size_t k = size_t(rs) * 2;
      std::vector<uint16_t> x(k), r(size_t(rs) * rs);
      for (uint16_t &v : x)
        v = narrowBf16();
      for (uint16_t &v : r)
        v = narrowBf16();
      std::vector<float> y(k);
      rotateRow({RotationKind::Learned, rs, chunk}, x.data(), k, r.data(), y.data());
      for (size_t b = 0; b < k; b += size_t(rs))
        for (int j = 0; j < rs; ++j) {
          float acc = 0.0f;
          for (int k0 = 0; k0 < rs; k0 += chunk) {
            long double exact = acc;
            for (int i = k0; i < k0 + chunk; ++i)
              exact += (long double)bf16ToF32(x[b + size_t(i)]) * bf16ToF32(r[size_t(i) * rs + j]);
            acc = float(exact);
          }
          ASSERT_EQ(f32Bits(y[b + size_t(j)]), f32Bits(acc))
              << "rs " << rs << " chunk " << chunk << " j " << j;
        }
    }
}

TEST(Rotation, TransposedConventionIsTheSameProductOfRGivenAsROutIn) {
  // rconv=xrt: r holds R[out][in]. Rotating with it must give the bits of
  // convention xr with the transposed matrix, and differ from reading r as
  // R[in][out] (negative control: an R that is not symmetric).
  std::mt19937_64 rng(testing::testSeed("Rotation.Transposed"));
  for (RotationKind kind : {RotationKind::Learned, RotationKind::LearnedPerBlock})
    for (int rs : kSupportedRotationSizes) {
      const size_t k = size_t(rs) * 2;
      const size_t blocks = kind == RotationKind::Learned ? 1 : 2;
      std::normal_distribution<float> normal;
      std::vector<uint16_t> x(k), given;
      for (uint16_t &v : x)
        v = f32ToBf16(normal(rng));
      for (size_t b = 0; b < blocks; ++b) {
        std::vector<uint16_t> r = toBf16(randomOrthogonal(rs, rng));
        given.insert(given.end(), r.begin(), r.end());
      }
      RotationConfig transposed{kind, rs, 32, RotationConvention::XRt};
      RotationConfig plain{kind, rs, 32, RotationConvention::XR};
      std::vector<uint16_t> inOut = learnedMatricesXR(transposed, k, given.data());
      for (size_t b = 0; b < blocks; ++b) // hand-checked positions
        for (int i : {0, 1, rs - 1})
          for (int j : {0, 2, rs - 1})
            ASSERT_EQ(inOut[b * rs * rs + size_t(i) * rs + j], given[b * rs * rs + size_t(j) * rs + i]);
      EXPECT_EQ(learnedMatricesXR(plain, k, given.data()), given);
      std::vector<float> viaXrt(k), viaXr(k), misread(k);
      rotateRow(transposed, x.data(), k, given.data(), viaXrt.data());
      rotateRow(plain, x.data(), k, inOut.data(), viaXr.data());
      rotateRow(plain, x.data(), k, given.data(), misread.data());
      size_t differing = 0;
      for (size_t i = 0; i < k; ++i) {
        ASSERT_EQ(f32Bits(viaXrt[i]), f32Bits(viaXr[i])) << "rs " << rs << " element " << i;
        differing += f32Bits(viaXrt[i]) != f32Bits(misread[i]);
      }
      EXPECT_GT(differing, k / 2) << "rs " << rs;
    }
}

TEST(Rotation, ChunkSizeIsPartOfTheDefinition) {
  // One chunk of 256 and eight chunks of 32 round differently for some input.
  std::mt19937_64 rng(testing::testSeed("Rotation.ChunkMatters"));
  std::normal_distribution<float> normal;
  const int rs = 256;
  std::vector<uint16_t> x(rs), r(size_t(rs) * rs);
  for (uint16_t &v : r)
    v = f32ToBf16(normal(rng) * 0.06f);
  size_t differing = 0;
  for (int trial = 0; trial < 8; ++trial) {
    for (uint16_t &v : x)
      v = f32ToBf16(normal(rng));
    std::vector<float> a(rs), b(rs);
    rotateRow({RotationKind::Learned, rs, 32}, x.data(), rs, r.data(), a.data());
    rotateRow({RotationKind::Learned, rs, 256}, x.data(), rs, r.data(), b.data());
    for (int j = 0; j < rs; ++j)
      differing += a[size_t(j)] != b[size_t(j)];
  }
  EXPECT_GT(differing, 0u);
}

TEST(Rotation, HadamardPathsAgreeWithTheExactTransformClosely) {
  std::mt19937_64 rng(testing::testSeed("Rotation.HadamardPaths"));
  std::normal_distribution<float> normal;
  for (int rs : kSupportedRotationSizes) {
    std::vector<uint16_t> x(size_t(rs) * 4);
    for (uint16_t &v : x)
      v = f32ToBf16(normal(rng));
    std::vector<float> matrix(x.size()), butterfly(x.size());
    rotateRow({RotationKind::Hadamard, rs, 32}, x.data(), x.size(), nullptr, matrix.data());
    rotateRow({RotationKind::HadamardButterfly, rs, 32}, x.data(), x.size(), nullptr,
              butterfly.data());
    for (size_t b = 0; b < x.size(); b += size_t(rs))
      for (int j = 0; j < rs; ++j) {
        double exact = 0;
        for (int i = 0; i < rs; ++i)
          exact += bf16ToF32(x[b + size_t(i)]) *
                   ((__builtin_popcount(unsigned(i & j)) & 1) ? -1.0 : 1.0);
        exact /= std::sqrt(double(rs));
        double scale = std::sqrt(double(rs)) * 4; // |y| bound for these inputs, loosely
        EXPECT_NEAR(butterfly[b + size_t(j)], exact, 1e-6 * scale);
        // The matrix path multiplies by the bf16-rounded 1/sqrt(rs).
        double bf16Rel = (rs == 64 || rs == 256) ? 1e-6 : std::ldexp(1.0, -8);
        EXPECT_NEAR(matrix[b + size_t(j)], exact, bf16Rel * std::fabs(exact) + 1e-6 * scale);
      }
  }
}

TEST(Rotation, WeightIdentityHolds) {
  // (x.R).(W.R)^T = x.W^T for an orthogonal R, here with bf16 R and f32 rotation.
  std::mt19937_64 rng(testing::testSeed("Rotation.WeightIdentity"));
  std::normal_distribution<float> normal;
  for (RotationKind kind : {RotationKind::Hadamard, RotationKind::HadamardButterfly,
                            RotationKind::Learned, RotationKind::LearnedPerBlock})
    for (int rs : kSupportedRotationSizes) {
      const size_t k = size_t(rs) * 2, n = 8;
      std::vector<uint16_t> r;
      if (kind == RotationKind::Learned)
        r = toBf16(randomOrthogonal(rs, rng));
      if (kind == RotationKind::LearnedPerBlock)
        for (int b = 0; b < 2; ++b) {
          std::vector<uint16_t> block = toBf16(randomOrthogonal(rs, rng));
          r.insert(r.end(), block.begin(), block.end());
        }
      std::vector<uint16_t> x(k), w(n * k);
      for (uint16_t &v : x)
        v = f32ToBf16(normal(rng));
      for (uint16_t &v : w)
        v = f32ToBf16(normal(rng));
      std::vector<float> xr(k), wr(n * k);
      RotationConfig config{kind, rs, 32};
      rotateRow(config, x.data(), k, r.data(), xr.data());
      for (size_t j = 0; j < n; ++j)
        rotateRow(config, w.data() + j * k, k, r.data(), wr.data() + j * k);
      for (size_t j = 0; j < n; ++j) {
        double rotated = 0, plain = 0, magnitude = 0;
        for (size_t i = 0; i < k; ++i) {
          rotated += double(xr[i]) * wr[j * k + i];
          plain += double(bf16ToF32(x[i])) * bf16ToF32(w[j * k + i]);
          magnitude += std::fabs(double(bf16ToF32(x[i])) * bf16ToF32(w[j * k + i]));
        }
        // bf16 matrices are orthogonal to ~2^-8; f32 butterflies to ~1e-6.
        EXPECT_NEAR(rotated, plain, 0.02 * magnitude + 1e-3)
            << rotationKindName(kind) << " rs " << rs;
      }
    }
}

TEST(Rotation, ConfigurationChecks) {
  EXPECT_TRUE(checkRotation({RotationKind::Hadamard, 64, 32}, 4096).ok());
  EXPECT_FALSE(checkRotation({RotationKind::Hadamard, 48, 16}, 4096).ok());
  EXPECT_NE(checkRotation({RotationKind::Hadamard, 128, 32}, 4160).message().find("K=4160"),
            std::string::npos);
  EXPECT_FALSE(checkRotation({RotationKind::None, 64, 32}, 4096).ok());
  EXPECT_FALSE(checkRotation({RotationKind::Learned, 64, 48}, 4096).ok());
  EXPECT_EQ(rotationMatrixElements(RotationKind::LearnedPerBlock, 64, 4096), 64u * 64 * 64);
  EXPECT_EQ(rotationMatrixElements(RotationKind::Hadamard, 64, 4096), 0u);
}

} // namespace
} // namespace mxf
