//===- operands.cpp - Reading and writing operands of a wave --------------===//

#include "emulator/operands.h"

#include <cmath>
#include <cstdio>

namespace mxf::emu {

uint32_t readScalar32(const Wave &wave, const Operand &op, unsigned dword) {
  switch (op.kind) {
  case Operand::Kind::Scalar:
    return wave.s[(op.index + dword) % sreg::kCount];
  case Operand::Kind::Imm:
    return dword == 0 ? uint32_t(op.imm) : uint32_t(uint64_t(op.imm) >> 32);
  case Operand::Kind::Scc:
    return wave.scc ? 1 : 0;
  case Operand::Kind::Vccz:
    return wave.vcc() == 0 ? 1 : 0;
  case Operand::Kind::Execz:
    return wave.exec() == 0 ? 1 : 0;
  default:
    return 0; // vector operands never reach scalar reads (decoder checks)
  }
}

uint64_t readScalar64(const Wave &wave, const Operand &op) {
  if (op.kind == Operand::Kind::Imm)
    return uint64_t(op.imm);
  return readScalar32(wave, op, 0) | (uint64_t(readScalar32(wave, op, 1)) << 32);
}

void writeScalar32(Wave &wave, const Operand &op, uint32_t value, unsigned dword) {
  if (op.kind == Operand::Kind::Scalar)
    wave.s[(op.index + dword) % sreg::kCount] = value;
  else if (op.kind == Operand::Kind::Scc)
    wave.scc = value != 0;
}

void writeScalar64(Wave &wave, const Operand &op, uint64_t value) {
  writeScalar32(wave, op, uint32_t(value), 0);
  writeScalar32(wave, op, uint32_t(value >> 32), 1);
}

void readLanes32(const Wave &wave, const Operand &op, Lanes32 &out, unsigned dword) {
  if (op.isVector()) {
    std::memcpy(out.data(), wave.lanes(op, dword), sizeof(uint32_t) * kWaveSize);
    return;
  }
  out.fill(readScalar32(wave, op, dword));
}

void readLanes64(const Wave &wave, const Operand &op, Lanes64 &out) {
  if (op.isVector()) {
    const uint32_t *lo = wave.lanes(op, 0);
    const uint32_t *hi = wave.lanes(op, 1);
    for (unsigned l = 0; l < kWaveSize; ++l)
      out[l] = lo[l] | (uint64_t(hi[l]) << 32);
    return;
  }
  out.fill(readScalar64(wave, op));
}

void writeLanes32(Wave &wave, const Operand &op, const Lanes32 &values, uint64_t mask,
                  unsigned dword) {
  uint32_t *dst = wave.lanes(op, dword);
  if (mask == kAllLanes) {
    std::memcpy(dst, values.data(), sizeof(uint32_t) * kWaveSize);
    return;
  }
  for (unsigned l = 0; l < kWaveSize; ++l)
    if (laneActive(mask, l))
      dst[l] = values[l];
}

void writeLanes64(Wave &wave, const Operand &op, const Lanes64 &values, uint64_t mask) {
  uint32_t *lo = wave.lanes(op, 0);
  uint32_t *hi = wave.lanes(op, 1);
  for (unsigned l = 0; l < kWaveSize; ++l)
    if (laneActive(mask, l)) {
      lo[l] = uint32_t(values[l]);
      hi[l] = uint32_t(values[l] >> 32);
    }
}

uint64_t readMask(const Wave &wave, const Operand &op) { return readScalar64(wave, op); }
void writeMask(Wave &wave, const Operand &op, uint64_t mask) { writeScalar64(wave, op, mask); }

uint32_t sdwaSelect(uint32_t value, uint8_t sel, bool signExtend) {
  switch (sel) {
  case 0: case 1: case 2: case 3: {
    uint32_t byte = (value >> (8 * sel)) & 0xff;
    return signExtend ? uint32_t(int32_t(int8_t(byte))) : byte;
  }
  case 4: case 5: {
    uint32_t word = (value >> (16 * (sel - 4))) & 0xffff;
    return signExtend ? uint32_t(int32_t(int16_t(word))) : word;
  }
  default:
    return value;
  }
}

uint32_t sdwaDest(uint32_t old, uint32_t result, uint8_t sel, uint8_t unused) {
  unsigned shift, width;
  switch (sel) {
  case 0: case 1: case 2: case 3: shift = 8 * sel; width = 8; break;
  case 4: case 5: shift = 16 * (sel - 4); width = 16; break;
  default: return result;
  }
  const uint32_t fieldMask = ((1u << width) - 1) << shift;
  const uint32_t field = (result << shift) & fieldMask;
  switch (unused) {
  case 2: // UNUSED_PRESERVE
    return (old & ~fieldMask) | field;
  case 1: { // UNUSED_SEXT: sign-extend the field upwards, zeros below
    uint32_t out = field;
    if ((field >> (shift + width - 1)) & 1)
      out |= ~((1u << (shift + width)) - 1) & (shift + width < 32 ? ~0u : 0u);
    return out;
  }
  default: // UNUSED_PAD
    return field;
  }
}

uint32_t f32OutputMods(uint32_t bits, const Modifiers &mods) {
  if (mods.omod == 0 && !mods.clamp)
    return bits;
  float f = asFloat(bits);
  switch (mods.omod) {
  case 1: f *= 2.0f; break;
  case 2: f *= 4.0f; break;
  case 3: f *= 0.5f; break;
  default: break;
  }
  if (mods.clamp) {
    if (std::isnan(f))
      f = 0.0f;
    else
      f = std::fmin(std::fmax(f, 0.0f), 1.0f);
  }
  return asBits(f);
}

std::string hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

} // namespace mxf::emu
