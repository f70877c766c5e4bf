//===- kernel_infos.h - Hand-made KernelInfos for the runtime tests -*- C++ -*-===//
//
// `writeIds()` copies the metadata LLVM 22 emits (code object v5, gfx950)
// for `write_ids(ptr addrspace(1) out, i32 n)` (tests/unit/runtime/Inputs/
// write_ids.ll), so the packing tests use a real layout: explicit arguments
// at 0 and 8, hidden ones from 16 with the gaps the ABI leaves. One argument
// is added: hidden_dynamic_lds_size at 136 (implicit offset 120, where v5
// puts it; LLVM lists it only for kernels that use dynamic LDS).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_UNIT_RUNTIME_KERNEL_INFOS_H
#define MXFORGE_TESTS_UNIT_RUNTIME_KERNEL_INFOS_H

#include "abi/kernel_info.h"

#include <string>

namespace mxf::runtime::test {

inline KernelArgInfo arg(const char *name, const char *kind, uint32_t offset, uint32_t size) {
  KernelArgInfo a;
  a.name = name;
  a.valueKind = kind;
  a.offset = offset;
  a.size = size;
  if (std::string(kind) == "global_buffer")
    a.addressSpace = "global";
  return a;
}

inline KernelInfo writeIds() {
  KernelInfo info;
  info.name = "write_ids";
  info.kernargSize = 272;
  info.kernargAlign = 8;
  info.maxWorkgroupSize = 1024;
  info.vgprCount = 4;
  info.sgprCount = 15;
  info.target = "amdgcn-amd-amdhsa--gfx950";
  info.codeObjectVersion = 5;
  info.args = {
      arg("out", "global_buffer", 0, 8),
      arg("n", "by_value", 8, 4),
      arg("", "hidden_block_count_x", 16, 4),
      arg("", "hidden_block_count_y", 20, 4),
      arg("", "hidden_block_count_z", 24, 4),
      arg("", "hidden_group_size_x", 28, 2),
      arg("", "hidden_group_size_y", 30, 2),
      arg("", "hidden_group_size_z", 32, 2),
      arg("", "hidden_remainder_x", 34, 2),
      arg("", "hidden_remainder_y", 36, 2),
      arg("", "hidden_remainder_z", 38, 2),
      arg("", "hidden_global_offset_x", 56, 8),
      arg("", "hidden_global_offset_y", 64, 8),
      arg("", "hidden_global_offset_z", 72, 8),
      arg("", "hidden_grid_dims", 80, 2),
      arg("", "hidden_hostcall_buffer", 96, 8),
      arg("", "hidden_multigrid_sync_arg", 104, 8),
      arg("", "hidden_heap_v1", 112, 8),
      arg("", "hidden_default_queue", 120, 8),
      arg("", "hidden_completion_action", 128, 8),
      arg("", "hidden_dynamic_lds_size", 136, 4),
      arg("", "hidden_queue_ptr", 216, 8),
  };
  return info;
}

/// `fake_fill(uint32_t *out, uint32_t value, uint32_t count)`, the one kernel
/// the fake HIP runtime "runs" (fake_hip.cpp).
inline KernelInfo fakeFill() {
  KernelInfo info;
  info.name = "fake_fill";
  info.kernargSize = 24;
  info.kernargAlign = 8;
  info.maxWorkgroupSize = 256;
  info.args = {
      arg("out", "global_buffer", 0, 8),
      arg("value", "by_value", 8, 4),
      arg("count", "by_value", 12, 4),
      arg("", "hidden_block_count_x", 16, 4),
  };
  return info;
}

} // namespace mxf::runtime::test

#endif // MXFORGE_TESTS_UNIT_RUNTIME_KERNEL_INFOS_H
