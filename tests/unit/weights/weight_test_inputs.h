//===- weight_test_inputs.h - Random weight matrices for the tests -*- C++ -*-===//
#ifndef MXFORGE_TESTS_UNIT_WEIGHTS_WEIGHT_TEST_INPUTS_H
#define MXFORGE_TESTS_UNIT_WEIGHTS_WEIGHT_TEST_INPUTS_H

#include "numerics/formats.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace mxf::testing {

inline std::vector<uint16_t> normalBf16(size_t n, std::mt19937_64 &rng, float sigma = 0.02f) {
  std::normal_distribution<float> normal(0.0f, sigma);
  std::vector<uint16_t> out(n);
  for (uint16_t &v : out)
    v = f32ToBf16(normal(rng));
  return out;
}

/// Values chosen to break shortcuts: magnitudes over 60 binades, exact
/// zeros of both signs, repeated values that cancel exactly, bf16
/// subnormals, huge values whose sums overflow f32, and (when `specials`)
/// Inf and NaN.
inline std::vector<uint16_t> hostileBf16(size_t n, std::mt19937_64 &rng, bool specials) {
  std::vector<uint16_t> out(n);
  std::uniform_int_distribution<int> kind(0, 99);
  std::uniform_int_distribution<int> exponent(-40, 20);
  std::uniform_int_distribution<uint32_t> any16(0, 0xFFFF);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  uint16_t repeated = f32ToBf16(0.375f);
  for (size_t i = 0; i < n; ++i) {
    int k = kind(rng);
    if (k < 35)
      out[i] = f32ToBf16(std::ldexp(normal(rng), exponent(rng)));
    else if (k < 50)
      out[i] = (i & 1) ? repeated : uint16_t(repeated ^ 0x8000); // cancels in sums
    else if (k < 60)
      out[i] = (k & 1) ? 0x0000 : 0x8000;
    else if (k < 67)
      out[i] = uint16_t(any16(rng) & 0x807F); // subnormal (or zero)
    else if (k < 72)
      out[i] = uint16_t((any16(rng) & 0x807F) | 0x7E80); // near the f32 maximum
    else if (k < 74 && specials)
      out[i] = (k & 1) ? 0x7F80 : uint16_t(0xFFC1); // Inf, NaN with payload
    else
      out[i] = f32ToBf16(normal(rng));
  }
  return out;
}

/// A random orthogonal-ish learned rotation: Hadamard rows with random
/// signs and a random permutation, rounded to bf16 (one matrix per block
/// when `blocks` > 1), plus small random perturbations so that the entries
/// are not all one magnitude.
inline std::vector<uint16_t> learnedRotation(int rs, size_t blocks, std::mt19937_64 &rng) {
  std::vector<uint16_t> out(blocks * size_t(rs) * rs);
  std::normal_distribution<float> noise(0.0f, 0.02f);
  const float norm = 1.0f / std::sqrt(float(rs));
  for (size_t b = 0; b < blocks; ++b)
    for (int i = 0; i < rs; ++i)
      for (int j = 0; j < rs; ++j) {
        float sign = (__builtin_popcount(unsigned(i & j)) & 1) ? -1.0f : 1.0f;
        out[b * rs * rs + size_t(i) * rs + j] = f32ToBf16(sign * norm * (1.0f + noise(rng)));
      }
  return out;
}

} // namespace mxf::testing

#endif // MXFORGE_TESTS_UNIT_WEIGHTS_WEIGHT_TEST_INPUTS_H
