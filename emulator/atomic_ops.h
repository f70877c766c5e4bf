//===- atomic_ops.h - The 32-bit read-modify-write of memory atomics -*- C++ -*-===//
//
// One definition of buffer_atomic_* (mubuf.cpp) and global_atomic_*
// (vmem.cpp): workgroups run on several host threads, so each
// read-modify-write holds one process-wide lock. Only integer atomics are
// modelled: their results do not depend on the order of the workgroups
// (add, min, max, and, or, xor commute), which is what a deterministic
// kernel may rely on; float atomics (order-dependent) stop the run.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_EMULATOR_ATOMIC_OPS_H
#define MXFORGE_EMULATOR_ATOMIC_OPS_H

#include <cstdint>
#include <cstring>
#include <mutex>

namespace mxf::emu {

enum class AtomicOp { Swap, Add, Sub, SMin, UMin, SMax, UMax, And, Or, Xor };

inline std::mutex &atomicMemoryLock() {
  static std::mutex lock;
  return lock;
}

/// Applies `op` with `value` to the dword at `p`; returns the old dword.
inline uint32_t atomicRmw32(uint8_t *p, AtomicOp op, uint32_t value) {
  std::lock_guard<std::mutex> guard(atomicMemoryLock());
  uint32_t old;
  std::memcpy(&old, p, 4);
  uint32_t next = old;
  switch (op) {
  case AtomicOp::Swap: next = value; break;
  case AtomicOp::Add: next = old + value; break;
  case AtomicOp::Sub: next = old - value; break;
  case AtomicOp::SMin: next = int32_t(value) < int32_t(old) ? value : old; break;
  case AtomicOp::UMin: next = value < old ? value : old; break;
  case AtomicOp::SMax: next = int32_t(value) > int32_t(old) ? value : old; break;
  case AtomicOp::UMax: next = value > old ? value : old; break;
  case AtomicOp::And: next = old & value; break;
  case AtomicOp::Or: next = old | value; break;
  case AtomicOp::Xor: next = old ^ value; break;
  }
  std::memcpy(p, &next, 4);
  return old;
}

/// Mnemonic suffixes and their operations, for the registration loops.
struct AtomicName {
  const char *suffix;
  AtomicOp op;
};
inline constexpr AtomicName kAtomicNames[] = {
    {"swap", AtomicOp::Swap}, {"add", AtomicOp::Add},   {"sub", AtomicOp::Sub},
    {"smin", AtomicOp::SMin}, {"umin", AtomicOp::UMin}, {"smax", AtomicOp::SMax},
    {"umax", AtomicOp::UMax}, {"and", AtomicOp::And},   {"or", AtomicOp::Or},
    {"xor", AtomicOp::Xor}};

} // namespace mxf::emu

#endif // MXFORGE_EMULATOR_ATOMIC_OPS_H
