//===- mi355x_model.h - The one MI355X time estimate every benchmark prints -*- C++ -*-===//
//
// We have no AMD GPU; a benchmark that wants to say something about MI355X
// time says it through this model, labelled "estimate", next to the floor
// it is measured against. Inputs are what the emulator counted for one
// launch (runtime::LaunchReport: wave-instructions by family, MFMAs, global
// bytes, waves) and the operand bytes the launch must move. docs/estimate.md
// states the model and cites every constant.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_BENCH_MI355X_MODEL_H
#define MXFORGE_BENCH_MI355X_MODEL_H

#include "runtime/device.h"

#include <cstdint>
#include <string>

namespace mxf::bench {

struct Mi355xEstimate {
  double floorUs = 0;    // required bytes at peak HBM bandwidth: nothing can be faster
  double memoryUs = 0;   // emulated global bytes at the achievable bandwidth
  double issueUs = 0;    // wave-instruction cycles over the SIMDs the launch fills
  /// Dependent memory round trips a wave waits for in sequence, times the
  /// load latency; 0 where the caller did not count them.
  double latencyUs = 0;
  double estimateUs = 0; // max(memoryUs, issueUs, latencyUs): the estimate
  const char *bound = ""; // "memory", "issue" or "latency"
};

/// `requiredBytes`: what the operation must read and write at least (its
/// operands, once); `report`: the emulated launch's counters;
/// `roundTripsPerWave`: the global-memory round trips one wave makes in
/// sequence (from the kernel's tiling: loads it cannot issue before the
/// previous ones return), 0 to leave the latency term out.
Mi355xEstimate estimateMi355x(uint64_t requiredBytes, const runtime::LaunchReport &report,
                              double roundTripsPerWave = 0);

/// One line stating the model's constants, for the head of a table.
std::string mi355xModelLegend();

} // namespace mxf::bench

#endif // MXFORGE_BENCH_MI355X_MODEL_H
