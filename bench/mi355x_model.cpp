//===- mi355x_model.cpp - The one MI355X time estimate ---------------------===//
//
// Hardware figures: ../shared/docs/GFX950_SEMANTICS.md §F and the ROCm GPU
// specs table (docs/estimate.md cites each). Three constants are fitted, and
// only to the published MI355X times of AITER's f4gemm kernels run through
// the emulator (docs/estimate.md, "The check"); the others are stated
// assumptions.
//
//===----------------------------------------------------------------------===//

#include "bench/mi355x_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace mxf::bench {
namespace {

// MI355X (gfx950): 256 CUs of 4 SIMDs, 2.4 GHz peak engine clock, 8 TB/s
// HBM3E; per CU 160 KiB of LDS and 512 unified VGPRs per lane per SIMD.
constexpr double kClockHz = 2.4e9;
constexpr double kCus = 256, kSimdsPerCu = 4;
constexpr double kPeakBytesPerSecond = 8e12;
constexpr double kLdsBytesPerCu = 160 * 1024;
constexpr double kVgprsPerLane = 512, kMaxWavesPerSimd = 8;
// L2 (4 MiB per XCD, 8 XCDs): 2 KiB per clock per XCD, the CDNA3 figure
// (an assumption for CDNA4, docs/estimate.md); serves re-read bytes.
constexpr double kL2BytesPerSecond = 8 * 2048 * kClockHz;

// Issue cycles per wave-instruction: a wave64 vector instruction occupies a
// 16-lane SIMD 4 cycles; scalar and branch instructions 1; an MFMA its
// pass count (16 cycles for 16x16x32 bf16 and for 16x16x128 f8f6f4 with
// fp4/fp6 operands, §E).
constexpr uint32_t kVectorCycles = 4, kScalarCycles = 1, kMfmaCycles = 16;
// LDS and scalar-load latencies: assumptions (docs/estimate.md).
constexpr uint32_t kLdsLatencyCycles = 64, kScalarLoadLatencyCycles = 200;

// Fitted (docs/estimate.md, "The check"): the achievable fraction of HBM
// bandwidth, one vector-memory round trip, and a kernel's fixed start and
// end. Change them only together with that table (DocsEstimate.* checks).
constexpr Mi355xFit kFitted = {0.70, 1500, 2.42};

/// Workgroups of `wavesPerWorkgroup` waves one CU holds at once.
uint32_t workgroupsPerCu(uint64_t vgprs, uint64_t ldsBytes, double wavesPerWorkgroup) {
  const double wavesPerSimd =
      vgprs ? std::min(kMaxWavesPerSimd, std::floor(kVgprsPerLane / double(vgprs)))
            : kMaxWavesPerSimd;
  double byWaves = std::floor(wavesPerSimd * kSimdsPerCu / std::max(1.0, wavesPerWorkgroup));
  double byLds = ldsBytes ? std::floor(kLdsBytesPerCu / double(ldsBytes)) : byWaves;
  return uint32_t(std::max(1.0, std::min(byWaves, byLds)));
}

} // namespace

Mi355xFit mi355xFitted() { return kFitted; }

emu::TimelineCosts mi355xTimelineCosts(const Mi355xFit &fit) {
  emu::TimelineCosts costs;
  costs.vectorIssue = kVectorCycles;
  costs.scalarIssue = kScalarCycles;
  costs.mfmaIssue = kMfmaCycles;
  costs.globalLatency = fit.globalLatencyCycles;
  costs.ldsLatency = kLdsLatencyCycles;
  costs.scalarLoadLatency = kScalarLoadLatencyCycles;
  return costs;
}

runtime::EmuDeviceOptions mi355xEmuOptions() {
  runtime::EmuDeviceOptions options;
  options.timeline = mi355xTimelineCosts();
  return options;
}

Mi355xEstimate estimateMi355x(uint64_t requiredBytes, const runtime::LaunchReport &report,
                              const Mi355xFit &fit) {
  Mi355xEstimate e;
  e.floorUs = double(requiredBytes) / kPeakBytesPerSecond * 1e6;
  const double moved =
      double(report.get("global_bytes_read") + report.get("global_bytes_written"));
  const double fromHbm = std::min(moved, double(requiredBytes));
  e.memoryUs = (fromHbm / (kPeakBytesPerSecond * fit.achievableBandwidth) +
                (moved - fromHbm) / kL2BytesPerSecond) *
               1e6;
  const double vector = double(report.get("instructions.valu") + report.get("instructions.vmem") +
                               report.get("instructions.lds") +
                               report.get("instructions.cvt-scaled") +
                               report.get("instructions.other"));
  const double scalar = double(report.get("instructions.salu") + report.get("instructions.smem") +
                               report.get("instructions.branch"));
  const double cycles = vector * kVectorCycles + scalar * kScalarCycles +
                        double(report.get("instructions.mfma")) * kMfmaCycles;
  // Spread over the SIMDs, but no faster than one wave's own instruction
  // stream when there are fewer waves than SIMDs.
  const double waves = std::max<double>(1, double(report.get("waves")));
  e.issueUs = cycles / std::min(waves, kCus * kSimdsPerCu) / kClockHz * 1e6;

  const double workgroups = std::max<double>(1, double(report.get("workgroups")));
  e.workgroupsPerCu = workgroupsPerCu(report.get("vgprs_allocated"),
                                      report.get("lds_bytes_allocated"), waves / workgroups);
  e.rounds = uint32_t(std::ceil(workgroups / (kCus * e.workgroupsPerCu)));
  e.latencyUs = double(e.rounds) * double(report.get("timeline_cycles")) / kClockHz * 1e6;

  e.fixedUs = fit.fixedUs;
  const double busy = std::max({e.memoryUs, e.issueUs, e.latencyUs});
  e.estimateUs = e.fixedUs + busy;
  e.bound = busy == e.latencyUs && e.latencyUs > 0 ? "latency"
            : e.memoryUs >= e.issueUs              ? "memory"
                                                   : "issue";
  return e;
}

runtime::LaunchReport scaledToGrid(const runtime::LaunchReport &report, uint64_t run,
                                   uint64_t workgroups) {
  runtime::LaunchReport scaled = report;
  for (auto &[name, value] : scaled.counters) {
    const bool perWorkgroup = name.rfind("instructions", 0) == 0 ||
                              name.rfind("global_bytes", 0) == 0 ||
                              name.rfind("lds_bytes_read", 0) == 0 ||
                              name.rfind("lds_bytes_written", 0) == 0 || name == "mfma";
    if (perWorkgroup && run > 0)
      value = value * workgroups / run;
  }
  return scaled;
}

std::string mi355xModelLegend() {
  return fmt::format(
      "MI355X estimate (docs/estimate.md): {:.1f} us + max(required bytes / ({:.0f}% of {:.0f} "
      "TB/s) + re-read bytes / {:.0f} TB/s L2, issue cycles / min(waves, {:.0f} SIMDs) / {:.1f} "
      "GHz, rounds x one workgroup's timeline at {} cycles a memory round trip); floor = "
      "required bytes / {:.0f} TB/s. Estimates, not measurements.",
      kFitted.fixedUs, kFitted.achievableBandwidth * 100, kPeakBytesPerSecond / 1e12,
      kL2BytesPerSecond / 1e12, kCus * kSimdsPerCu, kClockHz / 1e9, kFitted.globalLatencyCycles,
      kPeakBytesPerSecond / 1e12);
}

} // namespace mxf::bench
