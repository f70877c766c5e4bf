//===- occupancy.h - Waves per SIMD on gfx950 --------------------*- C++ -*-===//
//
// The theoretical occupancy of a gfx950 kernel: how many of its waves one
// SIMD can hold at once, and which resource stops it from holding more. It
// follows LLVM 22's AMDGPU backend (the model the compiler itself optimises
// for; docs/inspect.md cites each function), checked against the
// "; Occupancy:" that llc prints for the test kernels:
//   - at most 8 waves per SIMD (getMaxWavesPerEU: 8 on gfx90a/gfx942/gfx950)
//   - VGPRs: one unified 512-entry file per lane per SIMD, allocated in
//     granules of 8: waves = min(8, 512 / roundup(vgprs, 8)), all 8 below one
//     granule (getNumWavesPerEUWithNumVGPRs); vgprs = .vgpr_count = arch
//     VGPRs aligned to 4 plus AGPRs
//   - SGPRs: gfx9 step table, 8 waves up to 100 SGPRs, 7 above
//     (getOccupancyWithNumSGPRs)
//   - LDS and workgroup size: 160 KiB per CU, 4 SIMDs per CU; workgroups per
//     CU = min(163840 / lds, 32 / waves-per-workgroup capped at 16 barriers)
//     (getMaxWorkGroupsPerCU), waves per SIMD = ceil(workgroups x
//     waves-per-workgroup / 4), clamped to [1, 8]
//     (getOccupancyWithWorkGroupSizes, for one workgroup size)
// A kernel that cannot start at all (more than 512 VGPRs or 160 KiB of LDS)
// gets 0 waves.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_CODEOBJ_OCCUPANCY_H
#define MXFORGE_CODEOBJ_OCCUPANCY_H

#include <cstdint>
#include <string>

namespace mxf::codeobj {

/// gfx950 facts the model uses (docs/GFX950_SEMANTICS.md §D, §F).
struct Gfx950Limits {
  static constexpr uint32_t kMaxWavesPerSimd = 8;
  static constexpr uint32_t kSimdsPerCu = 4;
  static constexpr uint32_t kVgprsPerSimdLane = 512;
  static constexpr uint32_t kVgprGranule = 8;
  static constexpr uint32_t kLdsBytesPerCu = 163840;
  static constexpr uint32_t kWaveSlotsPerCu = kMaxWavesPerSimd * kSimdsPerCu; // 32
  static constexpr uint32_t kMaxBarriersPerCu = 16;
  static constexpr uint32_t kWaveSize = 64;
};

struct OccupancyInput {
  uint32_t vgprs = 0;         // .vgpr_count (arch aligned to 4 + AGPRs)
  uint32_t sgprs = 0;         // .sgpr_count (with VCC, flat scratch, XNACK)
  uint32_t ldsBytes = 0;      // .group_segment_fixed_size (static LDS only)
  uint32_t workgroupSize = 0; // work-items per workgroup; .max_flat_workgroup_size
};

enum OccupancyLimit : unsigned {
  kLimitNone = 0,
  kLimitVgpr = 1u << 0,
  kLimitSgpr = 1u << 1,
  kLimitLds = 1u << 2,
  kLimitWorkgroup = 1u << 3,
};

struct Occupancy {
  uint32_t wavesPerSimd = 0; // the minimum of the four below
  uint32_t byVgpr = 0;
  uint32_t bySgpr = 0;
  uint32_t byLds = 0;
  uint32_t byWorkgroup = 0; // wave slots and barriers alone (no LDS)
  uint32_t wavesPerWorkgroup = 0;
  uint32_t workgroupsPerCu = 0; // as limited by LDS and the workgroup size
  unsigned limits = kLimitNone; // every factor equal to wavesPerSimd, when below 8

  /// "vgpr", "lds", "vgpr+lds", ..., or "none" at the hardware maximum.
  std::string limitingFactor() const;
};

Occupancy computeOccupancy(const OccupancyInput &input);

} // namespace mxf::codeobj

#endif // MXFORGE_CODEOBJ_OCCUPANCY_H
