//===- hip_timing.cpp - hipEvent timing of graph-captured launches -------===//

#include "runtime/hip_timing.h"

#include <string>

namespace mxf::runtime::hip {
namespace {

/// The first entry point timing needs that `api` lacks, or null.
const char *missingTimingEntryPoint(const Api &api, bool flush) {
  const std::pair<bool, const char *> needed[] = {
      {api.streamCreate != nullptr, "hipStreamCreate"},
      {api.streamDestroy != nullptr, "hipStreamDestroy"},
      {api.streamSynchronize != nullptr, "hipStreamSynchronize"},
      {api.streamBeginCapture != nullptr, "hipStreamBeginCapture"},
      {api.streamEndCapture != nullptr, "hipStreamEndCapture"},
      {api.graphInstantiate != nullptr, "hipGraphInstantiate"},
      {api.graphLaunch != nullptr, "hipGraphLaunch"},
      {api.graphExecDestroy != nullptr, "hipGraphExecDestroy"},
      {api.graphDestroy != nullptr, "hipGraphDestroy"},
      {api.eventCreate != nullptr, "hipEventCreate"},
      {api.eventDestroy != nullptr, "hipEventDestroy"},
      {api.eventRecord != nullptr, "hipEventRecord"},
      {api.eventSynchronize != nullptr, "hipEventSynchronize"},
      {api.eventElapsedTime != nullptr, "hipEventElapsedTime"},
      {api.memsetAsync != nullptr || !flush, "hipMemsetAsync"},
  };
  for (const auto &[present, name] : needed)
    if (!present)
      return name;
  return nullptr;
}

/// What one timing made, released in reverse order whatever happened.
struct Resources {
  const Api &api;
  void *stream = nullptr, *graph = nullptr, *exec = nullptr;
  void *start = nullptr, *stop = nullptr, *flush = nullptr;
  ~Resources() {
    if (stream)
      (void)api.streamSynchronize(stream);
    if (flush)
      (void)api.free(flush);
    if (stop)
      (void)api.eventDestroy(stop);
    if (start)
      (void)api.eventDestroy(start);
    if (exec)
      (void)api.graphExecDestroy(exec);
    if (graph)
      (void)api.graphDestroy(graph);
    if (stream)
      (void)api.streamDestroy(stream);
  }
};

} // namespace

Result<LaunchTiming> timeWithGraphs(const Api &api, const EnqueuePass &enqueue,
                                    const TimingOptions &options) {
  using R = Result<LaunchTiming>;
  if (options.warmup < 0 || options.repeats < 1 || options.passesPerGraph < 1 ||
      (options.flushL2 && options.flushBytes == 0))
    return R::failure("timing needs warmup >= 0, repeats >= 1, passes per graph >= 1 and, to "
                      "flush L2, a flush buffer of at least 1 byte");
  if (const char *missing = missingTimingEntryPoint(api, options.flushL2))
    return R::failure("the HIP runtime " + api.path + " has no " + missing +
                      ", which timing launches needs (hipEvent over graph-captured launches)");
  Resources made{api};
  if (Status s = api.check(api.streamCreate(&made.stream), "hipStreamCreate"); !s.ok())
    return s;
  // Once uncaptured: a kernel that cannot launch fails here, by its name.
  if (Status s = enqueue(made.stream); !s.ok())
    return s;
  if (Status s = api.check(api.streamSynchronize(made.stream), "hipStreamSynchronize after the "
                                                                "first pass");
      !s.ok())
    return s;

  const int passes = options.flushL2 ? 1 : options.passesPerGraph;
  if (Status s = api.check(api.streamBeginCapture(made.stream, kStreamCaptureModeThreadLocal),
                           "hipStreamBeginCapture");
      !s.ok())
    return s;
  Status captured = Status::success();
  for (int i = 0; i < passes && captured.ok(); ++i)
    captured = enqueue(made.stream);
  // The capture is ended whatever happened, so that the stream is usable
  // (and destroyable) again.
  const int ended = api.streamEndCapture(made.stream, &made.graph);
  if (!captured.ok())
    return Status::failure("while capturing the launches into a graph: " + captured.message());
  if (Status s = api.check(ended, "hipStreamEndCapture"); !s.ok())
    return s;
  if (Status s = api.check(api.graphInstantiate(&made.exec, made.graph, nullptr, nullptr, 0),
                           "hipGraphInstantiate");
      !s.ok())
    return s;
  if (options.flushL2)
    if (Status s = api.check(api.malloc(&made.flush, options.flushBytes),
                             "hipMalloc of the " + std::to_string(options.flushBytes >> 20) +
                                 " MiB L2 flush buffer");
        !s.ok())
      return s;
  for (int i = 0; i < options.warmup; ++i)
    if (Status s = api.check(api.graphLaunch(made.exec, made.stream), "hipGraphLaunch (warm-up)");
        !s.ok())
      return s;
  if (Status s = api.check(api.eventCreate(&made.start), "hipEventCreate"); !s.ok())
    return s;
  if (Status s = api.check(api.eventCreate(&made.stop), "hipEventCreate"); !s.ok())
    return s;

  LaunchTiming timing;
  timing.passesPerGraph = passes;
  timing.flushedL2 = options.flushL2;
  for (int r = 0; r < options.repeats; ++r) {
    if (options.flushL2)
      if (Status s = api.check(api.memsetAsync(made.flush, r & 0xff, options.flushBytes,
                                               made.stream),
                               "hipMemsetAsync (L2 flush)");
          !s.ok())
        return s;
    float ms = 0;
    if (Status s = api.check(api.eventRecord(made.start, made.stream), "hipEventRecord"); !s.ok())
      return s;
    if (Status s = api.check(api.graphLaunch(made.exec, made.stream), "hipGraphLaunch"); !s.ok())
      return s;
    if (Status s = api.check(api.eventRecord(made.stop, made.stream), "hipEventRecord"); !s.ok())
      return s;
    if (Status s = api.check(api.eventSynchronize(made.stop), "hipEventSynchronize"); !s.ok())
      return s;
    if (Status s = api.check(api.eventElapsedTime(&ms, made.start, made.stop),
                             "hipEventElapsedTime");
        !s.ok())
      return s;
    timing.usPerPass.push_back(double(ms) * 1000.0 / passes);
  }
  summarizeTiming(timing);
  timing.method = "hipEventElapsedTime around one hipGraphLaunch of " + std::to_string(passes) +
                  (passes == 1 ? " pass" : " passes") + " of the launches (captured on a stream " +
                  "of our own), after " + std::to_string(options.warmup) + " warm-up graph " +
                  (options.warmup == 1 ? "launch; " : "launches; ") +
                  std::to_string(options.repeats) + " repeats" +
                  (options.flushL2 ? ", each after a " +
                                         std::to_string(options.flushBytes >> 20) +
                                         " MiB hipMemsetAsync that flushes L2 (outside the events)"
                                   : ", L2 not flushed (operands stay warm across passes)");
  return timing;
}

} // namespace mxf::runtime::hip
