//===- valu.cpp - Vector ALU: integer, bitwise, moves, lane access --------===//
//
// Per-lane semantics from the CDNA4 ISA pseudo-code (§12.7-12.11). Carry
// outputs (VCC or an SGPR pair) hold 0 for inactive lanes.
//
//===----------------------------------------------------------------------===//

#include "emulator/opcode_table.h"
#include "emulator/valu_common.h"

#include <algorithm>

namespace mxf::emu {

namespace {

using S = Status;
constexpr ValueType I = ValueType::Int;

#define VOP(NAME, N, EXPR)                                                                     \
  S NAME(Wave &w, const Instruction &in) {                                                     \
    return valuOp(w, in, N, I, [](uint32_t a, uint32_t b, uint32_t c) -> uint32_t {            \
      (void)a; (void)b; (void)c;                                                               \
      return (EXPR);                                                                           \
    });                                                                                        \
  }

inline uint32_t bfe(uint32_t value, uint32_t offset, uint32_t width) {
  offset &= 31;
  width &= 31;
  if (width == 0)
    return 0;
  return (value >> offset) & ((1u << width) - 1);
}
inline int32_t sext24(uint32_t x) { return int32_t(x << 8) >> 8; }

uint8_t bytePermute(uint64_t data, uint32_t sel) {
  sel &= 0xff;
  if (sel >= 13)
    return 0xff;
  if (sel == 12)
    return 0x00;
  auto in = [&](unsigned i) { return uint8_t(data >> (8 * i)); };
  if (sel == 11)
    return (in(7) & 0x80) ? 0xff : 0;
  if (sel == 10)
    return (in(5) & 0x80) ? 0xff : 0;
  if (sel == 9)
    return (in(3) & 0x80) ? 0xff : 0;
  if (sel == 8)
    return (in(1) & 0x80) ? 0xff : 0;
  return in(sel);
}

VOP(vMovB32, 1, a)
VOP(vNotB32, 1, ~a)
VOP(vBfrevB32, 1, [](uint32_t x) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i)
    r |= ((x >> i) & 1) << (31 - i);
  return r;
}(a))
VOP(vFfbhU32, 1, a == 0 ? ~0u : uint32_t(__builtin_clz(a)))
VOP(vFfblB32, 1, a == 0 ? ~0u : uint32_t(__builtin_ctz(a)))
VOP(vAndB32, 2, a & b)
VOP(vOrB32, 2, a | b)
VOP(vXorB32, 2, a ^ b)
VOP(vXnorB32, 2, ~(a ^ b))
VOP(vLshlrevB32, 2, b << (a & 31))
VOP(vLshrrevB32, 2, b >> (a & 31))
VOP(vAshrrevI32, 2, uint32_t(int32_t(b) >> (a & 31)))
VOP(vLshlrevB16, 2, uint32_t(uint16_t(b << (a & 15))))
VOP(vLshrrevB16, 2, uint32_t(uint16_t(b) >> (a & 15)))
VOP(vAshrrevI16, 2, uint32_t(uint16_t(int16_t(b) >> (a & 15))))
VOP(vAddU16, 2, uint32_t(uint16_t(a + b)))
VOP(vSubU16, 2, uint32_t(uint16_t(a - b)))
VOP(vMulLoU16, 2, uint32_t(uint16_t(a * b)))
VOP(vMinI32, 2, int32_t(a) < int32_t(b) ? a : b)
VOP(vMaxI32, 2, int32_t(a) > int32_t(b) ? a : b)
VOP(vMinU32, 2, a < b ? a : b)
VOP(vMaxU32, 2, a > b ? a : b)
VOP(vMulU32U24, 2, (a & 0xffffff) * (b & 0xffffff))
// The low 32 bits of the 48-bit product (computed wide: int overflow is UB).
VOP(vMulI32I24, 2, uint32_t(int64_t(sext24(a)) * sext24(b)))
VOP(vMulHiU32U24, 2, uint32_t((uint64_t(a & 0xffffff) * (b & 0xffffff)) >> 32))
VOP(vMulHiI32I24, 2, uint32_t(uint64_t(int64_t(sext24(a)) * sext24(b)) >> 32))
VOP(vMulLoU32, 2, a * b)
VOP(vMulHiU32, 2, uint32_t((uint64_t(a) * b) >> 32))
VOP(vMulHiI32, 2, uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32))
VOP(vBcntU32B32, 2, uint32_t(__builtin_popcount(a)) + b)
VOP(vBfmB32, 2, ((a & 31) == 0 ? 0u : ((1u << (a & 31)) - 1)) << (b & 31))
VOP(vBfeU32, 3, bfe(a, b, c))
VOP(vBfeI32, 3, [](uint32_t v, uint32_t o, uint32_t wd) {
  o &= 31;
  wd &= 31;
  if (wd == 0)
    return 0u;
  const uint32_t field = (v >> o) & ((1u << wd) - 1);
  return uint32_t(int32_t(field << (32 - wd)) >> (32 - wd));
}(a, b, c))
VOP(vBfiB32, 3, (a & b) | (~a & c))
VOP(vAlignbitB32, 3, uint32_t(((uint64_t(a) << 32) | b) >> (c & 31)))
VOP(vAlignbyteB32, 3, uint32_t(((uint64_t(a) << 32) | b) >> (8 * (c & 3))))
VOP(vMadI32I24, 3, uint32_t(int64_t(sext24(a)) * sext24(b)) + c)
VOP(vMadU32U24, 3, (a & 0xffffff) * (b & 0xffffff) + c)
VOP(vMin3I32, 3, uint32_t(std::min({int32_t(a), int32_t(b), int32_t(c)})))
VOP(vMax3I32, 3, uint32_t(std::max({int32_t(a), int32_t(b), int32_t(c)})))
VOP(vMin3U32, 3, std::min({a, b, c}))
VOP(vMax3U32, 3, std::max({a, b, c}))
VOP(vMed3I32, 3, uint32_t(std::max(std::min(int32_t(a), int32_t(b)),
                                   std::min(std::max(int32_t(a), int32_t(b)), int32_t(c)))))
