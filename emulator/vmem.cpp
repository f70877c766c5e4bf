//===- vmem.cpp - Vector memory: global_load_* / global_store_* -----------===//
//
// Global (and flat, treated as global: the emulator has no LDS/scratch
// apertures) accesses per active lane at
//   vaddr64 + offset            (the "off" form), or
//   saddr64 + vaddr32 + offset  (the SADDR form),
// offset = the instruction's signed 13-bit immediate. Each lane's access must
// fall inside one registered buffer; a miss stops the run naming the lane and
// the address. Loads narrower than a dword zero- or sign-extend; d16 loads
// write one half and keep the other.
//
//===----------------------------------------------------------------------===//

#include "emulator/atomic_ops.h"
#include "emulator/opcode_table.h"
#include "emulator/operands.h"

#include <iterator>
#include <utility>

namespace mxf::emu {

namespace {

using S = Status;

enum class Width { U8, I8, U16, I16, D32 };

struct Address {
  const Operand *vaddr = nullptr;
  const Operand *saddr = nullptr;
};

Address findAddress(const Instruction &in, bool store) {
  Address a;
  for (unsigned i = 0; i < in.numSrcs; ++i) {
    const Operand &op = in.srcs[i];
    if (op.kind == Operand::Kind::Scalar && op.count == 2)
      a.saddr = &op;
    else if (op.isVector() && !a.vaddr)
      a.vaddr = &op;
  }
  if (store)
    a.vaddr = &in.srcs[0];
  return a;
}

int64_t flatOffset(const Instruction &in) {
  return int64_t(int32_t((in.words[0] & 0x1fff) << 19) >> 19); // signed 13 bits
}

/// Per-lane addresses of the access.
void laneAddresses(const Wave &w, const Instruction &in, bool store, Lanes64 &out) {
  const Address a = findAddress(in, store);
  const int64_t offset = flatOffset(in);
  if (a.saddr) {
    const uint64_t base = readScalar64(w, *a.saddr);
    Lanes32 v;
    readLanes32(w, *a.vaddr, v);
    for (unsigned l = 0; l < kWaveSize; ++l)
      out[l] = base + v[l] + uint64_t(offset);
  } else {
    readLanes64(w, *a.vaddr, out);
    for (uint64_t &x : out)
      x += uint64_t(offset);
  }
}

S laneMiss(const Wave &w, unsigned lane, uint64_t address, uint64_t bytes) {
  return S::failure("lane " + std::to_string(lane) + ": " + w.memory->describeMiss(address, bytes));
}

/// Loads of `Dwords` dwords, or one narrower value (Width), into vdst.
/// D16: 0 = full dword, 1 = low half kept-high, 2 = high half.
template <Width Wd, unsigned Dwords, int D16> S globalLoad(Wave &w, const Instruction &in) {
  Lanes64 address;
  laneAddresses(w, in, false, address);
  const uint64_t exec = w.exec();
  const unsigned bytes = Wd == Width::D32 ? 4 * Dwords : (Wd == Width::U8 || Wd == Width::I8 ? 1 : 2);
  const Operand &dst = in.dst();
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(exec, l))
      continue;
    const uint8_t *p = w.memory->translate(address[l], bytes);
    if (!p)
      return laneMiss(w, l, address[l], bytes);
    if (Wd == Width::D32) {
      for (unsigned i = 0; i < Dwords; ++i) {
        uint32_t value;
        std::memcpy(&value, p + 4 * i, 4);
        w.lanes(dst, i)[l] = value;
      }
      continue;
    }
    uint32_t value;
    switch (Wd) {
    case Width::U8: value = p[0]; break;
    case Width::I8: value = uint32_t(int32_t(int8_t(p[0]))); break;
    case Width::U16: value = uint32_t(p[0]) | (uint32_t(p[1]) << 8); break;
    default: value = uint32_t(int32_t(int16_t(uint16_t(p[0] | (p[1] << 8))))); break;
    }
    uint32_t &slot = w.lanes(dst)[l];
    if (D16 == 0)
      slot = value;
    else if (D16 == 1)
      slot = (slot & 0xffff0000u) | (value & 0xffff);
    else
      slot = (slot & 0xffffu) | (value << 16);
  }
  w.stats.globalBytesRead += uint64_t(bytes) * __builtin_popcountll(exec);
  return S::success();
}

