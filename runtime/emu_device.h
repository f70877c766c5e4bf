//===- emu_device.h - The `emu` backend: the gfx950 emulator -------*- C++ -*-===//
//
// Runs code objects on the functional gfx950 emulator (emulator/), on any
// CPU. Device memory is host memory under made-up device addresses
// (host_memory.h); every live buffer is registered with the emulator at each
// launch, so a kernel can touch exactly those and its kernarg segment, and
// any other access stops the launch with an error naming the instruction,
// lane and address. Launches are synchronous; `synchronize` has nothing to
// wait for.
//
// In the mxforge_runtime_emu library (it links the emulator and so LLVM),
// not in the core runtime. Linking that library also makes
// `openDevice("emu")` work (device_factory.h).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_EMU_DEVICE_H
#define MXFORGE_RUNTIME_EMU_DEVICE_H

#include "support/status.h"
#include "emulator/emulator.h"
#include "runtime/device.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>

namespace mxf::runtime {

struct EmuDeviceOptions {
  /// Worker threads over workgroups; 0 = all hardware threads. Results never
  /// depend on it.
  unsigned threads = 0;
  /// The order workgroups are dispatched in (emulator/emulator.h): results
  /// must not depend on it either; the determinism tests vary it.
  emu::WorkgroupOrder workgroupOrder = emu::WorkgroupOrder::Forward;
  uint64_t workgroupOrderSeed = 0;
  /// Only these workgroups run (emu::LaunchOptions::runsWorkgroup); unset:
  /// all. For tests that sample launches too large to emulate whole.
  std::function<bool(const std::array<uint32_t, 3> &)> runsWorkgroup;
  /// Stops a wave after this many instructions (a kernel that never ends);
  /// 0 = no limit.
  uint64_t maxInstructionsPerWave = 50'000'000;
  /// Costs of the latency timeline (emulator/timeline.h) that the MI355X
  /// model reads as `timeline_cycles`; off (all 0) by default.
  emu::TimelineCosts timeline;
  /// emu::LaunchOptions::countsOnly: outputs are not to be trusted.
  bool countsOnly = false;
};

Result<std::unique_ptr<Device>> openEmuDevice(const EmuDeviceOptions &options = {});

} // namespace mxf::runtime

#endif // MXFORGE_RUNTIME_EMU_DEVICE_H
