//===- hidden_args.h - Values of the AMDHSA hidden kernel arguments -*- C++ -*-===//
//
// After a kernel's explicit arguments, its kernarg segment holds "hidden"
// ones that the launcher fills (AMDGPUUsage, "Code Object V5 Metadata",
// hidden kernel arguments). Which of them a kernel has, and where, is in its
// `.args` metadata; this file only knows, per `.value_kind`, what value a
// launch puts there and how wide the ABI says it is.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_HIDDEN_ARGS_H
#define MXFORGE_RUNTIME_HIDDEN_ARGS_H

#include "runtime/kernel_args.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace mxf::runtime {

/// The value a hidden argument of `valueKind` takes for `geometry`, and the
/// size in bytes the ABI gives it (0: any size, the value is zero-filled).
struct HiddenArgValue {
  uint64_t value = 0;
  uint32_t abiSize = 0;
};

/// The value of the hidden argument `valueKind` (which starts with
/// "hidden_"). Kinds that this runtime provides no service for (printf and
/// hostcall buffers, heap, queues, apertures, and any kind newer than this
/// code) are zero: our kernels use none of them, and zero is what an absent
/// service looks like to device code.
HiddenArgValue hiddenArgValue(std::string_view valueKind, const LaunchGeometry &geometry);

/// `hidden_grid_dims`: the number of dimensions that have more than one
/// work-item, at least 1 (what OpenCL's get_work_dim returns).
uint32_t gridDims(const LaunchGeometry &geometry);

} // namespace mxf::runtime

#endif // MXFORGE_RUNTIME_HIDDEN_ARGS_H
