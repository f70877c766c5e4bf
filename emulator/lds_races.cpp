//===- lds_races.cpp - Happens-before between the waves of a workgroup ----===//

#include "emulator/lds_races.h"

#include "emulator/operands.h"

namespace mxf::emu {

namespace {

const char *verb(LdsAccess kind) {
  switch (kind) {
  case LdsAccess::Read: return "read";
  case LdsAccess::Write: return "write";
  case LdsAccess::Atomic: return "atomic";
  default: return "same-value write";
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
  sameValueSlots_.clear();
  sameValueSlots_.resize(numWaves);
  records_.clear();
  arrivals_.assign(numWaves, {});
  ends_.assign(numWaves, {});
}

void LdsRaceDetector::beginInstruction(unsigned wave, uint32_t pc, uint32_t ldsSeq) {
  records_.push_back({pc, ldsSeq, interval_, uint16_t(wave), LdsAccess::Read});
  current_ = uint32_t(records_.size());
  currentWave_ = wave;
  checkedOk_[0] = checkedOk_[1] = 0;
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

bool LdsRaceDetector::ordered(uint32_t recordPlusOne) const {
  const Record &earlier = records_[recordPlusOne - 1];
  bool ok = earlier.wave == currentWave_; // one wave's LDS ops are processed in order
  if (!ok && earlier.interval != interval_) {
    const Milestone &m = milestoneBefore(earlier.wave, interval_);
    ok = m.valid && m.ldsRetired >= earlier.ldsSeq;
  }
  return ok;
}

bool LdsRaceDetector::race(const Record &earlier, uint64_t address) {
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
  error_ = message + " [" + schedule_ + "]";
  return false;
}

bool LdsRaceDetector::sameDword(uint64_t a, unsigned readers, unsigned atomics,
                                unsigned sameValue) const {
  const ByteState *b = &bytes_[a];
  for (unsigned i = 1; i < 4; ++i)
    if (b[i].lastWrite != b[0].lastWrite || b[i].readers != b[0].readers ||
        b[i].atomics != b[0].atomics || b[i].sameValue != b[0].sameValue)
      return false;
  auto sameSlots = [&](const std::vector<std::unique_ptr<uint32_t[]>> &table, unsigned waves) {
    for (; waves; waves &= waves - 1) {
      const uint32_t *slot = &table[__builtin_ctz(waves)][a];
      if (slot[1] != slot[0] || slot[2] != slot[0] || slot[3] != slot[0])
        return false;
    }
    return true;
  };
  return sameSlots(readSlots_, readers) && sameSlots(atomicSlots_, atomics) &&
         sameSlots(sameValueSlots_, sameValue);
}

template <LdsAccess Kind> bool LdsRaceDetector::accessAs(uint64_t address, unsigned bytes) {
  // What each kind conflicts with (lds_races.h).
  constexpr bool kWithWrite = Kind != LdsAccess::SameValueWrite;
  constexpr bool kWithReads = Kind != LdsAccess::Read;
  constexpr bool kWithAtomics = Kind != LdsAccess::Atomic;
  constexpr bool kWithSameValue = Kind != LdsAccess::SameValueWrite;
  // An instruction whose lanes write some bytes and rewrite others (lanes
  // sharing an address) is named a write.
  LdsAccess &recordKind = records_[current_ - 1].kind;
  if (Kind != LdsAccess::SameValueWrite || recordKind != LdsAccess::Write)
    recordKind = Kind;
  // Locals, not members: the stores below would make the compiler reload
  // them for every byte.
  const uint32_t current = current_;
  const unsigned me = 1u << currentWave_;
  uint32_t *mine = Kind == LdsAccess::Read     ? slots(readSlots_, currentWave_)
                   : Kind == LdsAccess::Atomic ? slots(atomicSlots_, currentWave_)
                   : Kind == LdsAccess::SameValueWrite ? slots(sameValueSlots_, currentWave_)
                                                       : nullptr;
  // Most accesses meet records already found ordered (a whole wave's write
  // of these bytes, the same reader), so the test is inlined and memoised.
  uint32_t ok0 = checkedOk_[0], ok1 = checkedOk_[1];
  auto unordered = [&](uint32_t record) {
    if (record == current || record == ok0 || record == ok1)
      return false;
    if (!ordered(record))
      return true;
    ok1 = ok0;
    ok0 = record;
    return false;
  };
  auto checkAll = [&](const std::vector<std::unique_ptr<uint32_t[]>> &table, unsigned waves,
                      uint64_t a) {
    for (; waves; waves &= waves - 1) {
      const uint32_t record = table[__builtin_ctz(waves)][a];
      if (unordered(record))
        return race(records_[record - 1], a);
    }
    return true;
  };
  ByteState *state = bytes_.data();
  const uint64_t end = address + bytes;
  for (uint64_t a = address; a < end;) {
    ByteState &b = state[a];
    if (kWithWrite && b.lastWrite && unordered(b.lastWrite))
      return race(records_[b.lastWrite - 1], a);
    const unsigned readers = kWithReads ? b.readers & ~me : 0;
    const unsigned atomics = kWithAtomics ? b.atomics & ~me : 0;
    const unsigned sameValue = kWithSameValue ? b.sameValue & ~me : 0;
    if (!checkAll(readSlots_, readers, a) || !checkAll(atomicSlots_, atomics, a) ||
        !checkAll(sameValueSlots_, sameValue, a))
      return false;
    // An aligned dword whose four bytes have one state, and one slot for
    // every wave just checked, needs those checks once: the common case of
    // dword accesses, four times cheaper.
    unsigned run = 1;
    if ((a & 3) == 0 && end - a >= 4 && sameDword(a, readers, atomics, sameValue))
      run = 4;
    for (uint64_t i = a; i < a + run; ++i) {
      ByteState &s = state[i];
      switch (Kind) {
      case LdsAccess::Write: s = ByteState{current, 0, 0, 0}; continue;
      case LdsAccess::Read: s.readers |= uint16_t(me); break;
      case LdsAccess::Atomic: s.atomics |= uint16_t(me); break;
      case LdsAccess::SameValueWrite: s.sameValue |= uint16_t(me); break;
      }
      mine[i] = current;
    }
    a += run;
  }
  checkedOk_[0] = ok0;
  checkedOk_[1] = ok1;
  return true;
}

bool LdsRaceDetector::access(LdsAccess kind, uint64_t address, unsigned bytes) {
  if (bytes_.empty())
    bytes_.resize(ldsBytes_);
  switch (kind) {
  case LdsAccess::Read: return accessAs<LdsAccess::Read>(address, bytes);
  case LdsAccess::Atomic: return accessAs<LdsAccess::Atomic>(address, bytes);
  default: return write(address, nullptr, nullptr, bytes);
  }
}

bool LdsRaceDetector::write(uint64_t address, const uint8_t *current, const uint8_t *data,
                            unsigned bytes) {
  if (bytes_.empty())
    bytes_.resize(ldsBytes_);
  auto sameValue = [&](unsigned i) {
    return data && bytes_[address + i].lastWrite && current[i] == data[i];
  };
  // Runs of bytes of one kind (usually the whole access).
  for (unsigned i = 0; i < bytes;) {
    const bool same = sameValue(i);
    unsigned j = i + 1;
    while (j < bytes && sameValue(j) == same)
      ++j;
    if (!(same ? accessAs<LdsAccess::SameValueWrite>(address + i, j - i)
               : accessAs<LdsAccess::Write>(address + i, j - i)))
      return false;
    i = j;
  }
  return true;
}

} // namespace mxf::emu
