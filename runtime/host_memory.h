//===- host_memory.h - Device memory made of host allocations -----*- C++ -*-===//
//
// Where there is no GPU (the emu backend, and the test backends), "device
// memory" is host memory under made-up device addresses. The addresses are
// chosen so that the emulator's bounds checks mean something:
//  - never 0, and far from the emulator's kernarg segment (0x7f00'0000'0000);
//  - aligned to 256 bytes, like hipMalloc's (our kernels' vector loads rely
//    on at least 16);
//  - separated by an unmapped gap of 64 KiB, so that running off the end of
//    one buffer lands in no buffer and is reported, instead of silently
//    reading its neighbour;
//  - never reused, so that a kernel given a freed buffer's address faults;
//  - each HostMemory (each emu device, each C API context) in a window of
//    its own (1 TiB), so that a buffer of one context given to another is
//    no buffer there and is refused, instead of touching the first
//    context's memory. 110 windows fit below kLimit; the 111th HostMemory
//    of a process reuses the first window.
// Plain C++: part of the core runtime.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_HOST_MEMORY_H
#define MXFORGE_RUNTIME_HOST_MEMORY_H

#include "support/status.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace mxf::runtime {

class HostMemory {
public:
  static constexpr uint64_t kBase = 0x100000000000ull; // 16 TiB
  static constexpr uint64_t kLimit = 0x7e0000000000ull;
  static constexpr uint64_t kAlign = 256;
  static constexpr uint64_t kGap = 64 * 1024;
  /// What fresh memory holds: all-ones bytes are NaN as f32, bf16 and f16,
  /// and -1 as an integer, so a read before any write shows.
  static constexpr uint8_t kPoison = 0xff;
  static constexpr uint64_t kWindow = uint64_t(1) << 40;

  HostMemory();
  /// [windowBase(), windowBase() + kWindow): where this instance allocates.
  uint64_t windowBase() const { return windowBase_; }

  struct Region {
    uint64_t address = 0;
    uint8_t *host = nullptr;
    uint64_t size = 0;
  };

  /// A new poisoned region of `bytes` (> 0).
  Result<uint64_t> allocate(uint64_t bytes);
  Status free(uint64_t address);
  /// Host pointer for [address, address + bytes) inside one region, or null.
  uint8_t *translate(uint64_t address, uint64_t bytes) const;
  /// Every live region, by address (what a launch registers).
  std::vector<Region> regions() const;

private:
  struct Allocation {
    std::unique_ptr<uint8_t[]> host;
    uint64_t size = 0;
  };

  mutable std::mutex mutex_;
  std::map<uint64_t, Allocation> allocations_;
  uint64_t windowBase_;
  uint64_t next_;
};

} // namespace mxf::runtime

#endif // MXFORGE_RUNTIME_HOST_MEMORY_H
