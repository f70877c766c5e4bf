//===- row_rotator.h - The reference rotation, fast --------------*- C++ -*-===//
//
// numerics/rotation.h defines the rotation of quant_weight by its summation
// order: for every output channel, chunks of `chunk` input channels in
// ascending order, each chunk's exact dot product added to an f32
// accumulator with one rounding. Only the chunk boundaries and the one
// rounding per chunk are observable; inside a chunk the sum is exact, so any
// order of computing it that yields the exact value (or a value whose
// rounding is provably the same) gives identical bits. RowRotator uses that:
//
//  - hadamard: a chunk's dot products with the Sylvester matrix are, up to a
//    sign per (chunk, output block), the chunk's own Walsh-Hadamard
//    transform; it is computed in double by butterflies (C log C additions
//    instead of C * RS multiply-adds);
//  - learned, learned_per_block: the dense product in double, outputs in the
//    inner loop so that g++ vectorises it;
//  - both: when the block's inputs (and the matrix entries) span few enough
//    binades, every double operation is exact and the f32 conversion is the
//    one rounding; otherwise the double value carries a rigorous error bound (a multiple of
//    2^-53 times the sum of magnitudes). When the bound's interval rounds to
//    one f32 bit pattern, that pattern is the reference's result; otherwise
//    (near a rounding boundary, exact cancellation, Inf/NaN) the output is
//    recomputed exactly with the reference's fusedSumF32. docs/weights.md
//    gives the bound.
//  - hadamard_butterfly and none: the reference's f32 operations, in the
//    reference's order per element.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_WEIGHTS_ROW_ROTATOR_H
#define MXFORGE_WEIGHTS_ROW_ROTATOR_H

#include "numerics/options.h"
#include "numerics/reference.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxf::weights {

/// What every thread shares: the problem and its matrices in the form the
/// fast paths use (built once; read-only afterwards).
struct RotationPlan {
  /// Precondition: checkRotateQuant(problem).ok(), and `rotation` holds
  /// rotationMatrixElements() bf16 values for learned kinds.
  RotationPlan(const RotateQuantProblem &problem, const uint16_t *rotation);
  RotationPlan(const RotationPlan &) = delete; // `rotation` may point into rotationXR
  RotationPlan &operator=(const RotationPlan &) = delete;

  RotateQuantProblem problem;        // with rotation.convention xr
  std::vector<uint16_t> rotationXR;  // learned: the matrices as R[in][out]
  const uint16_t *rotation;          // learned matrices (bf16), row-major R[in][out]
  std::vector<uint16_t> hadamardBf16; // hadamard: the reference's matrix
  std::vector<double> signedNorm;    // hadamard: +-h for (chunk, output)
  std::vector<double> rDouble;       // learned: the matrices as doubles
  std::vector<double> rMaxAbs;       // learned: max |R| per matrix
  std::vector<int> rSpan;            // learned: binades the nonzero entries span
};

/// Rotates rows with a plan. One instance per thread (scratch buffers).
class RowRotator {
public:
  explicit RowRotator(const RotationPlan &plan);

  /// y[0..k) = rotateForQuant(problem, x, rotation) bit for bit (the bf16
  /// intermediate rounding included).
  void rotate(const uint16_t *x, float *y);

  /// Outputs that needed the exact fallback so far (for tests and benches).
  size_t exactFallbacks() const { return fallbacks_; }

private:
  void rotateHadamardBlock(const uint16_t *x, float *y);
  void rotateDenseBlock(const uint16_t *x, const uint16_t *r, const double *rDouble,
                        double rMaxAbs, int rSpan, float *y);
  float exactChunk(float acc, const uint16_t *x, const uint16_t *r, int k0, int j);

  const RotationPlan &plan_;
  std::vector<double> xDouble_, transform_, sums_;
  std::vector<float> acc_, next_;
  size_t fallbacks_ = 0;
};

} // namespace mxf::weights

#endif // MXFORGE_WEIGHTS_ROW_ROTATOR_H