VOP(vMed3U32, 3, std::max(std::min(a, b), std::min(std::max(a, b), c)))
VOP(vLshlAddU32, 3, (a << (b & 31)) + c)
VOP(vAddLshlU32, 3, (a + b) << (c & 31))
VOP(vAdd3U32, 3, a + b + c)
VOP(vLshlOrB32, 3, (a << (b & 31)) | c)
VOP(vAndOrB32, 3, (a & b) | c)
VOP(vOr3B32, 3, a | b | c)
VOP(vXor3B32, 3, a ^ b ^ c)
VOP(vXadU32, 3, (a ^ b) + c)
VOP(vPermB32, 3, uint32_t(bytePermute((uint64_t(a) << 32) | b, c)) |
                     (uint32_t(bytePermute((uint64_t(a) << 32) | b, c >> 8)) << 8) |
                     (uint32_t(bytePermute((uint64_t(a) << 32) | b, c >> 16)) << 16) |
                     (uint32_t(bytePermute((uint64_t(a) << 32) | b, c >> 24)) << 24))
VOP(vCvtF32Ubyte0, 1, asBits(float(a & 0xff)))
VOP(vCvtF32Ubyte1, 1, asBits(float((a >> 8) & 0xff)))
VOP(vCvtF32Ubyte2, 1, asBits(float((a >> 16) & 0xff)))
VOP(vCvtF32Ubyte3, 1, asBits(float(a >> 24)))
VOP(vCvtPkU16U32, 2, (std::min(a, 0xffffu)) | (std::min(b, 0xffffu) << 16))

