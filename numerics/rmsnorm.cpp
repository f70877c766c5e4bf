//===- rmsnorm.cpp - Residual add + RMSNorm, the order defined -------------===//

#include "numerics/rmsnorm.h"

#include "numerics/formats.h"

#include <cassert>
#include <cmath>

namespace mxf {

void residualAddRow(const uint16_t *x, const uint16_t *residual, size_t k, uint16_t *z) {
  for (size_t i = 0; i < k; ++i)
    z[i] = residual ? f32ToBf16(bf16ToF32(x[i]) + bf16ToF32(residual[i])) : x[i];
}

float sumOfSquaresF32(const uint16_t *z, size_t k) {
  assert(k % 32 == 0 && k > 0);
  float sum = 0.0f;
  for (size_t block = 0; block < k / 32; ++block) {
    float group[4];
    for (size_t g = 0; g < 4; ++g) {
      const uint16_t *channels = z + block * 32 + g * 8;
      float q = bf16ToF32(channels[0]) * bf16ToF32(channels[0]);
      for (size_t i = 1; i < 8; ++i)
        q += bf16ToF32(channels[i]) * bf16ToF32(channels[i]);
      group[g] = q;
    }
    const float partial = (group[0] + group[1]) + (group[2] + group[3]);
    sum = block == 0 ? partial : sum + partial;
  }
  return sum;
}

float rmsScaleF32(float sumOfSquares, size_t k, float eps) {
  const float mean = sumOfSquares / static_cast<float>(k);
  const float v = mean + eps;
  const float root = std::sqrt(v); // IEEE: correctly rounded
  return 1.0f / root;
}

RmsNormRows rmsNormRows(const uint16_t *x, const uint16_t *residual, const uint16_t *gamma,
                        float eps, size_t m, size_t k) {
  RmsNormRows rows{std::vector<uint16_t>(m * k), std::vector<uint16_t>(m * k)};
  for (size_t row = 0; row < m; ++row) {
    uint16_t *z = rows.z.data() + row * k;
    residualAddRow(x + row * k, residual ? residual + row * k : nullptr, k, z);
    const float s = rmsScaleF32(sumOfSquaresF32(z, k), k, eps);
    uint16_t *y = rows.y.data() + row * k;
    for (size_t i = 0; i < k; ++i) {
      const float normalized = bf16ToF32(f32ToBf16(bf16ToF32(z[i]) * s));
      y[i] = f32ToBf16(normalized * bf16ToF32(gamma[i]));
    }
  }
  return rows;
}

} // namespace mxf
