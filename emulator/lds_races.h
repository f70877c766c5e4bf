//===- lds_races.h - Happens-before between the waves of a workgroup -*- C++ -*-===//
//
// On hardware the waves of a workgroup run concurrently, and one wave's LDS
// accesses are ordered before another's only through s_barrier: an access X
// of wave A happens before an access Y of wave B when A had *completed* X
// (an s_waitcnt lgkmcnt covering it: gfx950's s_barrier does not wait for
// memory) before it arrived at a barrier that B passed before issuing Y.
// One wave's own LDS accesses are processed in order.
//
// The detector keeps, per LDS byte, the last plain write and, for each wave,
// its last read, atomic and same-value write since that write, and checks
// every access against the ones it conflicts with. An unordered pair is an
// error naming both instructions, both waves and the address: either the two
// fall in one barrier interval (a missing barrier), or the earlier one had
// not completed when its wave arrived at the barrier (a missing s_waitcnt
// lgkmcnt before it). Detection does not depend on the wave schedule: both
// orders of a pair are checked.
//
// Conflicts: a write with everything; a read with every kind of write and
// with atomics; two atomics commute. A *same-value write* writes the value a
// program write already left in the byte (bytes still holding the launch's
// poison hold garbage on hardware, so they never qualify): the replicated
// stores of Triton's reductions and layout conversions, where every wave
// holding a copy of a value stores it to one address with no barrier between.
// In either order the byte ends with that value, so it does not conflict
// with the write that left the value or with other same-value writes. It
// still conflicts with reads: that a rewrite leaves a byte as it was is
// often a coincidence of the inputs (a prefix sum that does not change), and
// the check is meant to find the missing barrier whatever the data; and
// with atomics (it could undo one) and later plain writes (it could land
// after them).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_EMULATOR_LDS_RACES_H
#define MXFORGE_EMULATOR_LDS_RACES_H

#include "emulator/instruction.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mxf::emu {

enum class LdsAccess : uint8_t { Read, Write, Atomic, SameValueWrite };

class LdsRaceDetector {
public:
  /// Enables the detector for a workgroup of `numWaves` waves over `ldsBytes`
  /// bytes of LDS running `code`. `schedule` describes the wave schedule for
  /// messages (how to replay).
  void enable(size_t ldsBytes, unsigned numWaves, const std::vector<Instruction> *code,
              std::string schedule);
  bool enabled() const { return code_ != nullptr; }

  /// The executor announces each LDS instruction before its handler runs:
  /// wave, its index in the program, and the LDS sequence number it will
  /// have in the wave's lgkmcnt (MemoryCounters::ldsIssued() + 1).
  void beginInstruction(unsigned wave, uint32_t pc, uint32_t ldsSeq);
  /// Called by the LDS handlers for each lane's read or atomic (after the
  /// bounds check). False on a race, whose message error() then holds (a
  /// bool, not a Status: this runs for every lane of every LDS instruction).
  bool access(LdsAccess kind, uint64_t address, unsigned bytes);
  /// Each lane's write of `data` over the LDS bytes `current` (before it
  /// lands): bytes it leaves as a program write defined them are a
  /// same-value write, the others a plain write.
  bool write(uint64_t address, const uint8_t *current, const uint8_t *data, unsigned bytes);
  const std::string &error() const { return error_; }

  /// A wave arrived at s_barrier (index `pc`) or ended (s_endpgm), with its
  /// LDS counters at that moment.
  void arrive(unsigned wave, uint32_t pc, uint32_t ldsIssued, uint32_t ldsRetired);
  void end(unsigned wave, uint32_t pc, uint32_t ldsIssued, uint32_t ldsRetired);
  /// Every wave still running arrived: a new barrier interval starts.
  void releaseBarrier() { ++interval_; }

private:
  struct Record { // one executed LDS instruction of one wave
    uint32_t pc;
    uint32_t ldsSeq;
    uint32_t interval;
    uint16_t wave;
    LdsAccess kind;
  };
  struct Milestone { // a barrier arrival or the end of a wave
    uint32_t pc = 0, ldsIssued = 0, ldsRetired = 0;
    bool valid = false;
  };
  struct ByteState {
    uint32_t lastWrite = 0;  // record index + 1 of the last plain write; 0: none
    uint16_t readers = 0;    // waves with a read since that write
    uint16_t atomics = 0;    // waves with an atomic since that write
    uint16_t sameValue = 0;  // waves with a same-value write since that write
  };

  /// Whether record `recordPlusOne` (another access to the same byte)
  /// happens before the current one.
  bool ordered(uint32_t recordPlusOne) const;
  template <LdsAccess Kind> bool accessAs(uint64_t address, unsigned bytes);
  /// Whether bytes a..a+3 share one state and, for the waves just checked
  /// in each mask, one slot.
  bool sameDword(uint64_t a, unsigned readers, unsigned atomics, unsigned sameValue) const;
  bool race(const Record &earlier, uint64_t address);
  const Milestone &milestoneBefore(unsigned wave, uint32_t interval) const;
  uint32_t *slots(std::vector<std::unique_ptr<uint32_t[]>> &table, unsigned wave);

  const std::vector<Instruction> *code_ = nullptr;
  std::string schedule_;
  std::string error_;
  size_t ldsBytes_ = 0;
  uint32_t interval_ = 0;
  std::vector<ByteState> bytes_;                      // allocated on first access
  std::vector<std::unique_ptr<uint32_t[]>> readSlots_;   // [wave][byte]: record + 1
  std::vector<std::unique_ptr<uint32_t[]>> atomicSlots_; // valid where the mask says
  std::vector<std::unique_ptr<uint32_t[]>> sameValueSlots_;
  std::vector<Record> records_;
  std::vector<std::vector<Milestone>> arrivals_; // [wave][barrier]
  std::vector<Milestone> ends_;                  // [wave]
  uint32_t current_ = 0; // record index + 1 of the instruction being executed
  unsigned currentWave_ = 0;
  uint32_t checkedOk_[2] = {0, 0}; // records already found ordered before current_
};

} // namespace mxf::emu

#endif // MXFORGE_EMULATOR_LDS_RACES_H