/// v_bitop3_b32/b16: D[i] = TTBL[{S0[i], S1[i], S2[i]}]; the table is an
/// instruction immediate (the OMOD/ABS/NEG fields).
template <unsigned Bits> S vBitop3(Wave &w, const Instruction &in) {
  const uint32_t table = in.numImms ? uint32_t(in.imms[in.numImms - 1]) & 0xff : 0;
  const uint32_t keep = Bits == 32 ? ~0u : 0xffffu;
  Lanes32 s[3], d;
  for (unsigned i = 0; i < 3; ++i)
    readLanes32(w, in.src(i), s[i]);
  const uint64_t mask = w.exec();
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(mask, l))
      continue;
    uint32_t r = 0;
    for (unsigned idx = 0; idx < 8; ++idx) {
      if (!((table >> idx) & 1))
        continue;
      const uint32_t x = (idx & 4) ? s[0][l] : ~s[0][l];
      const uint32_t y = (idx & 2) ? s[1][l] : ~s[1][l];
      const uint32_t z = (idx & 1) ? s[2][l] : ~s[2][l];
      r |= x & y & z;
    }
    d[l] = r & keep;
  }
  if (Bits == 16) { // b16 writes the low half and keeps the high half (op_sel[3]=0)
    if (in.mods.opsel)
      return S::failure("op_sel on v_bitop3_b16 is not modelled");
    const uint32_t *old = w.lanes(in.dst());
    for (unsigned l = 0; l < kWaveSize; ++l)
      d[l] = (old[l] & 0xffff0000u) | d[l];
  }
  writeLanes32(w, in.dst(), d, mask);
  return S::success();
}

// Integer add/sub with optional clamp (saturation). The clamp is applied
// here, so the generic path sees an instruction without it.
template <typename F> S clampedOp(Wave &w, const Instruction &in, F f) {
  const bool clamp = in.mods.clamp;
  Instruction copy = in;
  copy.mods.clamp = false;
  return valuOp(w, copy, 2, I, [clamp, f](uint32_t a, uint32_t b, uint32_t) {
    return f(a, b, clamp);
  });
}
S vAddU32(Wave &w, const Instruction &in) {
  return clampedOp(w, in, [](uint32_t a, uint32_t b, bool clamp) {
    const uint64_t d = uint64_t(a) + b;
    return clamp && (d >> 32) ? ~0u : uint32_t(d);
  });
}
S vSubU32(Wave &w, const Instruction &in) {
  return clampedOp(w, in, [](uint32_t a, uint32_t b, bool clamp) {
    return clamp && b > a ? 0u : a - b;
  });
}
S vSubrevU32(Wave &w, const Instruction &in) {
  return clampedOp(w, in, [](uint32_t a, uint32_t b, bool clamp) {
    return clamp && a > b ? 0u : b - a;
  });
}
S vAddI32(Wave &w, const Instruction &in) {
  return clampedOp(w, in, [](uint32_t a, uint32_t b, bool clamp) {
    const int64_t d = int64_t(int32_t(a)) + int32_t(b);
    return clamp ? uint32_t(int32_t(std::clamp<int64_t>(d, INT32_MIN, INT32_MAX))) : uint32_t(d);
  });
}
S vSubI32(Wave &w, const Instruction &in) {
  return clampedOp(w, in, [](uint32_t a, uint32_t b, bool clamp) {
    const int64_t d = int64_t(int32_t(a)) - int32_t(b);
    return clamp ? uint32_t(int32_t(std::clamp<int64_t>(d, INT32_MIN, INT32_MAX))) : uint32_t(d);
  });
}

/// v_alignbit_b32; gfx950's op_sel form is not modelled.
S vAlignbit(Wave &w, const Instruction &in) {
  if (in.mods.opsel)
    return S::failure("op_sel on v_alignbit_b32 is not modelled");
  return vAlignbitB32(w, in);
}

/// Carry-out destination: VCC for the 32-bit forms, else the SGPR pair.
const Operand *carryOut(const Instruction &in) {
  return in.numDefs > 1 ? &in.defs[1] : nullptr;
}

