//===- launch_timing.h - Timing launches on a device --------------*- C++ -*-===//
//
// What `mxforge bench --device hip` asks a device for (docs/cli.md): the
// time of a sequence of launches the way seed 000 timed its kernels, events
// around graph-captured launches, after a warm-up, as the median and spread
// of repeats. Only the hip backend times; the emulator has no clock (its
// estimate is the MI355X model's, bench/mi355x_model.h).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_LAUNCH_TIMING_H
#define MXFORGE_RUNTIME_LAUNCH_TIMING_H

#include "support/status.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mxf::runtime {

struct TimingOptions {
  /// Graph launches before the first timed one (caches, clocks, first-launch costs).
  int warmup = 10;
  /// Timed graph launches; each gives one sample.
  int repeats = 50;
  /// Passes of the sequence captured in one graph when L2 is not flushed:
  /// a sample is the graph's time over this count, so the events' own
  /// resolution and the graph launch's start are spread over them.
  int passesPerGraph = 20;
  /// Before each timed graph launch, write `flushBytes` of a buffer of the
  /// device's own (outside the events), so that the kernels read their
  /// operands from HBM; each graph then holds one pass.
  bool flushL2 = false;
  uint64_t flushBytes = uint64_t(512) << 20; // beyond MI355X's 256 MB Infinity Cache
};

/// One sample per repeat, in microseconds per pass of the sequence, and
/// their summary (nearest-rank percentiles).
struct LaunchTiming {
  std::vector<double> usPerPass;
  double medianUs = 0, p10Us = 0, p90Us = 0;
  int passesPerGraph = 1;
  bool flushedL2 = false;
  /// One sentence saying how the samples were taken, for a table's legend.
  std::string method;
};

/// Enqueues one pass of the launches on `stream` (the hip backend's
/// hipStream_t), for example Device::launch with LaunchConfig::stream set.
using EnqueuePass = std::function<Status(void *stream)>;

/// Fills medianUs, p10Us and p90Us from usPerPass (nearest rank: the
/// ceil(p/100 * n)-th smallest sample). Empty samples give zeros.
void summarizeTiming(LaunchTiming &timing);

} // namespace mxf::runtime

#endif // MXFORGE_RUNTIME_LAUNCH_TIMING_H
