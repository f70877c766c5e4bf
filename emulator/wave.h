//===- wave.h - The state of one wave and its workgroup ----------*- C++ -*-===//
//
// A wave is 64 lanes with a scalar file (SGPRs, VCC, M0, EXEC, TTMPs, indexed
// by their operand encoding), SCC, a unified VGPR file (ArchVGPRs, then the
// AGPRs from accum_offset on), a program counter and its memory counters
// (hazards.h). Its workgroup owns the LDS and the LDS race detector
// (lds_races.h). Handlers (the semantics files) read and write this state
// directly.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_EMULATOR_WAVE_H
#define MXFORGE_EMULATOR_WAVE_H

#include "emulator/hazards.h"
#include "emulator/instruction.h"
#include "emulator/lds_races.h"
#include "emulator/memory.h"
#include "emulator/timeline.h"

#include <array>
#include <cstdint>
#include <vector>

namespace mxf::emu {

constexpr unsigned kWaveSize = 64;
constexpr uint64_t kAllLanes = ~0ull;

struct KernelProgram;

/// Counters a wave adds to while it runs (summed into LaunchStats).
struct WaveStats {
  std::array<uint64_t, kNumFamilies> byFamily{};
  uint64_t globalBytesRead = 0, globalBytesWritten = 0;
  uint64_t ldsBytesRead = 0, ldsBytesWritten = 0;
  uint64_t mfma = 0;
  int32_t peakVgpr = -1;
  uint64_t timelineCycles = 0; // the slowest workgroup's, with a timeline
};

struct Workgroup {
  std::array<uint32_t, 3> id{};
  std::vector<uint8_t> lds; // static group segment + dynamic LDS
  /// Orders the waves' LDS accesses by barriers; disabled unless the launch
  /// checks LDS races.
  LdsRaceDetector races;
};

struct Wave {
  const KernelProgram *program = nullptr;
  Workgroup *workgroup = nullptr;
  const GlobalMemory *memory = nullptr;
  WaveStats stats;

  std::array<uint32_t, sreg::kCount> s{};
  bool scc = false;
  uint32_t pc = 0;     // index of the current instruction
  uint32_t nextPc = 0; // handlers of branches set this
  bool ended = false;
  bool atBarrier = false;
  /// MODE.FP16_OVFL (bit 23), the one MODE field a kernel may change with
  /// s_setreg (hwreg.cpp): f16 results of v_cvt_f16_f32 that overflow clamp
  /// to +-65504 instead of becoming Inf.
  bool fp16Overflow = false;
  unsigned waveInWorkgroup = 0;

  /// Unified VGPR file: register r, lane l at v[r * 64 + l].
  std::vector<uint32_t> v;
  unsigned allocatedVgprs = 0; // unified registers the descriptor allocates
  unsigned accumOffset = 0;    // first AGPR in the unified file

  /// vmcnt/lgkmcnt and the registers outstanding loads still owe.
  MemoryCounters counters;
  /// LaunchOptions::countsOnly: forms modelled for counting only may run.
  bool countsOnly = false;
  /// The launch's timeline costs, or nullptr when it asked for none.
  const TimelineCosts *timelineCosts = nullptr;
  WaveTimeline timeline;

  uint64_t exec() const { return s[sreg::kExec] | (uint64_t(s[sreg::kExec + 1]) << 32); }
  void setExec(uint64_t mask) {
    s[sreg::kExec] = uint32_t(mask);
    s[sreg::kExec + 1] = uint32_t(mask >> 32);
  }
  uint64_t vcc() const { return s[sreg::kVcc] | (uint64_t(s[sreg::kVcc + 1]) << 32); }
  void setVcc(uint64_t mask) {
    s[sreg::kVcc] = uint32_t(mask);
    s[sreg::kVcc + 1] = uint32_t(mask >> 32);
  }
  uint32_t m0() const { return s[sreg::kM0]; }

  /// Unified index of dword `dword` of a VGPR or AGPR operand.
  unsigned unifiedIndex(const Operand &op, unsigned dword = 0) const {
    return (op.kind == Operand::Kind::Agpr ? accumOffset : 0) + op.index + dword;
  }
  /// The 64 lanes of dword `dword` of a vector operand.
  uint32_t *lanes(const Operand &op, unsigned dword = 0) {
    return &v[size_t(unifiedIndex(op, dword)) * kWaveSize];
  }
  const uint32_t *lanes(const Operand &op, unsigned dword = 0) const {
    return &v[size_t(unifiedIndex(op, dword)) * kWaveSize];
  }
  uint32_t *vgprLanes(unsigned unified) { return &v[size_t(unified) * kWaveSize]; }

  void count(Family family) { ++stats.byFamily[static_cast<size_t>(family)]; }
};

inline bool laneActive(uint64_t mask, unsigned lane) { return (mask >> lane) & 1; }

} // namespace mxf::emu

#endif // MXFORGE_EMULATOR_WAVE_H