/// v_add_co_u32 / v_sub_co_u32 / v_subrev_co_u32 and the carry-in forms.
/// Op: 0 add, 1 sub, 2 subrev; CarryIn: add/sub the input carry.
template <int Op, bool CarryIn> S vCarryOp(Wave &w, const Instruction &in) {
  Lanes32 a, b, d;
  valuSource(w, in, 0, I, a);
  valuSource(w, in, 1, I, b);
  uint64_t carryIn = 0;
  if (CarryIn)
    carryIn = in.numSrcs > 2 ? readMask(w, in.src(2)) : w.vcc();
  const uint64_t mask = valuWriteMask(w, in);
  uint64_t carry = 0;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(mask, l))
      continue;
    const uint64_t c = CarryIn ? (carryIn >> l) & 1 : 0;
    uint64_t x = a[l], y = b[l];
    if (Op == 2)
      std::swap(x, y);
    bool out;
    uint64_t r;
    if (Op == 0) {
      r = x + y + c;
      out = (r >> 32) != 0;
    } else {
      r = x - y - c;
      out = y + c > x;
    }
    d[l] = in.mods.clamp && out ? (Op == 0 ? ~0u : 0u) : uint32_t(r);
    if (out)
      carry |= 1ull << l;
  }
  Instruction copy = in;
  copy.mods.clamp = false;
  valuWrite(w, copy, d, I, mask);
  if (const Operand *dst = carryOut(in))
    writeMask(w, *dst, carry);
  else
    w.setVcc(carry);
  return S::success();
}

/// v_cndmask_b32: D = VCC/SGPR-pair[lane] ? S1 : S0 (abs/neg apply as on f32).
S vCndmaskB32(Wave &w, const Instruction &in) {
  Lanes32 a, b, d;
  const ValueType type = in.encoding == Encoding::Vop3 || in.encoding == Encoding::Sdwa
                             ? ValueType::F32 : I;
  valuSource(w, in, 0, type, a);
  valuSource(w, in, 1, type, b);
  const uint64_t cond = in.numSrcs > 2 ? readMask(w, in.src(2)) : w.vcc();
  const uint64_t mask = valuWriteMask(w, in);
  for (unsigned l = 0; l < kWaveSize; ++l)
    d[l] = ((cond >> l) & 1) ? b[l] : a[l];
  valuWrite(w, in, d, I, mask);
  return S::success();
}

// 64-bit integer ops (VOP3 only on gfx9).
template <int Op> S v64Shift(Wave &w, const Instruction &in) {
  Lanes32 shift;
  Lanes64 value, d;
  readLanes32(w, in.src(0), shift);
  readLanes64(w, in.src(1), value);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const unsigned n = shift[l] & 63;
    d[l] = Op == 0 ? value[l] << n
         : Op == 1 ? value[l] >> n
                   : uint64_t(int64_t(value[l]) >> n);
  }
  writeLanes64(w, in.dst(), d, w.exec());
  return S::success();
}

/// v_lshl_add_u64: D = (S0 << S1[2:0]) + S2; shifts above 4 act as 0 (ISA).
S vLshlAddU64(Wave &w, const Instruction &in) {
  Lanes64 a, c, d;
  Lanes32 b;
  readLanes64(w, in.src(0), a);
  readLanes32(w, in.src(1), b);
  readLanes64(w, in.src(2), c);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    unsigned n = b[l] & 7;
    if (n > 4)
      n = 0;
    d[l] = (a[l] << n) + c[l];
  }
  writeLanes64(w, in.dst(), d, w.exec());
  return S::success();
}

/// v_mad_u64_u32 / v_mad_i64_i32: D = S0 * S1 + S2 (64-bit), carry-out in
/// the SGPR pair.
template <bool Signed> S vMad64(Wave &w, const Instruction &in) {
  Lanes32 a, b;
  Lanes64 c, d;
  readLanes32(w, in.src(0), a);
  readLanes32(w, in.src(1), b);
  readLanes64(w, in.src(2), c);
  const uint64_t mask = w.exec();
  uint64_t carry = 0;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(mask, l))
      continue;
    if (Signed) {
      const __int128 r = __int128(int64_t(int32_t(a[l])) * int32_t(b[l])) + int64_t(c[l]);
      d[l] = uint64_t(r);
      if (r > INT64_MAX || r < INT64_MIN)
        carry |= 1ull << l;
    } else {
      const unsigned __int128 r = (unsigned __int128)(uint64_t(a[l]) * b[l]) + c[l];
      d[l] = uint64_t(r);
      if (r >> 64)
        carry |= 1ull << l;
    }
    if (in.mods.clamp && ((carry >> l) & 1))
      d[l] = Signed ? (int64_t(d[l]) < 0 ? uint64_t(INT64_MAX) : uint64_t(INT64_MIN)) : ~0ull;
  }
  writeLanes64(w, in.dst(), d, mask);
  if (const Operand *dst = carryOut(in))
    writeMask(w, *dst, carry);
  return S::success();
}

