//===- kernel_info.h - What a launcher needs to know of a kernel -*- C++ -*-===//
//
// Read back from a code object's metadata note (NT_AMDGPU_METADATA) by the
// compiler, stored in bundle manifests, and used by the runtime to pack
// kernel arguments. Plain C++ on purpose: the runtime links nothing from
// LLVM or MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_KERNEL_INFO_H
#define MXFORGE_RUNTIME_KERNEL_INFO_H

#include <cstdint>
#include <string>
#include <vector>

namespace mxf {

/// One entry of the metadata's `.args` list (explicit and hidden arguments).
struct KernelArgInfo {
  std::string name;         // `.name` (empty for most hidden arguments)
  std::string valueKind;    // `.value_kind`: global_buffer, by_value, hidden_*
  std::string addressSpace; // `.address_space` for pointers (global, ...), else empty
  uint32_t offset = 0;      // `.offset` in the kernarg segment
  uint32_t size = 0;        // `.size` in bytes

  bool operator==(const KernelArgInfo &other) const {
    return name == other.name && valueKind == other.valueKind &&
           addressSpace == other.addressSpace && offset == other.offset && size == other.size;
  }
  bool operator!=(const KernelArgInfo &other) const { return !(*this == other); }
};

struct KernelInfo {
  std::string name;   // `.name`; the descriptor symbol is `<name>.kd`
  std::vector<KernelArgInfo> args;
  uint32_t kernargSize = 0;       // `.kernarg_segment_size`
  uint32_t kernargAlign = 0;      // `.kernarg_segment_align`
  uint32_t vgprCount = 0;         // `.vgpr_count` (arch VGPRs aligned to 4, plus AGPRs)
  uint32_t agprCount = 0;         // `.agpr_count`
  uint32_t sgprCount = 0;         // `.sgpr_count`
  uint32_t vgprSpillCount = 0;    // `.vgpr_spill_count`
  uint32_t sgprSpillCount = 0;    // `.sgpr_spill_count`
  uint32_t ldsBytes = 0;          // `.group_segment_fixed_size`
  uint32_t scratchBytes = 0;      // `.private_segment_fixed_size`
  uint32_t maxWorkgroupSize = 0;  // `.max_flat_workgroup_size`
  uint32_t wavefrontSize = 64;    // `.wavefront_size`
  std::string target;             // `amdhsa.target`, e.g. amdgcn-amd-amdhsa--gfx950
  uint32_t codeObjectVersion = 0; // 5 or 6 (from the ELF ABI version)

  /// Field by field (a round trip through a cache entry or a bundle manifest
  /// must give back an equal KernelInfo).
  bool operator==(const KernelInfo &other) const {
    return name == other.name && args == other.args && kernargSize == other.kernargSize &&
           kernargAlign == other.kernargAlign && vgprCount == other.vgprCount &&
           agprCount == other.agprCount && sgprCount == other.sgprCount &&
           vgprSpillCount == other.vgprSpillCount && sgprSpillCount == other.sgprSpillCount &&
           ldsBytes == other.ldsBytes && scratchBytes == other.scratchBytes &&
           maxWorkgroupSize == other.maxWorkgroupSize && wavefrontSize == other.wavefrontSize &&
           target == other.target && codeObjectVersion == other.codeObjectVersion;
  }
  bool operator!=(const KernelInfo &other) const { return !(*this == other); }

  /// Number of explicit arguments (those whose valueKind is not hidden_*).
  size_t explicitArgCount() const {
    size_t n = 0;
    for (const KernelArgInfo &arg : args)
      n += arg.valueKind.rfind("hidden_", 0) == 0 ? 0 : 1;
    return n;
  }
};

} // namespace mxf

#endif // MXFORGE_RUNTIME_KERNEL_INFO_H
