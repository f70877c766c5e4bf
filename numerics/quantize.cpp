//===- quantize.cpp - MX block quantization of one row --------------------===//

#include "numerics/quantize.h"

#include "numerics/a6w6.h"
#include "numerics/stochastic.h"

#include <cmath>

namespace mxf {

float blockAmax(const float *values, size_t n) {
  float amax = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    float magnitude = std::fabs(values[i]);
    if (std::isnan(magnitude))
      return magnitude;
    amax = magnitude > amax ? magnitude : amax;
  }
  return amax;
}

void quantizeRow(const QuantConfig &config, const float *values, size_t k, uint64_t row,
                 uint8_t *codes, uint8_t *scales) {
  for (size_t block = 0; block < k / kMxBlock; ++block) {
    const float *v = values + block * kMxBlock;
    uint8_t scale = computeScaleByte(config.rule, config.format, blockAmax(v, kMxBlock));
    scales[block] = scale;
    for (size_t i = 0; i < kMxBlock; ++i) {
      size_t column = block * kMxBlock + i;
      const float value = elementToEncode(config.rule, v[i]);
      switch (config.rounding) {
      case Rounding::Rne:
        codes[column] = encodeElemRne(config.format, value, scale);
        break;
      case Rounding::Sr:
        codes[column] = encodeElemSr(config.format, value, scale,
                                     srRandomForElement(config.seed, row * k + column));
        break;
      case Rounding::Rna: // fp6_e2m3 only (the spec's rule)
        codes[column] = encodeE2M3HalfAway(value, scale);
        break;
      }
    }
  }
}

} // namespace mxf