S vMovB64(Wave &w, const Instruction &in) {
  if (in.encoding == Encoding::Dpp || in.encoding == Encoding::Sdwa)
    return S::failure("DPP/SDWA v_mov_b64 is not modelled");
  Lanes64 a;
  readLanes64(w, in.src(0), a);
  writeLanes64(w, in.dst(), a, w.exec());
  return S::success();
}

/// v_mbcnt_lo/hi: count of set mask bits below this lane, plus S1.
template <bool Hi> S vMbcnt(Wave &w, const Instruction &in) {
  Lanes32 a, b, d;
  readLanes32(w, in.src(0), a);
  readLanes32(w, in.src(1), b);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const unsigned base = Hi ? 32 : 0;
    uint32_t below = 0;
    if (l > base)
      below = l - base >= 32 ? ~0u : (1u << (l - base)) - 1;
    d[l] = uint32_t(__builtin_popcount(a[l] & below)) + b[l];
  }
  writeLanes32(w, in.dst(), d, w.exec());
  return S::success();
}

/// v_readfirstlane_b32: the lowest active lane (lane 0 when EXEC is 0).
S vReadfirstlane(Wave &w, const Instruction &in) {
  const uint64_t exec = w.exec();
  const unsigned lane = exec ? unsigned(__builtin_ctzll(exec)) : 0;
  writeScalar32(w, in.dst(), w.lanes(in.src(0))[lane]);
  return S::success();
}
S vReadlane(Wave &w, const Instruction &in) {
  const unsigned lane = readScalar32(w, in.src(1)) & 63;
  writeScalar32(w, in.dst(), w.lanes(in.src(0))[lane]);
  return S::success();
}
S vWritelane(Wave &w, const Instruction &in) {
  const unsigned lane = readScalar32(w, in.src(1)) & 63;
  w.lanes(in.dst())[lane] = readScalar32(w, in.src(0));
  return S::success();
}

/// v_accvgpr_read/write/mov: plain moves between the two halves of the file.
S vAccMove(Wave &w, const Instruction &in) {
  Lanes32 a;
  readLanes32(w, in.src(0), a);
  writeLanes32(w, in.dst(), a, w.exec());
  return S::success();
}

/// v_swap_b32: exchange the two VGPRs in active lanes.
S vSwapB32(Wave &w, const Instruction &in) {
  // MC: defs vdst, vsrc; the tied inputs are the same registers.
  uint32_t *x = w.lanes(in.defs[0]);
  uint32_t *y = w.lanes(in.defs[1]);
  const uint64_t mask = w.exec();
  for (unsigned l = 0; l < kWaveSize; ++l)
    if (laneActive(mask, l))
      std::swap(x[l], y[l]);
  return S::success();
}

S vNop(Wave &, const Instruction &) { return S::success(); }

} // namespace

