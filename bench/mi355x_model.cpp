//===- mi355x_model.cpp - The one MI355X time estimate ---------------------===//
//
// Constants from ../shared/docs/GFX950_SEMANTICS.md §F (MI355X: 256 CUs, 4
// SIMDs each, 2.4 GHz peak engine clock, ~8 TB/s HBM3E) and §E (MFMA
// cycles); the cycles per wave64 VALU instruction and the achievable
// bandwidth fraction are assumptions, stated in docs/estimate.md.
//
//===----------------------------------------------------------------------===//

#include "bench/mi355x_model.h"

#include <fmt/format.h>

#include <algorithm>

namespace mxf::bench {
namespace {

constexpr double kClockHz = 2.4e9;
constexpr double kSimds = 256 * 4;
constexpr double kPeakBytesPerSecond = 8e12;
constexpr double kAchievableBandwidth = 0.8; // assumption, docs/estimate.md
// Issue cycles per wave-instruction: a wave64 vector instruction occupies a
// 16-lane SIMD 4 cycles; scalar and branch instructions 1; an MFMA its
// pass count (16 cycles for 16x16x32 bf16 and for 16x16x128 f8f6f4 with
// fp4/fp6 operands, §E).
constexpr double kVectorCycles = 4, kScalarCycles = 1, kMfmaCycles = 16;
// One global-memory round trip (issue to data back), HBM or L2 alike.
constexpr double kRoundTripUs = 1.0; // assumption, docs/estimate.md

} // namespace

Mi355xEstimate estimateMi355x(uint64_t requiredBytes, const runtime::LaunchReport &report,
                              double roundTripsPerWave) {
  Mi355xEstimate e;
  e.floorUs = double(requiredBytes) / kPeakBytesPerSecond * 1e6;
  const double moved =
      double(report.get("global_bytes_read") + report.get("global_bytes_written"));
  e.memoryUs = moved / (kPeakBytesPerSecond * kAchievableBandwidth) * 1e6;
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
  const double perSimd = cycles / std::min(waves, kSimds);
  e.issueUs = perSimd / kClockHz * 1e6;
  e.latencyUs = roundTripsPerWave * kRoundTripUs;
  e.estimateUs = std::max({e.memoryUs, e.issueUs, e.latencyUs});
  e.bound = e.estimateUs == e.latencyUs && e.latencyUs > 0 ? "latency"
            : e.memoryUs >= e.issueUs                      ? "memory"
                                                           : "issue";
  return e;
}

std::string mi355xModelLegend() {
  return fmt::format("MI355X estimate (docs/estimate.md): max(bytes / ({:.0f}% of {:.0f} TB/s), "
                     "issue cycles / min(waves, {:.0f} SIMDs) / {:.1f} GHz[, round trips a wave "
                     "waits for x {:.1f} us]); floor = required bytes / {:.0f} TB/s. Estimates, "
                     "not measurements.",
                     kAchievableBandwidth * 100, kPeakBytesPerSecond / 1e12, kSimds,
                     kClockHz / 1e9, kRoundTripUs, kPeakBytesPerSecond / 1e12);
}

} // namespace mxf::bench
