//===- random_inputs.cpp - Reproducible random kernel inputs --------------===//

#include "arrays/random_inputs.h"

#include "numerics/formats.h"

#include <cmath>
#include <numeric>

namespace mxf::arrays {
namespace {

/// splitmix64's finalizer: spreads (seed, name) over all 64 bits so that
/// nearby seeds give unrelated streams.
uint64_t mix(uint64_t value) {
  value += 0x9E3779B97F4A7C15ull;
  value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ull;
  value = (value ^ (value >> 27)) * 0x94D049BB133111EBull;
  return value ^ (value >> 31);
}

/// FNV-1a: a fixed string hash (std::hash is not the same everywhere).
uint64_t hashName(std::string_view name) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001B3ull;
  }
  return hash;
}

constexpr double kPi = 3.14159265358979323846;

} // namespace

RandomStream::RandomStream(uint64_t seed, std::string_view name)
    : engine_(mix(seed ^ mix(hashName(name)))) {}

double RandomStream::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double RandomStream::normal() {
  if (spare_) {
    double value = *spare_;
    spare_.reset();
    return value;
  }
  const double u1 = 1.0 - uniform(); // (0, 1]: log stays finite
  const double u2 = uniform();
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * kPi * u2;
  spare_ = radius * std::sin(angle);
  return radius * std::cos(angle);
}

uint64_t freshSeed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

std::vector<uint16_t> randomNormalBf16(RandomStream &stream, size_t count, double sigma) {
  std::vector<uint16_t> values(count);
  for (uint16_t &value : values)
    value = f32ToBf16(static_cast<float>(sigma * stream.normal()));
  return values;
}

void addBlockOutliers(RandomStream &stream, std::vector<uint16_t> &values, size_t block,
                      double factor) {
  for (size_t start = 0; start + block <= values.size(); start += block) {
    uint16_t &value = values[start + stream.below(block)];
    value = f32ToBf16(static_cast<float>(factor * bf16ToF32(value)));
  }
}

std::vector<uint16_t> randomOrthogonalBf16(RandomStream &stream, int n) {
  const size_t size = static_cast<size_t>(n);
  std::vector<double> q(size * size);
  for (size_t row = 0; row < size; ++row) {
    double *v = &q[row * size];
    // Modified Gram-Schmidt against the rows already accepted; a Gaussian row
    // is almost surely independent of them, and a redraw handles the rest.
    while (true) {
      for (size_t j = 0; j < size; ++j)
        v[j] = stream.normal();
      for (size_t prev = 0; prev < row; ++prev) {
        const double *u = &q[prev * size];
        double dot = 0.0;
        for (size_t j = 0; j < size; ++j)
          dot += u[j] * v[j];
        for (size_t j = 0; j < size; ++j)
          v[j] -= dot * u[j];
      }
      double norm = 0.0;
      for (size_t j = 0; j < size; ++j)
        norm += v[j] * v[j];
      norm = std::sqrt(norm);
      if (norm > 1e-6) {
        for (size_t j = 0; j < size; ++j)
          v[j] /= norm;
        break;
      }
    }
  }
  std::vector<uint16_t> out(size * size);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = f32ToBf16(static_cast<float>(q[i]));
  return out;
}

std::vector<int32_t> randomRouting(RandomStream &stream, int m, int topk, int experts) {
  std::vector<int32_t> ids(static_cast<size_t>(m) * static_cast<size_t>(topk));
  std::vector<int32_t> pool(static_cast<size_t>(experts));
  for (int token = 0; token < m; ++token) {
    std::iota(pool.begin(), pool.end(), 0);
    // Partial Fisher-Yates: the first topk entries are a random draw without
    // replacement, so no token is routed twice to one expert.
    for (int slot = 0; slot < topk; ++slot) {
      size_t pick = static_cast<size_t>(slot) + stream.below(static_cast<uint64_t>(experts - slot));
      std::swap(pool[static_cast<size_t>(slot)], pool[pick]);
      ids[static_cast<size_t>(token) * topk + slot] = pool[static_cast<size_t>(slot)];
    }
  }
  return ids;
}

} // namespace mxf::arrays
