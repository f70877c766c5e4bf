//===- exact_accumulator.h - Exact sums rounded once -------------*- C++ -*-===//
//
// The MFMA model of GFX950_SEMANTICS.md C9: a matrix instruction adds the
// exact dot product of its chunk (products of bf16 or MX values are exact) to
// the f32 accumulator and rounds once, to nearest even. The accumulator here
// holds any sum of finite doubles exactly (a 2,176-bit fixed-point number), so
// "exact, then one rounding" is literally what it computes.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_NUMERICS_EXACT_ACCUMULATOR_H
#define MXFORGE_NUMERICS_EXACT_ACCUMULATOR_H

#include <array>
#include <cstddef>
#include <cstdint>

namespace mxf {

class ExactAccumulator {
public:
  /// Add a double exactly. Inf and NaN follow IEEE: NaN if any NaN or both
  /// infinities were added, else the infinity.
  void add(double term);
  /// The sum rounded to f32, nearest even (overflow gives +-Inf; an exact
  /// zero sum is +0, or -0 when every term added was -0).
  float roundToF32() const;
  void clear() { *this = ExactAccumulator(); }

private:
  // Bit i of a magnitude has weight 2^(i - kLsbOffset); doubles need
  // 2^-1074 .. 2^1024, plus headroom for carries.
  static constexpr int kLsbOffset = 1074;
  static constexpr size_t kLimbs = 34;
  using Magnitude = std::array<uint64_t, kLimbs>;

  static void addBits(Magnitude &target, uint64_t mantissa, int bitPosition);

  Magnitude positive_{}; // sum of the positive terms
  Magnitude negative_{}; // sum of the magnitudes of the negative terms
  bool sawNaN_ = false, sawPosInf_ = false, sawNegInf_ = false;
  bool allNegativeZero_ = true; // IEEE: (-0) + (-0) = -0
};

/// acc + sum(terms), computed exactly and rounded once to f32.
float fusedSumF32(float acc, const double *terms, size_t n);

} // namespace mxf

#endif // MXFORGE_NUMERICS_EXACT_ACCUMULATOR_H
