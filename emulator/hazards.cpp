//===- hazards.cpp - Memory counters and the registers loads still owe ----===//

#include "emulator/hazards.h"

#include "emulator/operands.h"
#include "emulator/program.h"

#include <algorithm>

namespace mxf::emu {

namespace {

std::string scalarName(unsigned n) {
  if (n < sreg::kUserSgprs)
    return "s[" + std::to_string(n) + "]";
  if (n >= sreg::kTtmp0 && n < sreg::kTtmp0 + 16)
    return "ttmp[" + std::to_string(n - sreg::kTtmp0) + "]";
  switch (n) {
  case sreg::kFlatScratch: return "flat_scratch_lo";
  case sreg::kFlatScratch + 1: return "flat_scratch_hi";
  case sreg::kXnackMask: return "xnack_mask_lo";
  case sreg::kXnackMask + 1: return "xnack_mask_hi";
  case sreg::kVcc: return "vcc_lo";
  case sreg::kVcc + 1: return "vcc_hi";
  case sreg::kM0: return "m0";
  case sreg::kExec: return "exec_lo";
  case sreg::kExec + 1: return "exec_hi";
  default: return "scalar register " + std::to_string(n);
  }
}

std::string instructionAt(const Wave &wave, uint32_t pc) {
  const Instruction &inst = wave.program->instructions[pc];
  return "'" + inst.text + "' at " + hex(inst.address);
}

} // namespace

WaitcntFields decodeWaitcnt(uint16_t simm16) {
  WaitcntFields f;
  f.vmcnt = (simm16 & 0xf) | (((simm16 >> 14) & 3) << 4);
  f.expcnt = (simm16 >> 4) & 7;
  f.lgkmcnt = (simm16 >> 8) & 0xf;
  return f;
}

bool MemoryCounters::retired(const Producer &p) const {
  switch (p.counter) {
  case MemoryCounter::Vm: return p.seq <= vmRetired_;
  case MemoryCounter::Lds: return p.seq <= ldsRetired_;
  case MemoryCounter::Smem: return p.seq <= smemRetired_;
  default: return true;
  }
}

bool MemoryCounters::registerRange(const Wave &wave, const Operand &op, unsigned &first,
                                   unsigned &count) {
  if (op.isVector())
    first = wave.unifiedIndex(op);
  else if (op.kind == Operand::Kind::Scalar)
    first = kSgprBase + op.index;
  else
    return false;
  count = op.count ? op.count : 1;
  if (first + count > kRegisters)
    count = first < kRegisters ? kRegisters - first : 0;
  return count > 0;
}

int MemoryCounters::firstPending(unsigned first, unsigned count) const {
  for (unsigned r = first; r < first + count; ++r)
    if ((pending_[r / 64] >> (r % 64)) & 1)
      return int(r);
  return -1;
}

Status MemoryCounters::checkOperands(const Wave &wave, const Instruction &inst) const {
  unsigned first, count;
  for (unsigned i = 0; i < inst.numSrcs; ++i) {
    if (!registerRange(wave, inst.srcs[i], first, count))
      continue;
    if (int r = firstPending(first, count); r >= 0)
      return hazard(wave, inst, unsigned(r), false);
  }
  const MemoryCounter own = counterOf(inst.family);
  for (unsigned i = 0; i < inst.numDefs; ++i) {
    if (!registerRange(wave, inst.defs[i], first, count))
      continue;
    for (unsigned r = first; r < first + count; ++r) {
      if (!((pending_[r / 64] >> (r % 64)) & 1))
        continue;
      // Results of one in-order counter land in issue order: this load's
      // return comes after the older one's.
      const MemoryCounter owner = producers_[r].counter;
      if (own == owner && (own == MemoryCounter::Vm || own == MemoryCounter::Lds))
        continue;
      return hazard(wave, inst, r, true);
    }
  }
  return Status::success();
}

Status MemoryCounters::hazard(const Wave &wave, const Instruction &inst, unsigned reg,
                              bool isWrite) const {
  const Producer &p = producers_[reg];
  std::string name;
  if (reg >= kSgprBase)
    name = scalarName(reg - kSgprBase);
  else if (reg >= wave.accumOffset)
    name = "a[" + std::to_string(reg - wave.accumOffset) + "]";
  else
    name = "v[" + std::to_string(reg) + "]";
  const auto &id = wave.workgroup->id;
  std::string message =
      name + (isWrite ? " written by '" : " read by '") + inst.text + "' at " +
      hex(inst.address) + " (workgroup (" + std::to_string(id[0]) + "," + std::to_string(id[1]) +
      "," + std::to_string(id[2]) + "), wave " + std::to_string(wave.waveInWorkgroup) +
      ") before " + instructionAt(wave, p.pc) + " returned" +
      (isWrite ? " (its return would overwrite the new value)" : "") + ": needs s_waitcnt ";
  const uint32_t smemOutstanding = smemIssued_ - smemRetired_;
  const std::string lgkmOutstanding =
      std::to_string(ldsIssued_ - ldsRetired_) + " LDS and " + std::to_string(smemOutstanding) +
      " scalar memory ops may be outstanding";
  switch (p.counter) {
  case MemoryCounter::Vm:
    message += "vmcnt(" + std::to_string(vmIssued_ - p.seq) + ") (" +
               std::to_string(vmIssued_ - vmRetired_) + " vector memory ops outstanding)";
    break;
  case MemoryCounter::Lds:
    message += "lgkmcnt(" + std::to_string(ldsIssued_ - p.seq) + ") (" + lgkmOutstanding + ")";
    break;
  default:
    message += "lgkmcnt(0) (scalar memory returns out of order; " + lgkmOutstanding + ")";
    break;
  }
  return Status::failure(message);
}

void MemoryCounters::issue(const Wave &wave, const Instruction &inst, MemoryCounter counter,
                           uint32_t pc) {
  Producer producer;
  producer.pc = pc;
  producer.counter = counter;
  switch (counter) {
  case MemoryCounter::Vm: producer.seq = ++vmIssued_; break;
  case MemoryCounter::Lds: producer.seq = ++ldsIssued_; break;
  case MemoryCounter::Smem: producer.seq = ++smemIssued_; break;
  default: return;
  }
  for (unsigned i = 0; i < inst.numDefs; ++i) {
    unsigned first, count;
    if (!registerRange(wave, inst.defs[i], first, count))
      continue;
    for (unsigned r = first; r < first + count; ++r) {
      uint64_t &word = pending_[r / 64];
      const uint64_t bit = 1ull << (r % 64);
      if (!(word & bit)) {
        word |= bit;
        ++numPending_;
      }
      producers_[r] = producer;
    }
  }
}

void MemoryCounters::wait(unsigned vm, unsigned lgkm) {
  if (vmIssued_ > vm)
    vmRetired_ = std::max(vmRetired_, vmIssued_ - vm);
  // LDS ops complete in order whatever the scalar loads do: with L
  // outstanding and at most lgkm ops left, the oldest L - lgkm are done.
  if (ldsIssued_ > lgkm)
    ldsRetired_ = std::max(ldsRetired_, ldsIssued_ - lgkm);
  // Scalar loads return in any order: one may be among the lgkm left.
  if (lgkm == 0)
    smemRetired_ = smemIssued_;
  if (numPending_)
    retireFinished();
}

void MemoryCounters::retireFinished() {
  for (unsigned w = 0; w < pending_.size(); ++w) {
    uint64_t bits = pending_[w];
    while (bits) {
      const unsigned b = unsigned(__builtin_ctzll(bits));
      bits &= bits - 1;
      const unsigned r = 64 * w + b;
      if (retired(producers_[r])) {
        pending_[w] &= ~(1ull << b);
        --numPending_;
      }
    }
  }
}

} // namespace mxf::emu
