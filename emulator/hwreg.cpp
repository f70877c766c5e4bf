//===- hwreg.cpp - s_setreg / s_getreg of the MODE register ---------------===//
//
// Triton brackets its fp8 and f16 downcasts with
//   s_setreg_imm32_b32 hwreg(HW_REG_MODE, 23, 1), 1   ... s_setreg ..., 0
// (MODE.FP16_OVFL: an overflowing f16 result clamps to the largest finite
// value). The emulator models one MODE, the one the kernel descriptor sets
// (round to nearest even, f32 denormals kept, DX10_CLAMP and IEEE as
// given), plus FP16_OVFL: a write that changes any other MODE bit, or any
// other hardware register, stops the run rather than run under a mode the
// semantics files do not follow. s_getreg of MODE reads it back.
//
// simm16 = hwreg id [5:0], offset [10:6], size - 1 [15:11] (ISA, S_SETREG).
//
//===----------------------------------------------------------------------===//

#include "emulator/opcode_table.h"
#include "emulator/operands.h"
#include "emulator/program.h"

namespace mxf::emu {

namespace {

using S = Status;

constexpr unsigned kHwRegMode = 1;
constexpr unsigned kFp16OverflowBit = 23;

/// MODE as the descriptor sets it, with the wave's FP16_OVFL.
uint32_t currentMode(const Wave &w) {
  const codeobj::KernelDescriptor &kd = w.program->descriptor;
  const uint32_t rsrc1 = kd.computePgmRsrc1;
  uint32_t mode = (kd.floatRoundMode32 & 3) | ((kd.floatRoundMode16_64 & 3) << 2) |
                  ((kd.floatDenormMode32 & 3) << 4) | ((kd.floatDenormMode16_64 & 3) << 6);
  mode |= ((rsrc1 >> 21) & 1) << 8; // DX10_CLAMP
  mode |= ((rsrc1 >> 23) & 1) << 9; // IEEE_MODE
  mode |= uint32_t(w.fp16Overflow) << kFp16OverflowBit;
  return mode;
}

struct HwRegField {
  unsigned id, offset, size;
  uint32_t mask() const { return (size >= 32 ? ~0u : ((1u << size) - 1)) << offset; }
};

HwRegField decodeHwReg(uint32_t simm16) {
  return {simm16 & 0x3f, (simm16 >> 6) & 0x1f, ((simm16 >> 11) & 0x1f) + 1};
}

S setMode(Wave &w, const Instruction &in, const HwRegField &field, uint32_t value) {
  if (field.id != kHwRegMode)
    return S::failure("'" + in.text + "' writes hardware register " + std::to_string(field.id) +
                      ", which is not modelled (only MODE is)");
  const uint32_t before = currentMode(w);
  const uint32_t after = (before & ~field.mask()) | ((value << field.offset) & field.mask());
  const uint32_t changed = (before ^ after) & ~(1u << kFp16OverflowBit);
  if (changed)
    return S::failure("'" + in.text + "' changes MODE bits " + hex(changed) +
                      " (rounding, denormals, DX10_CLAMP or IEEE); only FP16_OVFL is modelled");
  w.fp16Overflow = (after >> kFp16OverflowBit) & 1;
  return S::success();
}

/// s_setreg_imm32_b32 hwreg, imm32: the literal follows the SOPK word.
S sSetregImm32(Wave &w, const Instruction &in) {
  return setMode(w, in, decodeHwReg(in.words[0] & 0xffff), in.words[1]);
}

/// s_setreg_b32 hwreg, sdst: the value comes from the SGPR in SDST's field.
S sSetreg(Wave &w, const Instruction &in) {
  const unsigned sgpr = (in.words[0] >> 16) & 0x7f;
  if (sgpr >= sreg::kCount)
    return S::failure("s_setreg source register " + std::to_string(sgpr) + " is not modelled");
  return setMode(w, in, decodeHwReg(in.words[0] & 0xffff), w.s[sgpr]);
}

/// s_getreg_b32 sdst, hwreg: MODE's field, zero-extended.
S sGetreg(Wave &w, const Instruction &in) {
  const HwRegField field = decodeHwReg(in.words[0] & 0xffff);
  if (field.id != kHwRegMode)
    return S::failure("'" + in.text + "' reads hardware register " + std::to_string(field.id) +
                      ", which is not modelled (only MODE is)");
  writeScalar32(w, in.dst(), (currentMode(w) & field.mask()) >> field.offset);
  return S::success();
}

} // namespace

void registerHwReg(OpRegistry &r) {
  r.add("s_setreg_imm32_b32", sSetregImm32);
  r.add("s_setreg_b32", sSetreg);
  r.add("s_getreg_b32", sGetreg);
}

} // namespace mxf::emu
