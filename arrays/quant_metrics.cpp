//===- quant_metrics.cpp - How much a quantization loses ------------------===//

#include "arrays/quant_metrics.h"

#include "numerics/formats.h"
#include "numerics/quantize.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace mxf::arrays {
namespace {

/// Largest |dq - v| / s for an element at scaled magnitude u (see
/// roundTripWorstRatio): the saturation loss above max, else half the grid
/// spacing at u (a full spacing for stochastic rounding).
double elementErrorBound(const FormatInfo &info, double u, Rounding rounding) {
  if (u > info.maxValue)
    return u - info.maxValue;
  const int minExponent = 1 - info.bias; // of the smallest normal; subnormals share its spacing
  const int exponent = u > 0 ? std::max(minExponent, std::ilogb(u)) : minExponent;
  const double spacing = std::ldexp(1.0, exponent - info.mbits);
  return rounding == Rounding::Sr ? spacing : spacing / 2;
}

/// ||R R^T - I||_F of one block matrix.
double orthogonalityDefect(const std::vector<double> &r, size_t rs) {
  double sum = 0.0;
  for (size_t i = 0; i < rs; ++i)
    for (size_t j = 0; j < rs; ++j) {
      double dot = 0.0;
      for (size_t c = 0; c < rs; ++c)
        dot += r[i * rs + c] * r[j * rs + c];
      const double diff = dot - (i == j ? 1.0 : 0.0);
      sum += diff * diff;
    }
  return std::sqrt(sum);
}

} // namespace

double relativeRmsError(const std::vector<float> &approx, const std::vector<float> &exact) {
  assert(approx.size() == exact.size());
  double error = 0.0, reference = 0.0;
  for (size_t i = 0; i < exact.size(); ++i) {
    const double diff = double(approx[i]) - double(exact[i]);
    error += diff * diff;
    reference += double(exact[i]) * double(exact[i]);
  }
  if (reference == 0.0)
    return error == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(error / reference);
}

std::vector<float> rotatedRows(const RotateQuantProblem &problem, const uint16_t *x, size_t rows,
                               const uint16_t *rotation) {
  std::vector<float> out(rows * problem.k);
  for (size_t row = 0; row < rows; ++row)
    rotateForQuant(problem, x + row * problem.k, rotation, out.data() + row * problem.k);
  return out;
}

double clippedFraction(const std::vector<float> &values, const QuantizedRows &quantized) {
  if (values.empty())
    return 0.0;
  const double maxValue = formatInfo(quantized.format).maxValue;
  const size_t cols = quantized.k / kMxBlock;
  size_t clipped = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const size_t row = i / quantized.k, block = (i % quantized.k) / kMxBlock;
    const double limit = maxValue * e8m0Value(quantized.scales[row * cols + block]);
    clipped += std::fabs(double(values[i])) > limit;
  }
  return double(clipped) / double(values.size());
}

std::vector<double> rotationBlockMatrix(const RotationConfig &rotation, size_t block,
                                        const uint16_t *learned) {
  const size_t rs = static_cast<size_t>(rotation.rs);
  std::vector<double> r;
  switch (rotation.kind) {
  case RotationKind::None:
    break;
  case RotationKind::Hadamard:
    for (uint16_t v : hadamardMatrixBf16(rotation.rs))
      r.push_back(bf16ToF32(v));
    break;
  case RotationKind::HadamardButterfly: {
    const double norm = 1.0 / std::sqrt(double(rs));
    for (size_t i = 0; i < rs; ++i)
      for (size_t j = 0; j < rs; ++j)
        r.push_back(__builtin_popcountll(i & j) % 2 ? -norm : norm);
    break;
  }
  case RotationKind::Learned:
  case RotationKind::LearnedPerBlock: {
    const uint16_t *m =
        rotation.kind == RotationKind::Learned ? learned : learned + block * rs * rs;
    const bool transposed = rotation.convention == RotationConvention::XRt;
    for (size_t i = 0; i < rs; ++i) // r[i][j] = R(in i, out j)
      for (size_t j = 0; j < rs; ++j)
        r.push_back(bf16ToF32(transposed ? m[j * rs + i] : m[i * rs + j]));
    break;
  }
  }
  return r;
}

