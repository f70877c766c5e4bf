//===- launch_timing.cpp - Summaries of launch timings --------------------===//

#include "runtime/launch_timing.h"

#include <algorithm>
#include <cmath>

namespace mxf::runtime {

void summarizeTiming(LaunchTiming &timing) {
  std::vector<double> sorted = timing.usPerPass;
  if (sorted.empty()) {
    timing.medianUs = timing.p10Us = timing.p90Us = 0;
    return;
  }
  std::sort(sorted.begin(), sorted.end());
  auto rank = [&](double percent) {
    const size_t n = sorted.size();
    size_t k = size_t(std::ceil(percent / 100.0 * double(n)));
    return sorted[std::clamp<size_t>(k, 1, n) - 1];
  };
  timing.p10Us = rank(10);
  timing.p90Us = rank(90);
  const size_t n = sorted.size();
  timing.medianUs = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

} // namespace mxf::runtime
