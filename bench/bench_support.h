//===- bench_support.h - Timing helpers shared by the benchmarks --*- C++ -*-===//
#ifndef MXFORGE_BENCH_BENCH_SUPPORT_H
#define MXFORGE_BENCH_BENCH_SUPPORT_H

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace mxf::bench {

using Clock = std::chrono::steady_clock;

/// Normal bf16 values (scaled for a learned R), as an operand's bytes: the
/// inputs the emulator benchmarks feed their kernels.
inline std::vector<uint8_t> normalBf16(uint64_t bytes, float scale, std::mt19937 &rng) {
  std::normal_distribution<float> normal;
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i + 1 < data.size(); i += 2) {
    const float v = normal(rng) * scale;
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    data[i] = uint8_t(bits >> 16);
    data[i + 1] = uint8_t(bits >> 24);
  }
  return data;
}

inline double millisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// The median (of an even count: the mean of the middle two); 0 when empty.
inline double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// The value below which `fraction` (0..1) of `values` lie, nearest rank;
/// 0 when empty.
inline double percentile(std::vector<double> values, double fraction) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t rank = size_t(fraction * double(values.size()) + 0.999999);
  return values[std::min(values.size(), std::max<size_t>(rank, 1)) - 1];
}

} // namespace mxf::bench

#endif // MXFORGE_BENCH_BENCH_SUPPORT_H
