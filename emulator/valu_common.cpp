//===- valu_common.cpp - Shared machinery of the vector ALU files ---------===//

#include "emulator/valu_common.h"

namespace mxf::emu {

namespace {

/// The lane DPP reads for `lane`, or -1 when out of range (ISA §12.x DPP).
int dppSourceLane(uint16_t ctrl, int lane) {
  const int row = lane & ~15, inRow = lane & 15;
  if (ctrl <= 0xff)
    return (lane & ~3) | ((ctrl >> (2 * (lane & 3))) & 3); // quad_perm
  if (ctrl >= 0x101 && ctrl <= 0x10f) {                   // row_shl
    const int n = ctrl & 0xf;
    return inRow + n < 16 ? lane + n : -1;
  }
  if (ctrl >= 0x111 && ctrl <= 0x11f) { // row_shr
    const int n = ctrl & 0xf;
    return inRow - n >= 0 ? lane - n : -1;
  }
  if (ctrl >= 0x121 && ctrl <= 0x12f) // row_ror
    return row + ((inRow - (ctrl & 0xf)) & 15);
  switch (ctrl) {
  case 0x130: return lane + 1 < 64 ? lane + 1 : -1; // wave_shl:1
  case 0x134: return (lane + 1) & 63;               // wave_rol:1
  case 0x138: return lane - 1;                      // wave_shr:1 (-1 at lane 0)
  case 0x13c: return (lane - 1) & 63;               // wave_ror:1
  case 0x140: return row + 15 - inRow;              // row_mirror
  case 0x141: return (lane & ~7) + 7 - (lane & 7);  // row_half_mirror
  case 0x142: return row >= 16 ? row - 1 : -1;      // row_bcast:15
  case 0x143: return lane >= 32 ? 31 : -1;          // row_bcast:31
  default: return -2;                               // reserved
  }
}

} // namespace

void valuSource(const Wave &wave, const Instruction &inst, unsigned i, ValueType type,
                Lanes32 &out) {
  readLanes32(wave, inst.src(i), out);
  if (inst.encoding == Encoding::Sdwa) {
    const uint8_t sel = i == 0 ? inst.sdwa.src0Sel : inst.sdwa.src1Sel;
    const bool sext = i == 0 ? inst.sdwa.src0Sext : inst.sdwa.src1Sext;
    if (sel != 6 || sext)
      for (uint32_t &v : out)
        v = sdwaSelect(v, sel, sext);
  } else if (inst.encoding == Encoding::Dpp && i == 0) {
    const Lanes32 in = out;
    const uint64_t exec = wave.exec();
    for (int l = 0; l < int(kWaveSize); ++l) {
      const int from = dppSourceLane(inst.dpp.ctrl, l);
      // An out-of-range or disabled source lane reads 0 under bound_ctrl;
      // otherwise valuWriteMask keeps the lane from being written.
      out[l] = from >= 0 && laneActive(exec, unsigned(from)) ? in[from] : 0;
    }
  }
  if (type == ValueType::F32 && i < 3 && (((inst.mods.abs | inst.mods.neg) >> i) & 1))
    for (uint32_t &v : out)
      v = f32Mods(v, inst.mods, i);
}

uint64_t valuWriteMask(const Wave &wave, const Instruction &inst) {
  uint64_t mask = wave.exec();
  if (inst.encoding != Encoding::Dpp)
    return mask;
  const uint64_t exec = mask;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const bool rowOn = (inst.dpp.rowMask >> (l / 16)) & 1;
    const bool bankOn = (inst.dpp.bankMask >> ((l / 4) & 3)) & 1;
    const int from = dppSourceLane(inst.dpp.ctrl, int(l));
    const bool sourceOk = from >= 0 && laneActive(exec, unsigned(from));
    if (!rowOn || !bankOn || (!sourceOk && !inst.dpp.boundCtrl))
      mask &= ~(1ull << l);
  }
  return mask;
}

void valuWrite(Wave &wave, const Instruction &inst, Lanes32 &result, ValueType type,
               uint64_t mask) {
  if (type == ValueType::F32 && (inst.mods.omod || inst.mods.clamp))
    for (unsigned l = 0; l < kWaveSize; ++l)
      result[l] = f32OutputMods(result[l], inst.mods);
  const Operand &dst = inst.dst();
  if (inst.encoding == Encoding::Sdwa && inst.sdwa.dstSel != 6) {
    const uint32_t *old = wave.lanes(dst);
    for (unsigned l = 0; l < kWaveSize; ++l)
      result[l] = sdwaDest(old[l], result[l], inst.sdwa.dstSel, inst.sdwa.dstUnused);
  }
  writeLanes32(wave, dst, result, mask);
}

Status rejectClamp(const Instruction &inst) {
  if (inst.mods.clamp)
    return Status::failure("clamp is not modelled for this instruction");
  return Status::success();
}

} // namespace mxf::emu
