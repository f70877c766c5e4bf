//===- occupancy.cpp - Waves per SIMD on gfx950 ---------------------------===//

#include "codeobj/occupancy.h"

#include <algorithm>

namespace mxf::codeobj {

namespace {

using L = Gfx950Limits;

uint32_t divideCeil(uint32_t a, uint32_t b) { return a / b + (a % b != 0); }

/// getNumWavesPerEUWithNumVGPRs with granule 8, 512 registers, 8 waves.
uint32_t wavesByVgprs(uint32_t vgprs) {
  if (vgprs > L::kVgprsPerSimdLane)
    return 0; // more than the file holds: the kernel cannot start
  if (vgprs < L::kVgprGranule)
    return L::kMaxWavesPerSimd;
  const uint32_t rounded = divideCeil(vgprs, L::kVgprGranule) * L::kVgprGranule;
  return std::min(L::kVgprsPerSimdLane / rounded, L::kMaxWavesPerSimd);
}

/// getOccupancyWithNumSGPRs for gfx9 (VOLCANIC_ISLANDS..GFX9): 10 waves up
/// to 80 SGPRs, 9 up to 88, 8 up to 100, else 7; capped at gfx950's 8.
/// Measured with llc-22: 100 SGPRs -> 8 waves, 101 -> 7.
uint32_t wavesBySgprs(uint32_t sgprs) {
  uint32_t waves = sgprs <= 80 ? 10 : sgprs <= 88 ? 9 : sgprs <= 100 ? 8 : 7;
  return std::min(waves, L::kMaxWavesPerSimd);
}

/// Spreads `workgroups` of `wavesPerWorkgroup` waves over the CU's SIMDs as
/// evenly as possible and returns the busiest SIMD's share, as LLVM does.
uint32_t wavesPerSimdFor(uint32_t workgroups, uint32_t wavesPerWorkgroup) {
  // 64-bit: a damaged note can pair a 1-byte LDS size with a huge workgroup.
  const uint64_t wavesPerCu = uint64_t(workgroups) * wavesPerWorkgroup;
  const uint64_t perSimd = (wavesPerCu + L::kSimdsPerCu - 1) / L::kSimdsPerCu;
  return static_cast<uint32_t>(std::clamp<uint64_t>(perSimd, 1, L::kMaxWavesPerSimd));
}

} // namespace

Occupancy computeOccupancy(const OccupancyInput &input) {
  Occupancy result;
  result.byVgpr = wavesByVgprs(input.vgprs);
  result.bySgpr = wavesBySgprs(input.sgprs);

  // A workgroup size of 0 (absent metadata) is read as one wave, the
  // smallest launch.
  result.wavesPerWorkgroup = std::max(1u, divideCeil(input.workgroupSize, L::kWaveSize));
  const uint32_t n = result.wavesPerWorkgroup;
  // getMaxWorkGroupsPerCU: single-wave workgroups need no barrier.
  const uint32_t bySlots =
      n == 1 ? L::kWaveSlotsPerCu : std::min(L::kWaveSlotsPerCu / n, L::kMaxBarriersPerCu);
  // A workgroup larger than the CU's wave slots (n > 32) cannot be resident.
  result.byWorkgroup = bySlots == 0 ? 0 : wavesPerSimdFor(bySlots, n);
  result.workgroupsPerCu = bySlots;
  if (input.ldsBytes == 0) {
    result.byLds = L::kMaxWavesPerSimd;
  } else {
    // LLVM ignores the LDS allocation granule here (a FIXME upstream); so do
    // we, to report what the compiler optimised for.
    const uint32_t byLdsGroups = L::kLdsBytesPerCu / input.ldsBytes;
    result.byLds = byLdsGroups == 0 ? 0 : wavesPerSimdFor(byLdsGroups, n);
    result.workgroupsPerCu = std::min(bySlots, byLdsGroups);
  }

  result.wavesPerSimd = std::min(
      {result.byVgpr, result.bySgpr, result.byLds, result.byWorkgroup, L::kMaxWavesPerSimd});
  if (result.wavesPerSimd < L::kMaxWavesPerSimd) {
    if (result.byVgpr == result.wavesPerSimd)
      result.limits |= kLimitVgpr;
    if (result.bySgpr == result.wavesPerSimd)
      result.limits |= kLimitSgpr;
    if (result.byLds == result.wavesPerSimd)
      result.limits |= kLimitLds;
    if (result.byWorkgroup == result.wavesPerSimd)
      result.limits |= kLimitWorkgroup;
  }
  return result;
}

std::string Occupancy::limitingFactor() const {
  std::string text;
  auto add = [&](unsigned bit, const char *name) {
    if (limits & bit)
      text += (text.empty() ? "" : "+") + std::string(name);
  };
  add(kLimitVgpr, "vgpr");
  add(kLimitSgpr, "sgpr");
  add(kLimitLds, "lds");
  add(kLimitWorkgroup, "workgroup");
  return text.empty() ? "none" : text;
}

} // namespace mxf::codeobj
