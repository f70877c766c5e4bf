//===- hidden_args.cpp - Values of the AMDHSA hidden kernel arguments -----===//
//
// The code object v5 implicit-argument block, as AMDGPUUsage lists it (the
// offsets are the kernel's business and come from its metadata):
//   hidden_block_count_{x,y,z}  u32  workgroups per dimension
//   hidden_group_size_{x,y,z}   u16  work-items per workgroup
//   hidden_remainder_{x,y,z}    u16  work-items of a partial last workgroup
//   hidden_global_offset_{x,y,z} u64 0 (HIP launches have no global offset)
//   hidden_grid_dims            u16  dimensions in use
//   hidden_dynamic_lds_size     u32  dynamic LDS bytes of this launch
//   everything else (printf/hostcall/multigrid/heap/queue/completion
//   pointers, private/shared bases, hidden_none) zero.
//
//===----------------------------------------------------------------------===//

#include "runtime/hidden_args.h"

namespace mxf::runtime {

uint32_t gridDims(const LaunchGeometry &geometry) {
  if (uint64_t(geometry.grid.z) * geometry.workgroup.z > 1)
    return 3;
  if (uint64_t(geometry.grid.y) * geometry.workgroup.y > 1)
    return 2;
  return 1;
}

HiddenArgValue hiddenArgValue(std::string_view kind, const LaunchGeometry &geometry) {
  // The dimension a per-dimension kind refers to, from its _x/_y/_z suffix.
  auto axis = [&](std::string_view prefix) -> int {
    if (kind.size() != prefix.size() + 1 || kind.substr(0, prefix.size()) != prefix)
      return -1;
    char c = kind.back();
    return c == 'x' ? 0 : c == 'y' ? 1 : c == 'z' ? 2 : -1;
  };
  if (int d = axis("hidden_block_count_"); d >= 0)
    return {geometry.grid[d], 4};
  if (int d = axis("hidden_group_size_"); d >= 0)
    return {geometry.workgroup[d], 2};
  // `grid` counts whole workgroups (as hipModuleLaunchKernel's does), so no
  // workgroup is partial and every remainder is 0.
  if (int d = axis("hidden_remainder_"); d >= 0)
    return {0, 2};
  if (int d = axis("hidden_global_offset_"); d >= 0)
    return {0, 8};
  if (kind == "hidden_grid_dims")
    return {gridDims(geometry), 2};
  if (kind == "hidden_dynamic_lds_size")
    return {geometry.dynamicLdsBytes, 4};
  return {0, 0};
}

} // namespace mxf::runtime
