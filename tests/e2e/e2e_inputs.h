//===- e2e_inputs.h - Random activations and rotations for the e2e suite -*- C++ -*-===//
//
// What the end-to-end suite feeds its kernels: bf16 activation rows drawn
// from distributions chosen to reach the corners of the numerics (outliers,
// zero blocks, scale-rule boundaries, subnormals), and learned rotation
// matrices. Everything is a pure function of a std::mt19937_64, so that a
// printed seed replays a run exactly (docs/verification.md).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_E2E_E2E_INPUTS_H
#define MXFORGE_TESTS_E2E_E2E_INPUTS_H

#include "spec/kernel_spec.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

namespace mxf::e2e {

/// The activation distributions. A run gives row i the distribution
/// (base + i) % kNumDistributions, so that every full-bucket run meets them
/// all and the base rotates from run to run.
enum class Distribution : uint8_t {
  Normal,          // N(0, s^2), s = 2^U(-8, 8) per row
  HeavyTailed,     // Student t(3), one element per 32 scaled by 10..1000
  ZeroBlocks,      // normal, with whole rotation blocks (and 32-blocks) of +-0
  ScaleBoundaries, // block maxima at 6*2^k, 1.75*2^k, 2^k and one ulp around
  Subnormals,      // bf16 (= f32) subnormals, mixed with the smallest normals
  NonFinite,       // normal, with NaN, +-Inf and values whose scale rounds
                   // past 2^127 (bf16 >= 1.75*2^127) planted in some blocks
};
constexpr size_t kNumDistributions = 6;
constexpr size_t kNumFiniteDistributions = 5; // all but NonFinite, the last
const char *distributionName(Distribution distribution);
Distribution distributionFor(size_t base, size_t row);

/// How a learned matrix was drawn (per run).
enum class MatrixKind : uint8_t {
  Orthogonal,       // Gram-Schmidt in double of a normal matrix, rounded to bf16
  RandomBf16,       // independent N(0, 1/RS) entries rounded to bf16
  SignedPermutation // exactly orthogonal in bf16: y is a signed permutation of
                    // x, so x-domain scale boundaries survive the rotation
};
const char *matrixKindName(MatrixKind kind);
MatrixKind matrixKindFor(size_t base);

/// One row of K bf16 values for `spec` (its RS and rot decide how boundary
/// values are placed so that they reach the rotated domain where they can).
std::vector<uint16_t> activationRow(const KernelSpec &spec, Distribution distribution,
                                    std::mt19937_64 &rng);

/// The learned rotation input of `spec` (rotationMatrixElements values,
/// row-major R[in][out], K/RS matrices for learned_per_block); empty for
/// other rotation kinds.
std::vector<uint16_t> learnedRotation(const KernelSpec &spec, MatrixKind kind,
                                      std::mt19937_64 &rng);

/// A random RS x RS orthogonal matrix in double (modified Gram-Schmidt).
std::vector<double> randomOrthogonal(int rs, std::mt19937_64 &rng);

/// The block maxima the ScaleBoundaries distribution aims at: m * 2^k for
/// m in {1, 1.75, 6}, moved by `ulps` bf16 ulps (-1, 0, 1). Exposed for the
/// generator's own tests.
float boundaryValue(int mantissaChoice, int exponent, int ulps);

/// Selective rotation's launch inputs (select=flag|mask) for a launch that
/// rotates or not: the flag's nonzero value (or 0), or a drawn mask and the
/// layer whose entry says `rotate`. The flag's value and the mask's other
/// entries are drawn, so that only the selected entry decides. Empty for
/// select=off.
struct SelectionInputs {
  std::optional<int64_t> selection; // the launch's `rotate` or `layer`
  std::vector<int32_t> layerMask;   // [layers] with select=mask
};
SelectionInputs drawSelection(const KernelSpec &spec, bool rotate, std::mt19937_64 &rng);

/// A per-run random engine derived from the test's seed and the run's index.
std::mt19937_64 runEngine(uint64_t seed, uint64_t run);

/// The bytes of `values`, as a launch's host arrays hold them.
template <typename T> std::vector<uint8_t> bytesOf(const std::vector<T> &values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty())
    std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// The [rows, cols] bf16 rows of `dense` `stride` elements apart, as a
/// kernel reads a view into wider rows: the gaps hold bf16 NaNs, which would
/// reach the outputs if the kernel ever read them.
std::vector<uint16_t> stridedRows(const std::vector<uint16_t> &dense, size_t rows, size_t cols,
                                  size_t stride);

} // namespace mxf::e2e

#endif // MXFORGE_TESTS_E2E_E2E_INPUTS_H
