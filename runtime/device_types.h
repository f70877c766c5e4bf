//===- device_types.h - Small value types shared by the runtime ---*- C++ -*-===//
//
// Kept apart from device.h so that kernel argument packing (kernel_args.h)
// can name a buffer and a launch's dimensions without the Device interface.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_DEVICE_TYPES_H
#define MXFORGE_RUNTIME_DEVICE_TYPES_H

#include <cstdint>

namespace mxf::runtime {

/// Three extents (x, y, z); unused dimensions are 1.
struct Dim3 {
  uint32_t x = 1;
  uint32_t y = 1;
  uint32_t z = 1;

  uint32_t operator[](int i) const { return i == 0 ? x : i == 1 ? y : z; }
  uint64_t product() const { return uint64_t(x) * y * z; }
};

/// A region of device memory: its device address (what a kernel sees; never
/// 0 for a live buffer) and its size in bytes. A plain value: the Device that
/// returned it owns the memory (device.h).
struct DeviceBuffer {
  uint64_t address = 0;
  uint64_t size = 0;
};

} // namespace mxf::runtime

#endif // MXFORGE_RUNTIME_DEVICE_TYPES_H
