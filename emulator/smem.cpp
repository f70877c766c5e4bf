//===- smem.cpp - Scalar memory: s_load_dword* ----------------------------===//
//
// s_load_dword{,x2,x4,x8,x16} sdst, sbase, offset: reads N dwords at
// SGPR-pair sbase + (SGPR offset) + (immediate offset), the low two address
// bits ignored (ISA §9). The access is bounds-checked like every global one.
//
//===----------------------------------------------------------------------===//

#include "emulator/opcode_table.h"
#include "emulator/operands.h"

namespace mxf::emu {

namespace {

using S = Status;

S sLoad(Wave &w, const Instruction &in) {
  const Operand &dst = in.dst();
  uint64_t address = readScalar64(w, in.src(0));
  // Variants: _IMM (offset immediate), _SGPR (offset register), _SGPR_IMM.
  if (in.numSrcs > 1)
    address += readScalar32(w, in.src(1));
  if (in.numImms > 1)
    address += uint64_t(int64_t(in.imms[0]));
  address &= ~3ull;
  const uint64_t bytes = 4ull * dst.count;
  const uint8_t *p = w.memory->translate(address, bytes);
  if (!p)
    return S::failure(w.memory->describeMiss(address, bytes));
  for (unsigned i = 0; i < dst.count; ++i) {
    uint32_t value;
    std::memcpy(&value, p + 4 * i, 4);
    writeScalar32(w, dst, value, i);
  }
  w.stats.globalBytesRead += bytes;
  return S::success();
}

S sMemtime(Wave &w, const Instruction &in) {
  // A deterministic clock: instructions this wave has executed so far.
  uint64_t n = 0;
  for (uint64_t c : w.stats.byFamily)
    n += c;
  writeScalar64(w, in.dst(), n);
  return S::success();
}

} // namespace

void registerSmem(OpRegistry &r) {
  for (const char *name :
       {"s_load_dword", "s_load_dwordx2", "s_load_dwordx4", "s_load_dwordx8", "s_load_dwordx16"})
    r.add(name, sLoad);
  r.add("s_memtime", sMemtime);
  r.add("s_memrealtime", sMemtime);
}

} // namespace mxf::emu
