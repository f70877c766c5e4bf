//===- quantize.h - MX block quantization of one row -------------*- C++ -*-===//
//
// For every 32 consecutive values: amax (f32; NaN if any value is NaN), the
// scale byte from the spec's rule, then each value converted with the scaled
// conversion (nearest even, or stochastic with srRandomForElement).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_NUMERICS_QUANTIZE_H
#define MXFORGE_NUMERICS_QUANTIZE_H

#include "numerics/formats.h"
#include "numerics/options.h"
#include "numerics/scale_rules.h"

#include <cstddef>
#include <cstdint>

namespace mxf {

constexpr size_t kMxBlock = 32; // elements sharing one E8M0 scale

struct QuantConfig {
  ElemFormat format = ElemFormat::E2M1;
  ScaleRule rule = ScaleRule::Even;
  Rounding rounding = Rounding::Rne;
  uint32_t seed = 0; // stochastic rounding only
};

/// amax of a block: the largest |v|, or NaN when any value is NaN.
float blockAmax(const float *values, size_t n);

/// The value an element is encoded from under `rule`: itself, except that
/// scale=even126 (seed 003's round_e2m3) signs its result with torch.sign,
/// and torch.sign(-0.0) is +0, so a -0.0 element becomes +0.0 (code 0x00);
/// a negative element that rounds to zero keeps its sign (0x20 in fp6).
inline float elementToEncode(ScaleRule rule, float value) {
  return rule == ScaleRule::Even126 && value == 0.0f ? 0.0f : value;
}

/// Quantize k values (k a multiple of 32) of row `row` into k unpacked codes
/// and k/32 scale bytes. The row index feeds stochastic rounding's element
/// index (row * k + column).
void quantizeRow(const QuantConfig &config, const float *values, size_t k, uint64_t row,
                 uint8_t *codes, uint8_t *scales);

} // namespace mxf

#endif // MXFORGE_NUMERICS_QUANTIZE_H
