//===- hazards.h - Memory counters and the registers loads still owe -*- C++ -*-===//
//
// A gfx9 wave counts its outstanding memory instructions in counters that
// s_waitcnt waits on (CDNA ISA "Data dependency resolution"; LLVM's
// SIInsertWaitcnts places our waits from the same rules):
//   vmcnt    vector memory (global_/flat_/buffer_ loads and stores), which
//            retire in issue order: vmcnt(N) = all but the newest N are done;
//   lgkmcnt  LDS (ds_*), in order among themselves, and scalar memory
//            (s_load_*, s_buffer_load_*, s_memtime), which may return in any
//            order: with L LDS ops outstanding, lgkmcnt(N) guarantees the
//            oldest max(0, L - N) of them, and scalar ones only when N == 0.
// The emulator performs every access at issue, but until an s_waitcnt
// guarantees that a load has returned, its destination registers are
// *pending*: an instruction that reads one, or writes one (the load's return
// would overwrite the new value), is an error naming both instructions and
// the wait that is missing, as the hardware would expose it with garbage.
//
// It is generic: the counter comes from the instruction's family, the pending
// registers from its defs, the reads from its srcs, so any new memory
// instruction is covered without a line in its handler. Implicit operands
// (VCC of e32 forms, EXEC, M0) are not in an Instruction and are not checked;
// no load writes them in code we run.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_EMULATOR_HAZARDS_H
#define MXFORGE_EMULATOR_HAZARDS_H

#include "emulator/instruction.h"

#include <array>
#include <cstdint>

namespace mxf::emu {

struct Wave;

/// The counter a memory instruction increments.
enum class MemoryCounter : uint8_t {
  None, // not a memory instruction
  Vm,   // vmcnt: vector memory, in order
  Lds,  // lgkmcnt: LDS, in order among LDS ops
  Smem, // lgkmcnt: scalar memory, out of order
};

/// None for families that do not touch memory. FLAT counts as vector memory:
/// the emulator treats flat as global (no LDS aperture); on hardware a flat
/// access also counts in lgkmcnt, and LLVM then waits for both to reach 0.
inline MemoryCounter counterOf(Family family) {
  switch (family) {
  case Family::Vmem: return MemoryCounter::Vm;
  case Family::Lds: return MemoryCounter::Lds;
  case Family::Smem: return MemoryCounter::Smem;
  default: return MemoryCounter::None;
  }
}

/// s_waitcnt's SIMM16 on gfx9: vmcnt = bits [3:0] | bits [15:14] << 4,
/// expcnt = [6:4], lgkmcnt = [11:8]. A field at its maximum does not wait.
struct WaitcntFields {
  unsigned vmcnt = 63, expcnt = 7, lgkmcnt = 15;
};
WaitcntFields decodeWaitcnt(uint16_t simm16);

/// One wave's counters and pending registers.
class MemoryCounters {
public:
  /// The fast path: most instructions run while no load is outstanding.
  bool anyPending() const { return numPending_ != 0; }

  /// Before `inst` runs: fails if it reads a pending register, or writes one
  /// that a load of another counter (or any scalar load) still owes. A load
  /// may overwrite a register an older load of the same in-order counter owes
  /// (vector memory and LDS write their results in issue order).
  Status checkOperands(const Wave &wave, const Instruction &inst) const;

  /// After memory instruction `inst` (index `pc` in the program) issued.
  void issue(const Wave &wave, const Instruction &inst, MemoryCounter counter, uint32_t pc);

  /// s_waitcnt vmcnt(vm) lgkmcnt(lgkm): retires what it guarantees.
  void wait(unsigned vm, unsigned lgkm);

  /// LDS operations issued / known complete (in order, 1-based sequence
  /// numbers): the LDS race check asks whether a wave's ds_write had
  /// completed when it arrived at a barrier.
  uint32_t ldsIssued() const { return ldsIssued_; }
  uint32_t ldsRetired() const { return ldsRetired_; }

private:
  // One bit per register: unified VGPRs (ArchVGPRs then AGPRs) first, then
  // the scalar file by operand encoding.
  static constexpr unsigned kSgprBase = 512;
  static constexpr unsigned kRegisters = kSgprBase + sreg::kCount;

  struct Producer {
    uint32_t seq = 0; // sequence number within its counter
    uint32_t pc = 0;  // the load, for messages
    MemoryCounter counter = MemoryCounter::None;
  };

  bool retired(const Producer &p) const;
  void retireFinished();
  static bool registerRange(const Wave &wave, const Operand &op, unsigned &first,
                            unsigned &count);
  int firstPending(unsigned first, unsigned count) const;
  Status hazard(const Wave &wave, const Instruction &inst, unsigned reg, bool isWrite) const;

  std::array<uint64_t, (kRegisters + 63) / 64> pending_{};
  std::array<Producer, kRegisters> producers_{};
  unsigned numPending_ = 0;
  uint32_t vmIssued_ = 0, vmRetired_ = 0;
  uint32_t ldsIssued_ = 0, ldsRetired_ = 0;
  uint32_t smemIssued_ = 0, smemRetired_ = 0;
};

} // namespace mxf::emu

#endif // MXFORGE_EMULATOR_HAZARDS_H