void registerValu(OpRegistry &r) {
  r.add("v_nop", vNop);
  r.add("v_mov_b32", vMovB32);
  r.add("v_mov_b64", vMovB64);
  r.add("v_not_b32", vNotB32);
  r.add("v_bfrev_b32", vBfrevB32);
  r.add("v_ffbh_u32", vFfbhU32);
  r.add("v_ffbl_b32", vFfblB32);
  r.add("v_and_b32", vAndB32);
  r.add("v_or_b32", vOrB32);
  r.add("v_xor_b32", vXorB32);
  r.add("v_xnor_b32", vXnorB32);
  r.add("v_lshlrev_b32", vLshlrevB32);
  r.add("v_lshrrev_b32", vLshrrevB32);
  r.add("v_ashrrev_i32", vAshrrevI32);
  r.add("v_lshlrev_b16", vLshlrevB16);
  r.add("v_lshrrev_b16", vLshrrevB16);
  r.add("v_ashrrev_i16", vAshrrevI16);
  r.add("v_add_u16", vAddU16);
  r.add("v_sub_u16", vSubU16);
  r.add("v_mul_lo_u16", vMulLoU16);
  r.add("v_min_i32", vMinI32);
  r.add("v_max_i32", vMaxI32);
  r.add("v_min_u32", vMinU32);
  r.add("v_max_u32", vMaxU32);
  r.add("v_mul_u32_u24", vMulU32U24);
  r.add("v_mul_i32_i24", vMulI32I24);
  r.add("v_mul_hi_u32_u24", vMulHiU32U24);
  r.add("v_mul_hi_i32_i24", vMulHiI32I24);
  r.add("v_mul_lo_u32", vMulLoU32);
  r.add("v_mul_hi_u32", vMulHiU32);
  r.add("v_mul_hi_i32", vMulHiI32);
  r.add("v_bcnt_u32_b32", vBcntU32B32);
  r.add("v_bfm_b32", vBfmB32);
  r.add("v_bfe_u32", vBfeU32);
  r.add("v_bfe_i32", vBfeI32);
  r.add("v_bfi_b32", vBfiB32);
  r.add("v_alignbyte_b32", vAlignbyteB32);
  r.add("v_mad_i32_i24", vMadI32I24);
  r.add("v_mad_u32_u24", vMadU32U24);
  r.add("v_min3_i32", vMin3I32);
  r.add("v_max3_i32", vMax3I32);
  r.add("v_min3_u32", vMin3U32);
  r.add("v_max3_u32", vMax3U32);
  r.add("v_med3_i32", vMed3I32);
  r.add("v_med3_u32", vMed3U32);
  r.add("v_lshl_add_u32", vLshlAddU32);
  r.add("v_add_lshl_u32", vAddLshlU32);
  r.add("v_add3_u32", vAdd3U32);
  r.add("v_lshl_or_b32", vLshlOrB32);
  r.add("v_and_or_b32", vAndOrB32);
  r.add("v_or3_b32", vOr3B32);
  r.add("v_xor3_b32", vXor3B32);
  r.add("v_xad_u32", vXadU32);
  r.add("v_perm_b32", vPermB32);
  r.add("v_cvt_f32_ubyte0", vCvtF32Ubyte0);
  r.add("v_cvt_f32_ubyte1", vCvtF32Ubyte1);
  r.add("v_cvt_f32_ubyte2", vCvtF32Ubyte2);
  r.add("v_cvt_f32_ubyte3", vCvtF32Ubyte3);
  r.add("v_cvt_pk_u16_u32", vCvtPkU16U32);
  r.add("v_bitop3_b32", vBitop3<32>);
  r.add("v_bitop3_b16", vBitop3<16>);
  r.add("v_add_u32", vAddU32);
  r.add("v_sub_u32", vSubU32);
  r.add("v_subrev_u32", vSubrevU32);
  r.add("v_add_i32", vAddI32);
  r.add("v_sub_i32", vSubI32);
  r.add("v_add_co_u32", vCarryOp<0, false>);
  r.add("v_sub_co_u32", vCarryOp<1, false>);
  r.add("v_subrev_co_u32", vCarryOp<2, false>);
  r.add("v_addc_co_u32", vCarryOp<0, true>);
  r.add("v_subb_co_u32", vCarryOp<1, true>);
  r.add("v_subbrev_co_u32", vCarryOp<2, true>);
  r.add("v_cndmask_b32", vCndmaskB32);
  r.add("v_lshlrev_b64", v64Shift<0>);
  r.add("v_lshrrev_b64", v64Shift<1>);
  r.add("v_ashrrev_i64", v64Shift<2>);
  r.add("v_lshl_add_u64", vLshlAddU64);
  r.add("v_mad_u64_u32", vMad64<false>);
  r.add("v_mad_i64_i32", vMad64<true>);
  r.add("v_mbcnt_lo_u32_b32", vMbcnt<false>);
  r.add("v_mbcnt_hi_u32_b32", vMbcnt<true>);
  r.add("v_readfirstlane_b32", vReadfirstlane);
  r.add("v_readlane_b32", vReadlane);
  r.add("v_writelane_b32", vWritelane);
  r.add("v_accvgpr_read_b32", vAccMove);
  r.add("v_accvgpr_write_b32", vAccMove);
  r.add("v_accvgpr_mov_b32", vAccMove);
  r.add("v_swap_b32", vSwapB32);
  r.add("v_alignbit_b32", vAlignbit);
}

} // namespace mxf::emu
