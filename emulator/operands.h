//===- operands.h - Reading and writing operands of a wave -------*- C++ -*-===//
//
// Shared by all semantics files: source operands as 64 per-lane values
// (scalars and constants broadcast), scalar reads and writes, vector writes
// under a lane mask, and the SDWA/VOP3 source and destination modifiers.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_EMULATOR_OPERANDS_H
#define MXFORGE_EMULATOR_OPERANDS_H

#include "numerics/formats.h"
#include "emulator/wave.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace mxf::emu {

using Lanes32 = std::array<uint32_t, kWaveSize>;
using Lanes64 = std::array<uint64_t, kWaveSize>;

/// A scalar value of dword `dword` of a scalar or constant operand.
uint32_t readScalar32(const Wave &wave, const Operand &op, unsigned dword = 0);
/// A 64-bit scalar or constant (two consecutive scalar registers).
uint64_t readScalar64(const Wave &wave, const Operand &op);
void writeScalar32(Wave &wave, const Operand &op, uint32_t value, unsigned dword = 0);
void writeScalar64(Wave &wave, const Operand &op, uint64_t value);

/// Per-lane dword `dword` of any source (vector, scalar or constant).
void readLanes32(const Wave &wave, const Operand &op, Lanes32 &out, unsigned dword = 0);
/// Per-lane 64-bit values (a register pair, or a 64-bit scalar/constant).
void readLanes64(const Wave &wave, const Operand &op, Lanes64 &out);

/// Writes the lanes set in `mask` of dword `dword` of a vector operand.
void writeLanes32(Wave &wave, const Operand &op, const Lanes32 &values, uint64_t mask,
                  unsigned dword = 0);
void writeLanes64(Wave &wave, const Operand &op, const Lanes64 &values, uint64_t mask);

/// A lane mask (VCC or an SGPR pair operand).
uint64_t readMask(const Wave &wave, const Operand &op);
void writeMask(Wave &wave, const Operand &op, uint64_t mask);

/// SDWA source select (ISA: BYTE_0..3 = 0..3, WORD_0/1 = 4/5, DWORD = 6).
uint32_t sdwaSelect(uint32_t value, uint8_t sel, bool signExtend);
/// SDWA destination: place `result` in the selected part of `old`.
uint32_t sdwaDest(uint32_t old, uint32_t result, uint8_t sel, uint8_t unused);

/// f32 source modifiers (abs, then neg) of source `i`.
inline uint32_t f32Mods(uint32_t bits, const Modifiers &mods, unsigned i) {
  if ((mods.abs >> i) & 1)
    bits &= 0x7fffffffu;
  if ((mods.neg >> i) & 1)
    bits ^= 0x80000000u;
  return bits;
}
inline uint64_t f64Mods(uint64_t bits, const Modifiers &mods, unsigned i) {
  if ((mods.abs >> i) & 1)
    bits &= ~(1ull << 63);
  if ((mods.neg >> i) & 1)
    bits ^= 1ull << 63;
  return bits;
}

// f32 bit casts are numerics' (one definition for reference and emulator).
inline float asFloat(uint32_t bits) { return f32FromBits(bits); }
inline uint32_t asBits(float f) { return f32Bits(f); }
inline double asDouble(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}
inline uint64_t asBits64(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

/// VOP3 output modifiers of an f32 result: omod, then clamp to [0, 1]
/// (NaN clamps to 0: DX10_CLAMP, the LLVM default).
uint32_t f32OutputMods(uint32_t bits, const Modifiers &mods);

/// "0x1234" for messages.
std::string hex(uint64_t value);

} // namespace mxf::emu

#endif // MXFORGE_EMULATOR_OPERANDS_H
