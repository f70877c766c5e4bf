//===- bench_support.h - Timing helpers shared by the benchmarks --*- C++ -*-===//
#ifndef MXFORGE_BENCH_BENCH_SUPPORT_H
#define MXFORGE_BENCH_BENCH_SUPPORT_H

#include <algorithm>
#include <chrono>
#include <vector>

namespace mxf::bench {

using Clock = std::chrono::steady_clock;

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
