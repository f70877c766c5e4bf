//===- salu.cpp - Scalar ALU: SOP1, SOP2, SOPK, SOPC ----------------------===//
//
// Semantics per the CDNA4 ISA (§12.1-12.4 pseudo-code). SCC rules: logical
// and shift ops set SCC = (result != 0); unsigned add/sub set the carry or
// borrow; signed add/sub set signed overflow; compares set the condition.
//
//===----------------------------------------------------------------------===//

#include "emulator/opcode_table.h"
#include "emulator/operands.h"


namespace mxf::emu {

namespace {

using S = Status;
inline uint32_t a32(const Wave &w, const Instruction &in) { return readScalar32(w, in.src(0)); }
inline uint32_t b32(const Wave &w, const Instruction &in) { return readScalar32(w, in.src(1)); }
inline uint64_t a64(const Wave &w, const Instruction &in) { return readScalar64(w, in.src(0)); }
inline uint64_t b64(const Wave &w, const Instruction &in) { return readScalar64(w, in.src(1)); }
inline int32_t simm16(const Instruction &in) { return int16_t(in.words[0] & 0xffff); }

// Binary ops with SCC = (result != 0).
#define LOGIC32(NAME, EXPR)                                                                    \
  S NAME(Wave &w, const Instruction &in) {                                                     \
    const uint32_t a = a32(w, in), b = b32(w, in);                                             \
    const uint32_t d = (EXPR);                                                                 \
    writeScalar32(w, in.dst(), d);                                                             \
    w.scc = d != 0;                                                                            \
    return S::success();                                                                       \
  }
#define LOGIC64(NAME, EXPR)                                                                    \
  S NAME(Wave &w, const Instruction &in) {                                                     \
    const uint64_t a = a64(w, in), b = b64(w, in);                                             \
    const uint64_t d = (EXPR);                                                                 \
    writeScalar64(w, in.dst(), d);                                                             \
    w.scc = d != 0;                                                                            \
    return S::success();                                                                       \
  }
#define SHIFT64(NAME, EXPR)                                                                    \
  S NAME(Wave &w, const Instruction &in) {                                                     \
    const uint64_t a = a64(w, in);                                                             \
    const uint32_t b = b32(w, in);                                                             \
    const uint64_t d = (EXPR);                                                                 \
    writeScalar64(w, in.dst(), d);                                                             \
    w.scc = d != 0;                                                                            \
    return S::success();                                                                       \
  }

LOGIC32(sAndB32, a & b)
LOGIC32(sOrB32, a | b)
LOGIC32(sXorB32, a ^ b)
LOGIC32(sAndn2B32, a & ~b)
LOGIC32(sOrn2B32, a | ~b)
LOGIC32(sNandB32, ~(a & b))
LOGIC32(sNorB32, ~(a | b))
LOGIC32(sXnorB32, ~(a ^ b))
LOGIC32(sLshlB32, a << (b & 31))
LOGIC32(sLshrB32, a >> (b & 31))
LOGIC32(sAshrI32, uint32_t(int32_t(a) >> (b & 31)))
LOGIC32(sBfeU32, ((b >> 16) & 0x7f) == 0 ? 0u
                 : (a >> (b & 31)) & (((b >> 16) & 0x7f) >= 32 ? ~0u : ((1u << ((b >> 16) & 0x7f)) - 1)))
LOGIC64(sAndB64, a & b)
LOGIC64(sOrB64, a | b)
LOGIC64(sXorB64, a ^ b)
LOGIC64(sAndn2B64, a & ~b)
LOGIC64(sOrn2B64, a | ~b)
LOGIC64(sNandB64, ~(a & b))
LOGIC64(sNorB64, ~(a | b))
LOGIC64(sXnorB64, ~(a ^ b))
SHIFT64(sLshlB64, a << (b & 63))
SHIFT64(sLshrB64, a >> (b & 63))
SHIFT64(sAshrI64, uint64_t(int64_t(a) >> (b & 63)))

S sBfeI32(Wave &w, const Instruction &in) {
  const uint32_t a = a32(w, in), b = b32(w, in);
  const uint32_t offset = b & 31, width = (b >> 16) & 0x7f;
  int32_t d = 0;
  if (width != 0) {
    const uint32_t field = width >= 32 ? a >> offset : (a >> offset) & ((1u << width) - 1);
    d = width >= 32 ? int32_t(field) : int32_t(field << (32 - width)) >> (32 - width);
  }
  writeScalar32(w, in.dst(), uint32_t(d));
  w.scc = d != 0;
  return S::success();
}

S sBfmB32(Wave &w, const Instruction &in) {
  const uint32_t a = a32(w, in), b = b32(w, in);
  writeScalar32(w, in.dst(), (((a & 31) == 0 ? 0u : (1u << (a & 31)) - 1)) << (b & 31));
  return S::success();
}

S sAddU32(Wave &w, const Instruction &in) {
  const uint64_t d = uint64_t(a32(w, in)) + b32(w, in);
  writeScalar32(w, in.dst(), uint32_t(d));
  w.scc = (d >> 32) != 0;
  return S::success();
}
S sAddcU32(Wave &w, const Instruction &in) {
  const uint64_t d = uint64_t(a32(w, in)) + b32(w, in) + (w.scc ? 1 : 0);
  writeScalar32(w, in.dst(), uint32_t(d));
  w.scc = (d >> 32) != 0;
  return S::success();
}
S sSubU32(Wave &w, const Instruction &in) {
  const uint32_t a = a32(w, in), b = b32(w, in);
  writeScalar32(w, in.dst(), a - b);
  w.scc = b > a;
  return S::success();
}
S sSubbU32(Wave &w, const Instruction &in) {
  const uint32_t a = a32(w, in), b = b32(w, in), c = w.scc ? 1 : 0;
  writeScalar32(w, in.dst(), a - b - c);
  w.scc = uint64_t(b) + c > a;
  return S::success();
}
S sAddI32(Wave &w, const Instruction &in) {
  const int32_t a = int32_t(a32(w, in)), b = int32_t(b32(w, in));
  const int32_t d = int32_t(uint32_t(a) + uint32_t(b));
  writeScalar32(w, in.dst(), uint32_t(d));
  w.scc = ((a >= 0) == (b >= 0)) && ((d >= 0) != (a >= 0));
  return S::success();
}
S sSubI32(Wave &w, const Instruction &in) {
  const int32_t a = int32_t(a32(w, in)), b = int32_t(b32(w, in));
  const int32_t d = int32_t(uint32_t(a) - uint32_t(b));
  writeScalar32(w, in.dst(), uint32_t(d));
  w.scc = ((a >= 0) != (b >= 0)) && ((d >= 0) != (a >= 0));
  return S::success();
}
S sMulI32(Wave &w, const Instruction &in) {
  writeScalar32(w, in.dst(), a32(w, in) * b32(w, in));
  return S::success();
}
S sMulHiU32(Wave &w, const Instruction &in) {
  writeScalar32(w, in.dst(), uint32_t((uint64_t(a32(w, in)) * b32(w, in)) >> 32));
  return S::success();
}
S sMulHiI32(Wave &w, const Instruction &in) {
  const int64_t p = int64_t(int32_t(a32(w, in))) * int32_t(b32(w, in));
  writeScalar32(w, in.dst(), uint32_t(uint64_t(p) >> 32));
  return S::success();
}
template <int Kind> S sMinMax(Wave &w, const Instruction &in) {
  const uint32_t a = a32(w, in), b = b32(w, in);
  bool pickA;
  switch (Kind) {
  case 0: pickA = int32_t(a) < int32_t(b); break; // s_min_i32
  case 1: pickA = a < b; break;                   // s_min_u32
  case 2: pickA = int32_t(a) > int32_t(b); break; // s_max_i32
  default: pickA = a > b; break;                  // s_max_u32
  }
  writeScalar32(w, in.dst(), pickA ? a : b);
  w.scc = pickA;
  return S::success();
}
S sCselectB32(Wave &w, const Instruction &in) {
  writeScalar32(w, in.dst(), w.scc ? a32(w, in) : b32(w, in));
  return S::success();
}
S sCselectB64(Wave &w, const Instruction &in) {
  writeScalar64(w, in.dst(), w.scc ? a64(w, in) : b64(w, in));
  return S::success();
}
template <unsigned N> S sLshlAddU32(Wave &w, const Instruction &in) {
  const uint64_t d = (uint64_t(a32(w, in)) << N) + b32(w, in);
  writeScalar32(w, in.dst(), uint32_t(d));
  w.scc = (d >> 32) != 0;
  return S::success();
}
S sPackLL(Wave &w, const Instruction &in) {
  writeScalar32(w, in.dst(), (a32(w, in) & 0xffff) | (b32(w, in) << 16));
  return S::success();
}
S sPackLH(Wave &w, const Instruction &in) {
  writeScalar32(w, in.dst(), (a32(w, in) & 0xffff) | (b32(w, in) & 0xffff0000u));
  return S::success();
}
S sPackHH(Wave &w, const Instruction &in) {
  writeScalar32(w, in.dst(), (a32(w, in) >> 16) | (b32(w, in) & 0xffff0000u));
  return S::success();
}
S sAbsdiffI32(Wave &w, const Instruction &in) {
  const int64_t d = int64_t(int32_t(a32(w, in))) - int32_t(b32(w, in));
  const uint32_t r = uint32_t(d < 0 ? -d : d);
  writeScalar32(w, in.dst(), r);
  w.scc = r != 0;
  return S::success();
}

// SOP1.
S sMovB32(Wave &w, const Instruction &in) {
  writeScalar32(w, in.dst(), a32(w, in));
  return S::success();
}
S sMovB64(Wave &w, const Instruction &in) {
  writeScalar64(w, in.dst(), a64(w, in));
  return S::success();
}
S sCmovB32(Wave &w, const Instruction &in) {
  if (w.scc)
    writeScalar32(w, in.dst(), a32(w, in));
  return S::success();
}
S sCmovB64(Wave &w, const Instruction &in) {
  if (w.scc)
    writeScalar64(w, in.dst(), a64(w, in));
  return S::success();
}
S sNotB32(Wave &w, const Instruction &in) {
  const uint32_t d = ~a32(w, in);
  writeScalar32(w, in.dst(), d);
  w.scc = d != 0;
  return S::success();
}
S sNotB64(Wave &w, const Instruction &in) {
  const uint64_t d = ~a64(w, in);
  writeScalar64(w, in.dst(), d);
  w.scc = d != 0;
  return S::success();
}
S sBrevB32(Wave &w, const Instruction &in) {
  uint32_t x = a32(w, in), r = 0;
  for (int i = 0; i < 32; ++i)
    r |= ((x >> i) & 1) << (31 - i);
  writeScalar32(w, in.dst(), r);
  return S::success();
}
// s_bitset0/1_b32 sdst, ssrc0: D[S0[4:0]] = 0 / 1, the other bits of sdst
// kept (sdst is read as well as written).
S sBitset0B32(Wave &w, const Instruction &in) {
  const uint32_t d = readScalar32(w, in.dst()) & ~(1u << (a32(w, in) & 31));
  writeScalar32(w, in.dst(), d);
  return S::success();
}
S sBitset1B32(Wave &w, const Instruction &in) {
  const uint32_t d = readScalar32(w, in.dst()) | (1u << (a32(w, in) & 31));
  writeScalar32(w, in.dst(), d);
  return S::success();
}
S sBcnt1B32(Wave &w, const Instruction &in) {
  const uint32_t d = uint32_t(__builtin_popcount(a32(w, in)));
  writeScalar32(w, in.dst(), d);
  w.scc = d != 0;
  return S::success();
}
S sBcnt1B64(Wave &w, const Instruction &in) {
  const uint32_t d = uint32_t(__builtin_popcountll(a64(w, in)));
  writeScalar32(w, in.dst(), d);
  w.scc = d != 0;
  return S::success();
}
S sBcnt0B32(Wave &w, const Instruction &in) {
  const uint32_t d = 32 - uint32_t(__builtin_popcount(a32(w, in)));
  writeScalar32(w, in.dst(), d);
  w.scc = d != 0;
  return S::success();
}
S sFf1B32(Wave &w, const Instruction &in) {
  const uint32_t x = a32(w, in);
  writeScalar32(w, in.dst(), x == 0 ? ~0u : uint32_t(__builtin_ctz(x)));
  return S::success();
}
S sFf1B64(Wave &w, const Instruction &in) {
  const uint64_t x = a64(w, in);
  writeScalar32(w, in.dst(), x == 0 ? ~0u : uint32_t(__builtin_ctzll(x)));
  return S::success();
}
S sFlbitB32(Wave &w, const Instruction &in) {
  const uint32_t x = a32(w, in);
  writeScalar32(w, in.dst(), x == 0 ? ~0u : uint32_t(__builtin_clz(x)));
  return S::success();
}
S sSextI8(Wave &w, const Instruction &in) {
  writeScalar32(w, in.dst(), uint32_t(int32_t(int8_t(a32(w, in)))));
  return S::success();
}
S sSextI16(Wave &w, const Instruction &in) {
  writeScalar32(w, in.dst(), uint32_t(int32_t(int16_t(a32(w, in)))));
  return S::success();
}
S sAbsI32(Wave &w, const Instruction &in) {
  const int32_t x = int32_t(a32(w, in));
  const uint32_t d = x < 0 ? 0u - uint32_t(x) : uint32_t(x);
  writeScalar32(w, in.dst(), d);
  w.scc = d != 0;
  return S::success();
}
// s_*_saveexec_b64: D = EXEC; EXEC = op(S0, EXEC); SCC = EXEC != 0.
template <int Op> S sSaveexec(Wave &w, const Instruction &in) {
  const uint64_t s0 = a64(w, in), exec = w.exec();
  uint64_t e;
  switch (Op) {
  case 0: e = s0 & exec; break;  // and
  case 1: e = s0 | exec; break;  // or
  case 2: e = s0 ^ exec; break;  // xor
  case 3: e = s0 & ~exec; break; // andn2
  case 4: e = s0 | ~exec; break; // orn2
  case 5: e = ~(s0 & exec); break; // nand
  case 6: e = ~(s0 | exec); break; // nor
  default: e = ~(s0 ^ exec); break; // xnor
  }
  writeScalar64(w, in.dst(), exec);
  w.setExec(e);
  w.scc = e != 0;
  return S::success();
}
S sGetpcB64(Wave &w, const Instruction &in) {
  writeScalar64(w, in.dst(), in.address + in.size);
  return S::success();
}

// SOPC.
template <int Op> S sCmp32(Wave &w, const Instruction &in) {
  const uint32_t a = a32(w, in), b = b32(w, in);
  const int32_t sa = int32_t(a), sb = int32_t(b);
  switch (Op) {
  case 0: w.scc = a == b; break;
  case 1: w.scc = a != b; break;
  case 2: w.scc = sa > sb; break;
  case 3: w.scc = sa >= sb; break;
  case 4: w.scc = sa < sb; break;
  case 5: w.scc = sa <= sb; break;
  case 6: w.scc = a > b; break;
  case 7: w.scc = a >= b; break;
  case 8: w.scc = a < b; break;
  default: w.scc = a <= b; break;
  }
  return S::success();
}
S sCmpEqU64(Wave &w, const Instruction &in) {
  w.scc = a64(w, in) == b64(w, in);
  return S::success();
}
S sCmpLgU64(Wave &w, const Instruction &in) {
  w.scc = a64(w, in) != b64(w, in);
  return S::success();
}
S sBitcmp0B32(Wave &w, const Instruction &in) {
  w.scc = ((a32(w, in) >> (b32(w, in) & 31)) & 1) == 0;
  return S::success();
}
S sBitcmp1B32(Wave &w, const Instruction &in) {
  w.scc = ((a32(w, in) >> (b32(w, in) & 31)) & 1) == 1;
  return S::success();
}

// SOPK: the 16-bit immediate is in the encoding.
S sMovkI32(Wave &w, const Instruction &in) {
  writeScalar32(w, in.dst(), uint32_t(simm16(in)));
  return S::success();
}
S sCmovkI32(Wave &w, const Instruction &in) {
  if (w.scc)
    writeScalar32(w, in.dst(), uint32_t(simm16(in)));
  return S::success();
}
S sAddkI32(Wave &w, const Instruction &in) {
  const int32_t a = int32_t(readScalar32(w, in.dst())), b = simm16(in);
  const int32_t d = int32_t(uint32_t(a) + uint32_t(b));
  writeScalar32(w, in.dst(), uint32_t(d));
  w.scc = ((a >= 0) == (b >= 0)) && ((d >= 0) != (a >= 0));
  return S::success();
}
S sMulkI32(Wave &w, const Instruction &in) {
  writeScalar32(w, in.dst(), readScalar32(w, in.dst()) * uint32_t(simm16(in)));
  return S::success();
}
template <int Op> S sCmpk(Wave &w, const Instruction &in) {
  const uint32_t a = a32(w, in);
  const int32_t si = simm16(in);
  const uint32_t ui = in.words[0] & 0xffff;
  switch (Op) {
  case 0: w.scc = int32_t(a) == si; break;
  case 1: w.scc = int32_t(a) != si; break;
  case 2: w.scc = int32_t(a) > si; break;
  case 3: w.scc = int32_t(a) >= si; break;
  case 4: w.scc = int32_t(a) < si; break;
  case 5: w.scc = int32_t(a) <= si; break;
  case 6: w.scc = a == ui; break;
  case 7: w.scc = a != ui; break;
  case 8: w.scc = a > ui; break;
  case 9: w.scc = a >= ui; break;
  case 10: w.scc = a < ui; break;
  default: w.scc = a <= ui; break;
  }
  return S::success();
}

} // namespace

void registerSalu(OpRegistry &r) {
  r.add("s_and_b32", sAndB32);
  r.add("s_or_b32", sOrB32);
  r.add("s_xor_b32", sXorB32);
  r.add("s_andn2_b32", sAndn2B32);
  r.add("s_orn2_b32", sOrn2B32);
  r.add("s_nand_b32", sNandB32);
  r.add("s_nor_b32", sNorB32);
  r.add("s_xnor_b32", sXnorB32);
  r.add("s_lshl_b32", sLshlB32);
  r.add("s_lshr_b32", sLshrB32);
  r.add("s_ashr_i32", sAshrI32);
  r.add("s_bfe_u32", sBfeU32);
  r.add("s_bfe_i32", sBfeI32);
  r.add("s_bfm_b32", sBfmB32);
  r.add("s_and_b64", sAndB64);
  r.add("s_or_b64", sOrB64);
  r.add("s_xor_b64", sXorB64);
  r.add("s_andn2_b64", sAndn2B64);
  r.add("s_orn2_b64", sOrn2B64);
  r.add("s_nand_b64", sNandB64);
  r.add("s_nor_b64", sNorB64);
  r.add("s_xnor_b64", sXnorB64);
  r.add("s_lshl_b64", sLshlB64);
  r.add("s_lshr_b64", sLshrB64);
  r.add("s_ashr_i64", sAshrI64);
  r.add("s_add_u32", sAddU32);
  r.add("s_addc_u32", sAddcU32);
  r.add("s_sub_u32", sSubU32);
  r.add("s_subb_u32", sSubbU32);
  r.add("s_add_i32", sAddI32);
  r.add("s_sub_i32", sSubI32);
  r.add("s_mul_i32", sMulI32);
  r.add("s_mul_hi_u32", sMulHiU32);
  r.add("s_mul_hi_i32", sMulHiI32);
  r.add("s_min_i32", sMinMax<0>);
  r.add("s_min_u32", sMinMax<1>);
  r.add("s_max_i32", sMinMax<2>);
  r.add("s_max_u32", sMinMax<3>);
  r.add("s_cselect_b32", sCselectB32);
  r.add("s_cselect_b64", sCselectB64);
  r.add("s_lshl1_add_u32", sLshlAddU32<1>);
  r.add("s_lshl2_add_u32", sLshlAddU32<2>);
  r.add("s_lshl3_add_u32", sLshlAddU32<3>);
  r.add("s_lshl4_add_u32", sLshlAddU32<4>);
  r.add("s_pack_ll_b32_b16", sPackLL);
  r.add("s_pack_lh_b32_b16", sPackLH);
  r.add("s_pack_hh_b32_b16", sPackHH);
  r.add("s_absdiff_i32", sAbsdiffI32);

  r.add("s_mov_b32", sMovB32);
  r.add("s_mov_b64", sMovB64);
  r.add("s_cmov_b32", sCmovB32);
  r.add("s_cmov_b64", sCmovB64);
  r.add("s_not_b32", sNotB32);
  r.add("s_not_b64", sNotB64);
  r.add("s_brev_b32", sBrevB32);
  r.add("s_bitset0_b32", sBitset0B32);
  r.add("s_bitset1_b32", sBitset1B32);
  r.add("s_bcnt1_i32_b32", sBcnt1B32);
  r.add("s_bcnt1_i32_b64", sBcnt1B64);
  r.add("s_bcnt0_i32_b32", sBcnt0B32);
  r.add("s_ff1_i32_b32", sFf1B32);
  r.add("s_ff1_i32_b64", sFf1B64);
  r.add("s_flbit_i32_b32", sFlbitB32);
  r.add("s_sext_i32_i8", sSextI8);
  r.add("s_sext_i32_i16", sSextI16);
  r.add("s_abs_i32", sAbsI32);
  r.add("s_and_saveexec_b64", sSaveexec<0>);
  r.add("s_or_saveexec_b64", sSaveexec<1>);
  r.add("s_xor_saveexec_b64", sSaveexec<2>);
  r.add("s_andn2_saveexec_b64", sSaveexec<3>);
  r.add("s_orn2_saveexec_b64", sSaveexec<4>);
  r.add("s_nand_saveexec_b64", sSaveexec<5>);
  r.add("s_nor_saveexec_b64", sSaveexec<6>);
  r.add("s_xnor_saveexec_b64", sSaveexec<7>);
  r.add("s_getpc_b64", sGetpcB64);

  r.add("s_cmp_eq_i32", sCmp32<0>);
  r.add("s_cmp_lg_i32", sCmp32<1>);
  r.add("s_cmp_gt_i32", sCmp32<2>);
  r.add("s_cmp_ge_i32", sCmp32<3>);
  r.add("s_cmp_lt_i32", sCmp32<4>);
  r.add("s_cmp_le_i32", sCmp32<5>);
  r.add("s_cmp_eq_u32", sCmp32<0>);
  r.add("s_cmp_lg_u32", sCmp32<1>);
  r.add("s_cmp_gt_u32", sCmp32<6>);
  r.add("s_cmp_ge_u32", sCmp32<7>);
  r.add("s_cmp_lt_u32", sCmp32<8>);
  r.add("s_cmp_le_u32", sCmp32<9>);
  r.add("s_cmp_eq_u64", sCmpEqU64);
  r.add("s_cmp_lg_u64", sCmpLgU64);
  r.add("s_bitcmp0_b32", sBitcmp0B32);
  r.add("s_bitcmp1_b32", sBitcmp1B32);

  r.add("s_movk_i32", sMovkI32);
  r.add("s_cmovk_i32", sCmovkI32);
  r.add("s_addk_i32", sAddkI32);
  r.add("s_mulk_i32", sMulkI32);
  r.add("s_cmpk_eq_i32", sCmpk<0>);
  r.add("s_cmpk_lg_i32", sCmpk<1>);
  r.add("s_cmpk_gt_i32", sCmpk<2>);
  r.add("s_cmpk_ge_i32", sCmpk<3>);
  r.add("s_cmpk_lt_i32", sCmpk<4>);
  r.add("s_cmpk_le_i32", sCmpk<5>);
  r.add("s_cmpk_eq_u32", sCmpk<6>);
  r.add("s_cmpk_lg_u32", sCmpk<7>);
  r.add("s_cmpk_gt_u32", sCmpk<8>);
  r.add("s_cmpk_ge_u32", sCmpk<9>);
  r.add("s_cmpk_lt_u32", sCmpk<10>);
  r.add("s_cmpk_le_u32", sCmpk<11>);
}

} // namespace mxf::emu
