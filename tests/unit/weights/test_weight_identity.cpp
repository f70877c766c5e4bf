//===- test_weight_identity.cpp - (x.R).(W.R)^T = x.W^T through MXFP4 -----===//
//
// Rotated activations only give the right product against weights rotated
// the same way. On real-size shapes (K = 4096, N = 256, 16 rows of x), with
// W quantized by the host path and dequantized, y = (x.R).dequant(Q(W.R))^T
// must match x.W^T within the quantization error: relative Frobenius error
// below 0.15 for MXFP4 and 0.04 for MXFP6 E2M3 (measured about 0.10 and
// 0.025 on normal weights with outlier channels). The same weights against
// the unrotated x must be far off (above 0.9), or the test would pass
// without the rotation mattering.
//
//===----------------------------------------------------------------------===//

#include "numerics/formats.h"
#include "numerics/reference.h"
#include "test_seed.h"
#include "weight_test_inputs.h"
#include "weights/host_quantizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace mxf {
namespace {

double relativeError(const std::vector<double> &got, const std::vector<double> &want) {
  double err = 0, norm = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    err += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(err / norm);
}

/// a [m, k] times b [n, k] transposed, in double.
std::vector<double> matmulT(const std::vector<float> &a, const std::vector<float> &b, size_t m,
                            size_t n, size_t k) {
  std::vector<double> y(m * n);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      double s = 0;
      for (size_t c = 0; c < k; ++c)
        s += double(a[i * k + c]) * b[j * k + c];
      y[i * n + j] = s;
    }
  return y;
}

TEST(WeightIdentity, RotatedActivationsTimesRotatedWeightsEqualThePlainProduct) {
  std::mt19937_64 rng(testing::testSeed("WeightIdentity.RS32to256"));
  const size_t m = 16, n = 256, k = 4096;
  std::vector<uint16_t> x = testing::normalBf16(m * k, rng, 1.0f);
  std::vector<uint16_t> w = testing::normalBf16(n * k, rng, 0.02f);
  for (size_t j = 0; j < n; ++j) // outlier input channels, as real layers have
    for (size_t c = 0; c < k; c += 397)
      w[j * k + c] = f32ToBf16(bf16ToF32(w[j * k + c]) * 20.0f);
  std::vector<float> xf(m * k), wf(n * k);
  for (size_t i = 0; i < xf.size(); ++i)
    xf[i] = bf16ToF32(x[i]);
  for (size_t i = 0; i < wf.size(); ++i)
    wf[i] = bf16ToF32(w[i]);
  const std::vector<double> want = matmulT(xf, wf, m, n, k);

  for (ElemFormat format : {ElemFormat::E2M1, ElemFormat::E2M3}) {
    const double tolerance = format == ElemFormat::E2M1 ? 0.15 : 0.04;
    for (int rs : kSupportedRotationSizes) {
      RotateQuantProblem p;
      p.k = k;
      p.rotation = {RotationKind::Hadamard, rs, 32};
      p.quant.format = format;
      Result<QuantizedRows> q =
          weights::quantWeightHost(p, WeightLayout::Plain, w.data(), n, nullptr, 2);
      ASSERT_TRUE(q.ok()) << q.error();
      const std::vector<float> wq = dequantizeRows(q.value());
      std::vector<float> xr(m * k);
      for (size_t i = 0; i < m; ++i)
        rotateForQuant(p, x.data() + i * k, nullptr, xr.data() + i * k);
      const double rotated = relativeError(matmulT(xr, wq, m, n, k), want);
      const double unrotated = relativeError(matmulT(xf, wq, m, n, k), want);
      std::printf("[ identity ] %s RS=%d: relative error %.4f rotated, %.4f unrotated x\n",
                  formatInfo(format).specName, rs, rotated, unrotated);
      EXPECT_LT(rotated, tolerance) << formatInfo(format).specName << " RS=" << rs;
      EXPECT_GT(unrotated, 0.9) << formatInfo(format).specName << " RS=" << rs;
    }
  }
}

} // namespace
} // namespace mxf
