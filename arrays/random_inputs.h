//===- random_inputs.h - Reproducible random kernel inputs -------*- C++ -*-===//
//
// Inputs that `mxforge ref` and `mxforge demo` generate when the user gives
// none. Everything is a function of (seed, array name) through
// std::mt19937_64, whose output the C++ standard fixes, plus our own
// Box-Muller and Gram-Schmidt (the standard library's distributions differ
// between implementations), so a printed seed replays the same arrays on any
// machine. Each array draws from its own stream, so generating `r` gives the
// same matrix whether or not `x` was given.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ARRAYS_RANDOM_INPUTS_H
#define MXFORGE_ARRAYS_RANDOM_INPUTS_H

#include <string_view>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace mxf::arrays {

class RandomStream {
public:
  /// The stream of array `name` under `seed`.
  RandomStream(uint64_t seed, std::string_view name);

  uint64_t next() { return engine_(); }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// Standard normal (Box-Muller).
  double normal();
  /// Uniform integer in [0, n), n > 0 (modulo bias below 2^-40 for our n).
  uint64_t below(uint64_t n) { return next() % n; }

private:
  std::mt19937_64 engine_;
  std::optional<double> spare_;
};

/// A seed for runs where the user gave none (std::random_device).
uint64_t freshSeed();

/// `count` values drawn from N(0, sigma^2), rounded to bf16.
std::vector<uint16_t> randomNormalBf16(RandomStream &stream, size_t count, double sigma = 1.0);

/// Multiplies one element per `block` consecutive values, at a random
/// position, by `factor` (rounded to bf16): the outlier channels that make
/// plain MX quantization lose precision and rotation worthwhile.
void addBlockOutliers(RandomStream &stream, std::vector<uint16_t> &values, size_t block,
                      double factor);

/// A random n x n orthogonal matrix (Gram-Schmidt of a Gaussian matrix in
/// double), row-major, each entry rounded to bf16.
std::vector<uint16_t> randomOrthogonalBf16(RandomStream &stream, int n);

/// A routing topk_ids [m, topk]: each token gets topk distinct experts in
/// [0, experts), in random order. Needs 0 < topk <= experts.
std::vector<int32_t> randomRouting(RandomStream &stream, int m, int topk, int experts);

} // namespace mxf::arrays

#endif // MXFORGE_ARRAYS_RANDOM_INPUTS_H