std::vector<float> unrotateRows(const RotationConfig &rotation, const std::vector<float> &values,
                                size_t k, const uint16_t *learned) {
  if (rotation.kind == RotationKind::None)
    return std::vector<float>(values.begin(), values.end());
  const size_t rs = static_cast<size_t>(rotation.rs);
  std::vector<float> out(values.size());
  std::vector<double> r;
  for (size_t base = 0; base < values.size(); base += rs) {
    const size_t block = (base % k) / rs;
    if (r.empty() || rotation.kind == RotationKind::LearnedPerBlock)
      r = rotationBlockMatrix(rotation, block, learned);
    // y = v . R^T: y[i] = sum_j v[j] R[i][j].
    for (size_t i = 0; i < rs; ++i) {
      double sum = 0.0;
      for (size_t j = 0; j < rs; ++j)
        sum += double(values[base + j]) * r[i * rs + j];
      out[base + i] = static_cast<float>(sum);
    }
  }
  return out;
}

RoundTripCheck checkRoundTrip(const RotateQuantProblem &problem, const uint16_t *x, size_t rows,
                              const uint16_t *rotation, const QuantizedRows &quantized) {
  const size_t k = problem.k, cols = k / kMxBlock;
  const std::vector<float> rotated = rotatedRows(problem, x, rows, rotation);
  const std::vector<float> dequantized = dequantizeRows(quantized);
  const std::vector<float> restored = unrotateRows(problem.rotation, dequantized, k, rotation);
  const FormatInfo &info = formatInfo(quantized.format);

  // Rounding of the rotation itself: f32 sums (a few ulps of the block's
  // norm), or one bf16 rounding of each rotated value.
  const double eps = problem.inter == Intermediate::Bf16 ? 0x1.0p-8 : 1e-5;
  const bool rotates = problem.rotation.kind != RotationKind::None;
  const size_t blockSize = rotates ? static_cast<size_t>(problem.rotation.rs) : kMxBlock;
  std::vector<double> defects; // per rotation block of a row
  for (size_t b = 0; rotates && b < k / blockSize; ++b) {
    if (b > 0 && problem.rotation.kind != RotationKind::LearnedPerBlock) {
      defects.push_back(defects.front());
      continue;
    }
    defects.push_back(
        orthogonalityDefect(rotationBlockMatrix(problem.rotation, b, rotation), blockSize));
  }

  RoundTripCheck check;
  const double inf = std::numeric_limits<double>::infinity();
  auto worst = [&](double &into, double ratio) {
    into = std::isnan(ratio) ? inf : std::max(into, ratio);
  };
  for (size_t row = 0; row < rows; ++row) {
    for (size_t b = 0; b < k / blockSize; ++b) {
      double restore2 = 0.0, quant2 = 0.0, bound2 = 0.0, norm2 = 0.0;
      for (size_t c = b * blockSize; c < (b + 1) * blockSize; ++c) {
        const size_t i = row * k + c;
        const double xi = bf16ToF32(x[i]);
        const double restoreDiff = double(restored[i]) - xi;
        const double quantDiff = double(dequantized[i]) - double(rotated[i]);
        const double s = e8m0Value(quantized.scales[row * cols + c / kMxBlock]);
        const double e =
            s * elementErrorBound(info, std::fabs(double(rotated[i])) / s, problem.quant.rounding);
        // e > 0 for every finite v; 0/0 cannot happen, NaN means NaN data.
        worst(check.elementRatio, std::fabs(quantDiff) / e);
        restore2 += restoreDiff * restoreDiff;
        quant2 += quantDiff * quantDiff;
        bound2 += e * e;
        norm2 += xi * xi;
      }
      const double d = rotates ? defects[b] : 0.0;
      const double norm = std::sqrt(norm2), restore = std::sqrt(restore2);
      auto allowed = [&](double quantError) {
        return (1 + d) * (quantError + eps * norm) + d * norm + 1e-30;
      };
      worst(check.restoreRatio, restore / allowed(std::sqrt(quant2)));
      worst(check.boundRatio, restore / allowed(std::sqrt(bound2)));
    }
  }
  return check;
}

} // namespace mxf::arrays
