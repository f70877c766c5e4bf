//===- memory.h - Registered global memory with bounds checks ----*- C++ -*-===//
//
// Global memory of a launch is the set of host buffers the launcher
// registered, each at a device address range. Every access must lie entirely
// inside one buffer; anything else is an error naming the address, so the
// emulator doubles as a memory checker for our kernels.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_EMULATOR_MEMORY_H
#define MXFORGE_EMULATOR_MEMORY_H

#include "emulator/emulator.h"

#include <cstdint>
#include <vector>

namespace mxf::emu {

class GlobalMemory {
public:
  /// Fails if two buffers overlap, a buffer is empty or wraps around.
  static Result<GlobalMemory> create(std::vector<EmuBuffer> buffers);

  /// Host pointer for [address, address + size), or nullptr when the range
  /// is not inside one buffer.
  uint8_t *translate(uint64_t address, uint64_t size) const;

  /// "no buffer holds 0x..." style description of why translate failed.
  std::string describeMiss(uint64_t address, uint64_t size) const;

private:
  std::vector<EmuBuffer> buffers_; // sorted by deviceAddress
};

} // namespace mxf::emu

#endif // MXFORGE_EMULATOR_MEMORY_H
