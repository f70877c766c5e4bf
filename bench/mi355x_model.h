//===- mi355x_model.h - The one MI355X time estimate every benchmark prints -*- C++ -*-===//
//
// We have no AMD GPU; a benchmark that wants to say something about MI355X
// time says it through this model, labelled "estimate", next to the floor
// it is measured against. Inputs are what the emulator counted for one
// launch (runtime::LaunchReport: wave-instructions by family, global bytes,
// waves, workgroups, the registers and LDS occupancy depends on, and the
// latency timeline of emulator/timeline.h, run with mi355xTimelineCosts())
// and the operand bytes the launch must move. docs/estimate.md states the
// model, cites every constant, and gives the table of published MI355X
// times of other people's kernels its fitted constants come from
// (bench/peer_model_bench.cpp prints it; tests/unit/bench checks it).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_BENCH_MI355X_MODEL_H
#define MXFORGE_BENCH_MI355X_MODEL_H

#include "emulator/emulator.h"
#include "runtime/device.h"
#include "runtime/emu_device.h"

#include <cstdint>
#include <string>

namespace mxf::bench {

struct Mi355xEstimate {
  double floorUs = 0;   // required bytes at peak HBM bandwidth: nothing can be faster
  /// Bytes: the required ones at the achievable HBM bandwidth, re-read
  /// ones (emulated beyond the required) at L2 bandwidth.
  double memoryUs = 0;
  double issueUs = 0;   // wave-instruction cycles over the SIMDs the launch fills
  /// One workgroup's latency timeline times the rounds of workgroups the
  /// CUs can hold at once (occupancy from VGPRs and LDS); 0 for a launch
  /// run without the timeline.
  double latencyUs = 0;
  double fixedUs = 0;   // a kernel's own start and end (fitted)
  double estimateUs = 0; // fixedUs + max(memoryUs, issueUs, latencyUs)
  const char *bound = ""; // "memory", "issue" or "latency"
  /// Workgroups one CU holds at once, and the rounds the grid takes.
  uint32_t workgroupsPerCu = 0;
  uint32_t rounds = 0;
};

/// The model's fitted constants (docs/estimate.md, "The check").
struct Mi355xFit {
  double achievableBandwidth = 0; // fraction of the 8 TB/s HBM peak
  uint32_t globalLatencyCycles = 0; // one vector-memory round trip
  double fixedUs = 0;             // a kernel's own start and end
};
/// The values every benchmark uses; bench/peer_model_bench --fit searches
/// others.
Mi355xFit mi355xFitted();

/// The costs the emulator's timeline must charge for estimateMi355x to read
/// `timeline_cycles`: open the emu device with them.
emu::TimelineCosts mi355xTimelineCosts(const Mi355xFit &fit = mi355xFitted());

/// The emu device options a benchmark opens with: the model's timeline on.
runtime::EmuDeviceOptions mi355xEmuOptions();

/// `requiredBytes`: what the operation must read and write at least (its
/// operands, once); `report`: the emulated launch's counters, from a device
/// opened with the timeline (without one the latency term is 0, and the
/// estimate says less than it should).
Mi355xEstimate estimateMi355x(uint64_t requiredBytes, const runtime::LaunchReport &report,
                              const Mi355xFit &fit = mi355xFitted());

/// For launches too large to emulate whole: the report of `run` of the
/// `workgroups` workgroups (emulated with EmuDeviceOptions::runsWorkgroup),
/// its counts scaled to the grid. Valid where every workgroup runs the same
/// instruction stream (a tile-aligned GEMM); the timeline and occupancy
/// inputs describe one workgroup or the kernel and are kept.
runtime::LaunchReport scaledToGrid(const runtime::LaunchReport &report, uint64_t run,
                                   uint64_t workgroups);

/// One line stating the model's constants, for the head of a table.
std::string mi355xModelLegend();

} // namespace mxf::bench

#endif // MXFORGE_BENCH_MI355X_MODEL_H