/// Stores of `Bytes` bytes (1, 2 or 4*n) from vdata; High: the d16_hi forms
/// store bits [31:16] (or [23:16] for a byte).
template <unsigned Bytes, bool High> S globalStore(Wave &w, const Instruction &in) {
  Lanes64 address;
  laneAddresses(w, in, true, address);
  const uint64_t exec = w.exec();
  const Operand &data = in.srcs[1];
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(exec, l))
      continue;
    uint8_t *p = w.memory->translate(address[l], Bytes);
    if (!p)
      return laneMiss(w, l, address[l], Bytes);
    if (Bytes >= 4) {
      for (unsigned i = 0; i < Bytes / 4; ++i) {
        const uint32_t value = w.lanes(data, i)[l];
        std::memcpy(p + 4 * i, &value, 4);
      }
      continue;
    }
    const uint32_t value = w.lanes(data)[l] >> (High ? 16 : 0);
    p[0] = uint8_t(value);
    if (Bytes == 2)
      p[1] = uint8_t(value >> 8);
  }
  w.stats.globalBytesWritten += uint64_t(Bytes) * __builtin_popcountll(exec);
  return S::success();
}

/// global_atomic_<op> [vdst,] vaddr, vdata, saddr: the read-modify-write of
/// a dword per active lane, in lane order; the returning form (a vdst)
/// receives the old value.
template <AtomicOp Op> S globalAtomic(Wave &w, const Instruction &in) {
  Lanes64 address;
  // Operands as for a store (vaddr, vdata, [saddr]), after the optional vdst.
  laneAddresses(w, in, true, address);
  const uint64_t exec = w.exec();
  const Operand &data = in.srcs[1];
  const bool returns = in.numDefs > 0;
  Lanes32 old{};
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(exec, l))
      continue;
    uint8_t *p = w.memory->translate(address[l], 4);
    if (!p)
      return laneMiss(w, l, address[l], 4);
    old[l] = atomicRmw32(p, Op, w.lanes(data)[l]);
  }
  if (returns)
    writeLanes32(w, in.dst(), old, exec);
  w.stats.globalBytesRead += 4ull * __builtin_popcountll(exec);
  w.stats.globalBytesWritten += 4ull * __builtin_popcountll(exec);
  return S::success();
}

template <size_t... I> void registerGlobalAtomics(OpRegistry &r, std::index_sequence<I...>) {
  (r.add(std::string("global_atomic_") + kAtomicNames[I].suffix,
         globalAtomic<kAtomicNames[I].op>),
   ...);
}

} // namespace

void registerVmem(OpRegistry &r) {
  registerGlobalAtomics(r, std::make_index_sequence<std::size(kAtomicNames)>());
  for (const char *prefix : {"global_", "flat_"}) {
    const std::string p = prefix;
    r.add(p + "load_ubyte", globalLoad<Width::U8, 1, 0>);
    r.add(p + "load_sbyte", globalLoad<Width::I8, 1, 0>);
    r.add(p + "load_ushort", globalLoad<Width::U16, 1, 0>);
    r.add(p + "load_sshort", globalLoad<Width::I16, 1, 0>);
    r.add(p + "load_dword", globalLoad<Width::D32, 1, 0>);
    r.add(p + "load_dwordx2", globalLoad<Width::D32, 2, 0>);
    r.add(p + "load_dwordx3", globalLoad<Width::D32, 3, 0>);
    r.add(p + "load_dwordx4", globalLoad<Width::D32, 4, 0>);
    r.add(p + "load_short_d16", globalLoad<Width::U16, 1, 1>);
    r.add(p + "load_short_d16_hi", globalLoad<Width::U16, 1, 2>);
    r.add(p + "load_ubyte_d16", globalLoad<Width::U8, 1, 1>);
    r.add(p + "load_ubyte_d16_hi", globalLoad<Width::U8, 1, 2>);
    r.add(p + "load_sbyte_d16", globalLoad<Width::I8, 1, 1>);
    r.add(p + "load_sbyte_d16_hi", globalLoad<Width::I8, 1, 2>);
    r.add(p + "store_byte", globalStore<1, false>);
    r.add(p + "store_byte_d16_hi", globalStore<1, true>);
    r.add(p + "store_short", globalStore<2, false>);
    r.add(p + "store_short_d16_hi", globalStore<2, true>);
    r.add(p + "store_dword", globalStore<4, false>);
    r.add(p + "store_dwordx2", globalStore<8, false>);
    r.add(p + "store_dwordx3", globalStore<12, false>);
    r.add(p + "store_dwordx4", globalStore<16, false>);
  }
}

} // namespace mxf::emu
