//===- valu_packed.cpp - VOP3P packed math (v_pk_*) -----------------------===//
//
// Packed 16-bit ops: the low result half uses, for source i, its high half
// when OP_SEL[i] is set (else its low half); the high result half likewise
// with OP_SEL_HI[i] (ISA §12.12). Packed f32 ops do the same with the two
// dwords of a 64-bit source; NEG (low) and NEG_HI (high) negate f32 inputs.
//
//===----------------------------------------------------------------------===//

#include "emulator/opcode_table.h"
#include "emulator/valu_common.h"

#include <cmath>

namespace mxf::emu {

namespace {

using S = Status;

template <typename Fn> S pk16(Wave &w, const Instruction &in, unsigned numSrcs, Fn fn) {
  if (in.mods.clamp || in.mods.neg || in.mods.negHi)
    return S::failure("clamp/neg on integer packed ops is not modelled");
  Lanes32 s[3], d;
  for (unsigned i = 0; i < numSrcs; ++i)
    readLanes32(w, in.src(i), s[i]);
  const uint64_t mask = w.exec();
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(mask, l))
      continue;
    uint16_t lo[3] = {}, hi[3] = {};
    for (unsigned i = 0; i < numSrcs; ++i) {
      lo[i] = uint16_t((in.mods.opsel >> i) & 1 ? s[i][l] >> 16 : s[i][l]);
      hi[i] = uint16_t((in.mods.opselHi >> i) & 1 ? s[i][l] >> 16 : s[i][l]);
    }
    d[l] = uint32_t(fn(lo[0], lo[1], lo[2])) | (uint32_t(fn(hi[0], hi[1], hi[2])) << 16);
  }
  writeLanes32(w, in.dst(), d, mask);
  return S::success();
}

#define PK16(NAME, N, EXPR)                                                                    \
  S NAME(Wave &w, const Instruction &in) {                                                     \
    return pk16(w, in, N, [](uint16_t a, uint16_t b, uint16_t c) -> uint16_t {                 \
      (void)a; (void)b; (void)c;                                                               \
      return uint16_t(EXPR);                                                                   \
    });                                                                                        \
  }

PK16(vPkLshlrevB16, 2, b << (a & 15))
PK16(vPkLshrrevB16, 2, b >> (a & 15))
PK16(vPkAshrrevI16, 2, int16_t(b) >> (a & 15))
PK16(vPkAddU16, 2, a + b)
PK16(vPkSubU16, 2, a - b)
PK16(vPkMulLoU16, 2, a * b)
// The i16 forms wrap like the u16 ones without clamp (clamp stops the run).
PK16(vPkAddI16, 2, a + b)
PK16(vPkSubI16, 2, a - b)
PK16(vPkMaxU16, 2, a > b ? a : b)
PK16(vPkMinU16, 2, a < b ? a : b)
PK16(vPkMaxI16, 2, int16_t(a) > int16_t(b) ? a : b)
PK16(vPkMinI16, 2, int16_t(a) < int16_t(b) ? a : b)
PK16(vPkMadU16, 3, a * b + c)

/// Packed f32: Op 0 add, 1 mul, 2 fma, 3 mov.
template <int Op> S pkF32(Wave &w, const Instruction &in) {
  if (in.mods.clamp)
    return S::failure("clamp on packed f32 ops is not modelled");
  const unsigned n = Op == 2 ? 3 : 2;
  Lanes64 s[3], d;
  for (unsigned i = 0; i < n; ++i)
    readLanes64(w, in.src(i), s[i]);
  const uint64_t mask = w.exec();
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(mask, l))
      continue;
    uint32_t lo[3] = {}, hi[3] = {};
    for (unsigned i = 0; i < n; ++i) {
      lo[i] = uint32_t((in.mods.opsel >> i) & 1 ? s[i][l] >> 32 : s[i][l]);
      hi[i] = uint32_t((in.mods.opselHi >> i) & 1 ? s[i][l] >> 32 : s[i][l]);
      if (Op != 3) {
        if ((in.mods.neg >> i) & 1)
          lo[i] ^= 0x80000000u;
        if ((in.mods.negHi >> i) & 1)
          hi[i] ^= 0x80000000u;
      }
    }
    auto apply = [](const uint32_t *x) -> uint32_t {
      const float a = asFloat(x[0]), b = asFloat(x[1]);
      switch (Op) {
      case 0: return asBits(a + b);
      case 1: return asBits(a * b);
      case 2: return asBits(std::fma(a, b, asFloat(x[2])));
      default: return x[0];
      }
    };
    if (Op == 3) // v_pk_mov_b32: low from S0, high from S1
      d[l] = uint64_t(lo[0]) | (uint64_t(hi[1]) << 32);
    else
      d[l] = uint64_t(apply(lo)) | (uint64_t(apply(hi)) << 32);
  }
  writeLanes64(w, in.dst(), d, mask);
  return S::success();
}

/// v_pk_mov_b32: D.lo = S0[op_sel[0]], D.hi = S1[op_sel[1]].
S vPkMovB32(Wave &w, const Instruction &in) {
  Instruction copy = in;
  copy.mods.opselHi = uint8_t((in.mods.opsel & 2) ? 2 : 0);
  copy.mods.opsel = uint8_t(in.mods.opsel & 1);
  return pkF32<3>(w, copy);
}

} // namespace

void registerValuPacked(OpRegistry &r) {
  r.add("v_pk_lshlrev_b16", vPkLshlrevB16);
  r.add("v_pk_lshrrev_b16", vPkLshrrevB16);
  r.add("v_pk_ashrrev_i16", vPkAshrrevI16);
  r.add("v_pk_add_u16", vPkAddU16);
  r.add("v_pk_sub_u16", vPkSubU16);
  r.add("v_pk_add_i16", vPkAddI16);
  r.add("v_pk_sub_i16", vPkSubI16);
  r.add("v_pk_mul_lo_u16", vPkMulLoU16);
  r.add("v_pk_max_u16", vPkMaxU16);
  r.add("v_pk_min_u16", vPkMinU16);
  r.add("v_pk_max_i16", vPkMaxI16);
  r.add("v_pk_min_i16", vPkMinI16);
  r.add("v_pk_mad_u16", vPkMadU16);
  r.add("v_pk_add_f32", pkF32<0>);
  r.add("v_pk_mul_f32", pkF32<1>);
  r.add("v_pk_fma_f32", pkF32<2>);
  r.add("v_pk_mov_b32", vPkMovB32);
}

} // namespace mxf::emu
