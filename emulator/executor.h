//===- executor.h - Running the waves of one workgroup -----------*- C++ -*-===//
//
// Sets up each wave's initial state from the kernel descriptor exactly as
// GFX950_SEMANTICS.md §D describes (user SGPRs in their fixed order, system
// SGPRs, packed work-item IDs in v0, EXEC, accum_offset, LDS) and runs the
// waves of a workgroup on one thread, taking turns as the launch's
// WaveSchedule says; a barrier is released when every wave that has not ended
// waits at it. Around each instruction it applies the hazard model
// (docs/emulator.md): the memory counters of each wave (hazards.h) and the
// LDS happens-before check between waves (lds_races.h).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_EMULATOR_EXECUTOR_H
#define MXFORGE_EMULATOR_EXECUTOR_H

#include "emulator/program.h"
#include "emulator/wave.h"

#include <array>

namespace mxf::emu {

/// What is the same for every workgroup of a launch.
struct DispatchSetup {
  const KernelProgram *program = nullptr;
  const GlobalMemory *memory = nullptr;
  std::array<uint32_t, 3> grid{};      // workgroups
  std::array<uint32_t, 3> workgroup{}; // work-items
  uint32_t ldsBytes = 0;               // static + dynamic
  uint64_t kernargAddress = 0;
  uint64_t dispatchPacketAddress = 0;
  uint64_t queueAddress = 0;
  uint64_t maxInstructionsPerWave = 0;
  WaveSchedule schedule = WaveSchedule::InOrder;
  uint64_t scheduleSeed = 0; // Random: mixed with each workgroup's id
  bool checkMemoryCounters = false;
  bool checkLdsRaces = false;
  const TimelineCosts *timeline = nullptr; // nullptr: no timeline
  bool countsOnly = false;                  // LaunchOptions::countsOnly
};

/// Checks the parts of the descriptor the emulator cannot model (scratch,
/// wave32, rounding modes, f32 denormal flushing) once per launch;
/// `countsOnly` (LaunchOptions::countsOnly) lets the float modes pass.
Status checkDescriptorSupported(const KernelProgram &program, bool countsOnly);

/// Runs workgroup `id` to completion, adding its counters to `stats`.
Status runWorkgroup(const DispatchSetup &setup, const std::array<uint32_t, 3> &id,
                    WaveStats &stats);

} // namespace mxf::emu

#endif // MXFORGE_EMULATOR_EXECUTOR_H
