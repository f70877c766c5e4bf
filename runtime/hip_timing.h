//===- hip_timing.h - hipEvent timing of graph-captured launches -*- C++ -*-===//
//
// The hip backend's Device::timeLaunches (launch_timing.h). The sequence is
// run once uncaptured (its errors surface as launch errors, not as a failed
// capture), captured `passesPerGraph` times (once when L2 is flushed) on a
// stream of our own into a graph, the graph launched `warmup` times, then
// `repeats` times between two events, optionally after a hipMemsetAsync of a
// flush buffer that the events do not enclose. Every stream, graph, event and
// buffer it makes is released on every path, failures included.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_HIP_TIMING_H
#define MXFORGE_RUNTIME_HIP_TIMING_H

#include "runtime/hip_api.h"
#include "runtime/launch_timing.h"

namespace mxf::runtime::hip {

/// Times `enqueue` on the calling thread's current device.
Result<LaunchTiming> timeWithGraphs(const Api &api, const EnqueuePass &enqueue,
                                    const TimingOptions &options);

} // namespace mxf::runtime::hip

#endif // MXFORGE_RUNTIME_HIP_TIMING_H
