//===- lds_races.cpp - Happens-before between the waves of a workgroup ----===//

#include "emulator/lds_races.h"

#include "emulator/operands.h"

namespace mxf::emu {

namespace {

const char *verb(LdsAccess kind) {
  switch (kind) {
  case LdsAccess::Read: return "read";
  case LdsAccess::Write: return "write";
  default: return "atomic";
  }
}

} // namespace

void LdsRaceDetector::enable(size_t ldsBytes, unsigned numWaves,
                             const std::vector<Instruction> *code, std::string schedule) {
  code_ = code;
  schedule_ = std::move(schedule);
  ldsBytes_ = ldsBytes;
  interval_ = 0;
  bytes_.clear();
  readSlots_.clear();
  readSlots_.resize(numWaves);
  atomicSlots_.clear();
  atomicSlots_.resize(numWaves);
  records_.clear();
  arrivals_.assign(numWaves, {});
  ends_.assign(numWaves, {});
}

void LdsRaceDetector::beginInstruction(unsigned wave, uint32_t pc, uint32_t ldsSeq) {
  records_.push_back({pc, ldsSeq, interval_, uint16_t(wave), LdsAccess::Read});
  current_ = uint32_t(records_.size());
  checkedOk_ = 0;
}

void LdsRaceDetector::arrive(unsigned wave, uint32_t pc, uint32_t ldsIssued,
                             uint32_t ldsRetired) {
  arrivals_[wave].push_back({pc, ldsIssued, ldsRetired, true});
}

void LdsRaceDetector::end(unsigned wave, uint32_t pc, uint32_t ldsIssued, uint32_t ldsRetired) {
  ends_[wave] = {pc, ldsIssued, ldsRetired, true};
}

const LdsRaceDetector::Milestone &LdsRaceDetector::milestoneBefore(unsigned wave,
                                                                   uint32_t interval) const {
  // Every wave still running arrives at each barrier, so the barrier that
  // opened `interval` is arrival interval - 1; a wave that ended before it
  // released did so in its last interval.
  const uint32_t barrier = interval - 1;
  if (barrier < arrivals_[wave].size())
    return arrivals_[wave][barrier];
  return ends_[wave];
}

uint32_t *LdsRaceDetector::slots(std::vector<std::unique_ptr<uint32_t[]>> &table,
                                 unsigned wave) {
  // Uninitialised: a slot is read only where its byte's mask bit is set.
  if (!table[wave])
    table[wave].reset(new uint32_t[ldsBytes_]);
  return table[wave].get();
}

Status LdsRaceDetector::check(uint32_t recordPlusOne, uint64_t address) {
  if (recordPlusOne == current_ || recordPlusOne == checkedOk_)
    return Status::success();
  const Record &earlier = records_[recordPlusOne - 1];
  const Record &now = records_[current_ - 1];
  if (earlier.wave == now.wave) // one wave's LDS ops are processed in order
    return Status::success();
  if (earlier.interval != interval_) {
    const Milestone &m = milestoneBefore(earlier.wave, interval_);
    if (m.valid && m.ldsRetired >= earlier.ldsSeq) {
      checkedOk_ = recordPlusOne;
      return Status::success();
    }
  }
  return race(earlier, address);
}

Status LdsRaceDetector::race(const Record &earlier, uint64_t address) const {
  const Record &now = records_[current_ - 1];
  const Instruction &other = (*code_)[earlier.pc];
  std::string message = "LDS race at byte " + hex(address) + ": this " + verb(now.kind) +
                        " and wave " + std::to_string(earlier.wave) + "'s " +
                        verb(earlier.kind) + " '" + other.text + "' at " + hex(other.address);
  if (earlier.interval == interval_) {
    message += " are in the same barrier interval (" + std::to_string(interval_) +
               "): no s_barrier orders them";
  } else {
    const Milestone &m = milestoneBefore(earlier.wave, interval_);
    const bool ended = interval_ - 1 >= arrivals_[earlier.wave].size();
    message += " (barrier interval " + std::to_string(earlier.interval) +
               ") had not completed when wave " + std::to_string(earlier.wave) +
               (ended ? " ended" : " arrived at the barrier");
    if (m.valid) {
      const Instruction &at = (*code_)[m.pc];
      message += " ('" + at.text + "' at " + hex(at.address) + "): needs s_waitcnt lgkmcnt(" +
                 std::to_string(m.ldsIssued - earlier.ldsSeq) + ") before it";
    }
  }
  return Status::failure(message + " [" + schedule_ + "]");
}

Status LdsRaceDetector::access(LdsAccess kind, uint64_t address, unsigned bytes) {
  if (bytes_.empty())
    bytes_.resize(ldsBytes_);
  Record &now = records_[current_ - 1];
  now.kind = kind;
  const unsigned wave = now.wave;
  const uint16_t me = uint16_t(1u << wave);
  uint32_t *reads = kind == LdsAccess::Read ? slots(readSlots_, wave) : nullptr;
  uint32_t *atomics = kind == LdsAccess::Atomic ? slots(atomicSlots_, wave) : nullptr;
  for (uint64_t a = address; a < address + bytes; ++a) {
    ByteState &b = bytes_[a];
    if (b.lastWrite)
      if (Status s = check(b.lastWrite, a); !s.ok())
        return s;
    if (kind != LdsAccess::Read)
      for (uint16_t others = b.readers & ~me; others; others &= others - 1)
        if (Status s = check(readSlots_[__builtin_ctz(others)][a], a); !s.ok())
          return s;
    if (kind != LdsAccess::Atomic) // atomics commute with each other
      for (uint16_t others = b.atomics & ~me; others; others &= others - 1)
        if (Status s = check(atomicSlots_[__builtin_ctz(others)][a], a); !s.ok())
          return s;
    switch (kind) {
    case LdsAccess::Read:
      b.readers |= me;
      reads[a] = current_;
      break;
    case LdsAccess::Write:
      b.lastWrite = current_;
      b.readers = 0;
      b.atomics = 0;
      break;
    case LdsAccess::Atomic:
      b.atomics |= me;
      atomics[a] = current_;
      break;
    }
  }
  return Status::success();
}

} // namespace mxf::emu
