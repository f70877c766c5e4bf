//===- test_valu.cpp - Integer and bitwise VALU instructions --------------===//
//
// Each case runs one instruction over 64 lanes of pseudo-random inputs
// (a, b, c in v2, v3, v4; result in v5) and checks every lane against the
// ISA pseudo-code written out in C++.
//
//===----------------------------------------------------------------------===//

#include "emu_harness.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace mxf::emu::test {
namespace {

Buffer pattern(uint32_t seed) {
  return lanes([seed](unsigned l) {
    uint32_t x = seed ^ (l * 0x9e3779b9u);
    x ^= x >> 13;
    x *= 0x85ebca6bu;
    x ^= x >> 16;
    if (l % 16 == 3) // some small values, where shifts and bit fields matter
      x &= 0x3f;
    if (l == 7)
      x = 0;
    if (l == 8)
      x = ~0u;
    return x;
  });
}


struct IntCase {
  const char *name;
  const char *op;
  uint32_t (*ref)(uint32_t a, uint32_t b, uint32_t c);
};

class EmuValuInt : public ::testing::TestWithParam<IntCase> {};

TEST_P(EmuValuInt, MatchesIsaPseudoCode) {
  const IntCase &c = GetParam();
  const Buffer a = pattern(11), b = pattern(22), cc = pattern(33);
  const Buffer out = runLaneOp(c.op, a, b, cc);
  for (unsigned l = 0; l < 64; ++l)
    ASSERT_EQ(out[l], c.ref(a[l], b[l], cc[l]))
        << c.op << " lane " << l << " a=" << a[l] << " b=" << b[l] << " c=" << cc[l];
}

int32_t sext24(uint32_t x) { return int32_t(x << 8) >> 8; }
uint8_t permByte(uint64_t d, uint32_t sel) {
  sel &= 0xff;
  if (sel >= 13) return 0xff;
  if (sel == 12) return 0;
  if (sel == 11) return (d >> 63) & 1 ? 0xff : 0;
  if (sel == 10) return (d >> 47) & 1 ? 0xff : 0;
  if (sel == 9) return (d >> 31) & 1 ? 0xff : 0;
  if (sel == 8) return (d >> 15) & 1 ? 0xff : 0;
  return uint8_t(d >> (8 * sel));
}

const IntCase kIntCases[] = {
    {"mov", "v_mov_b32 v5, v2", [](uint32_t a, uint32_t, uint32_t) { return a; }},
    {"mov_e64", "v_mov_b32_e64 v5, v3", [](uint32_t, uint32_t b, uint32_t) { return b; }},
    {"not", "v_not_b32 v5, v2", [](uint32_t a, uint32_t, uint32_t) { return ~a; }},
    {"and", "v_and_b32 v5, v2, v3", [](uint32_t a, uint32_t b, uint32_t) { return a & b; }},
    {"and_e64", "v_and_b32_e64 v5, v2, v3", [](uint32_t a, uint32_t b, uint32_t) { return a & b; }},
    {"or", "v_or_b32 v5, v2, v3", [](uint32_t a, uint32_t b, uint32_t) { return a | b; }},
    {"xor", "v_xor_b32 v5, v2, v3", [](uint32_t a, uint32_t b, uint32_t) { return a ^ b; }},
    {"lshlrev", "v_lshlrev_b32 v5, v2, v3",
     [](uint32_t a, uint32_t b, uint32_t) { return b << (a & 31); }},
    {"lshrrev", "v_lshrrev_b32 v5, v2, v3",
     [](uint32_t a, uint32_t b, uint32_t) { return b >> (a & 31); }},
    {"ashrrev", "v_ashrrev_i32 v5, v2, v3",
     [](uint32_t a, uint32_t b, uint32_t) { return uint32_t(int32_t(b) >> (a & 31)); }},
    {"lshlrev_b16", "v_lshlrev_b16 v5, v2, v3",
     [](uint32_t a, uint32_t b, uint32_t) { return uint32_t(uint16_t(b << (a & 15))); }},
    {"add_u32", "v_add_u32 v5, v2, v3", [](uint32_t a, uint32_t b, uint32_t) { return a + b; }},
    {"sub_u32", "v_sub_u32 v5, v2, v3", [](uint32_t a, uint32_t b, uint32_t) { return a - b; }},
    {"sub_u32_clamp", "v_sub_u32_e64 v5, v2, v3 clamp",
     [](uint32_t a, uint32_t b, uint32_t) { return b > a ? 0u : a - b; }},
    {"add_u32_clamp", "v_add_u32_e64 v5, v2, v3 clamp",
     [](uint32_t a, uint32_t b, uint32_t) {
       return uint64_t(a) + b > 0xffffffffull ? ~0u : a + b;
     }},
    {"subrev_u32", "v_subrev_u32 v5, v2, v3",
     [](uint32_t a, uint32_t b, uint32_t) { return b - a; }},
    {"min_i32", "v_min_i32 v5, v2, v3",
     [](uint32_t a, uint32_t b, uint32_t) { return uint32_t(std::min(int32_t(a), int32_t(b))); }},
    {"max_u32", "v_max_u32 v5, v2, v3",
     [](uint32_t a, uint32_t b, uint32_t) { return std::max(a, b); }},
    {"mul_lo_u32", "v_mul_lo_u32 v5, v2, v3",
     [](uint32_t a, uint32_t b, uint32_t) { return a * b; }},
    {"mul_hi_u32", "v_mul_hi_u32 v5, v2, v3",
     [](uint32_t a, uint32_t b, uint32_t) { return uint32_t((uint64_t(a) * b) >> 32); }},
    {"mul_u32_u24", "v_mul_u32_u24 v5, v2, v3",
     [](uint32_t a, uint32_t b, uint32_t) { return (a & 0xffffff) * (b & 0xffffff); }},
    {"mul_i32_i24", "v_mul_i32_i24 v5, v2, v3",
     [](uint32_t a, uint32_t b, uint32_t) { return uint32_t(int64_t(sext24(a)) * sext24(b)); }},
    {"mad_i32_i24", "v_mad_i32_i24 v5, v2, v3, v4",
     [](uint32_t a, uint32_t b, uint32_t c) { return uint32_t(int64_t(sext24(a)) * sext24(b)) + c; }},
    {"mad_u32_u24", "v_mad_u32_u24 v5, v2, v3, v4",
     [](uint32_t a, uint32_t b, uint32_t c) { return (a & 0xffffff) * (b & 0xffffff) + c; }},
    {"bcnt", "v_bcnt_u32_b32 v5, v2, v3",
     [](uint32_t a, uint32_t b, uint32_t) { return uint32_t(__builtin_popcount(a)) + b; }},
    {"bcnt_const", "v_bcnt_u32_b32 v5, v2, 0",
     [](uint32_t a, uint32_t, uint32_t) { return uint32_t(__builtin_popcount(a)); }},
    {"bfe_u32", "v_bfe_u32 v5, v2, v3, v4",
     [](uint32_t a, uint32_t b, uint32_t c) {
       const uint32_t o = b & 31, w = c & 31;
       return w == 0 ? 0u : (a >> o) & ((1u << w) - 1);
     }},
    {"bfe_u32_const", "v_bfe_u32 v5, v2, 4, 2",
     [](uint32_t a, uint32_t, uint32_t) { return (a >> 4) & 3; }},
    {"bfe_i32", "v_bfe_i32 v5, v2, 3, 5",
     [](uint32_t a, uint32_t, uint32_t) { return uint32_t(int32_t(((a >> 3) & 31) << 27) >> 27); }},
    {"bfi", "v_bfi_b32 v5, v2, v3, v4",
     [](uint32_t a, uint32_t b, uint32_t c) { return (a & b) | (~a & c); }},
    {"alignbit", "v_alignbit_b32 v5, v2, v3, v4",
     [](uint32_t a, uint32_t b, uint32_t c) {
       return uint32_t(((uint64_t(a) << 32) | b) >> (c & 31));
     }},
    {"alignbit_16", "v_alignbit_b32 v5, v2, v3, 16",
     [](uint32_t a, uint32_t b, uint32_t) { return (a << 16) | (b >> 16); }},
    {"alignbyte", "v_alignbyte_b32 v5, v2, v3, v4",
     [](uint32_t a, uint32_t b, uint32_t c) {
       return uint32_t(((uint64_t(a) << 32) | b) >> (8 * (c & 3)));
     }},
    {"lshl_add", "v_lshl_add_u32 v5, v2, 3, v4",
     [](uint32_t a, uint32_t, uint32_t c) { return (a << 3) + c; }},
    {"add_lshl", "v_add_lshl_u32 v5, v2, v3, 1",
     [](uint32_t a, uint32_t b, uint32_t) { return (a + b) << 1; }},
    {"add3", "v_add3_u32 v5, v2, v3, v4",
     [](uint32_t a, uint32_t b, uint32_t c) { return a + b + c; }},
    {"lshl_or", "v_lshl_or_b32 v5, v2, v3, v4",
     [](uint32_t a, uint32_t b, uint32_t c) { return (a << (b & 31)) | c; }},
    {"and_or", "v_and_or_b32 v5, v2, 15, v4",
     [](uint32_t a, uint32_t, uint32_t c) { return (a & 15) | c; }},
    {"or3", "v_or3_b32 v5, v2, v3, v4",
     [](uint32_t a, uint32_t b, uint32_t c) { return a | b | c; }},
    {"xad", "v_xad_u32 v5, v2, v3, v4",
     [](uint32_t a, uint32_t b, uint32_t c) { return (a ^ b) + c; }},
    {"perm", "v_perm_b32 v5, v2, v3, v4",
     [](uint32_t a, uint32_t b, uint32_t c) {
       const uint64_t d = (uint64_t(a) << 32) | b;
       return uint32_t(permByte(d, c)) | uint32_t(permByte(d, c >> 8)) << 8 |
              uint32_t(permByte(d, c >> 16)) << 16 | uint32_t(permByte(d, c >> 24)) << 24;
     }},
    {"perm_literal", "s_mov_b32 s12, 0x5040100\n v_perm_b32 v5, v2, v3, s12",
     [](uint32_t a, uint32_t b, uint32_t) { return (b & 0xffff) | (a << 16); }},
    {"perm_signs", "s_mov_b32 s12, 0x0c0b0a09\n v_perm_b32 v5, v2, v3, s12",
     [](uint32_t a, uint32_t b, uint32_t) {
       const uint64_t d = (uint64_t(a) << 32) | b;
       return uint32_t(permByte(d, 9)) | uint32_t(permByte(d, 10)) << 8 |
              uint32_t(permByte(d, 11)) << 16;
     }},
    {"bitop3_c8", "v_bitop3_b32 v5, v2, v3, v4 bitop3:0xc8",
     [](uint32_t a, uint32_t b, uint32_t c) { return b & (a | c); }},
    {"bitop3_xor3", "v_bitop3_b32 v5, v2, v3, v4 bitop3:0x96",
     [](uint32_t a, uint32_t b, uint32_t c) { return a ^ b ^ c; }},
    {"bitop3_and_or", "v_bitop3_b32 v5, v2, v3, v4 bitop3:0xea",
     [](uint32_t a, uint32_t b, uint32_t c) { return (a & b) | c; }},
    {"bitop3_not", "v_bitop3_b32 v5, v2, 0, 0 bitop3:0x1",
     [](uint32_t a, uint32_t, uint32_t) { return ~a; }},
    {"bitop3_b16_keeps_high", "v_bitop3_b16 v5, v2, v3, v4 bitop3:0xec",
     [](uint32_t a, uint32_t b, uint32_t c) { return (b | (a & c)) & 0xffffu; }},
    {"min3_u32", "v_min3_u32 v5, v2, v3, v4",
     [](uint32_t a, uint32_t b, uint32_t c) { return std::min({a, b, c}); }},
    {"max3_i32", "v_max3_i32 v5, v2, v3, v4",
     [](uint32_t a, uint32_t b, uint32_t c) {
       return uint32_t(std::max({int32_t(a), int32_t(b), int32_t(c)}));
     }},
    {"med3_u32", "v_med3_u32 v5, v2, v3, v4",
     [](uint32_t a, uint32_t b, uint32_t c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); }},
    {"ffbh", "v_ffbh_u32 v5, v2",
     [](uint32_t a, uint32_t, uint32_t) { return a ? uint32_t(__builtin_clz(a)) : ~0u; }},
    {"bfrev", "v_bfrev_b32 v5, v2",
     [](uint32_t a, uint32_t, uint32_t) {
       uint32_t r = 0;
       for (int i = 0; i < 32; ++i)
         r |= ((a >> i) & 1) << (31 - i);
       return r;
     }},
    {"prng", "v_prng_b32 v5, v2",
     [](uint32_t a, uint32_t, uint32_t) { return (a << 1) ^ ((a >> 31) ? 197u : 0u); }},
    {"literal", "v_or_b32 v5, 0x3e003e00, v2",
     [](uint32_t a, uint32_t, uint32_t) { return a | 0x3e003e00u; }},
    {"inline_neg", "v_add_u32 v5, -16, v2",
     [](uint32_t a, uint32_t, uint32_t) { return a - 16; }},
    {"inline_64", "v_add_u32 v5, 64, v2",
     [](uint32_t a, uint32_t, uint32_t) { return a + 64; }},
    {"sgpr_source", "s_mov_b32 s12, 12345\n v_xor_b32 v5, s12, v2",
     [](uint32_t a, uint32_t, uint32_t) { return a ^ 12345u; }},
    {"pk_lshlrev_b16", "v_pk_lshlrev_b16 v5, v2, v3",
     [](uint32_t a, uint32_t b, uint32_t) {
       return uint32_t(uint16_t(b << (a & 15))) | (uint32_t(uint16_t((b >> 16) << ((a >> 16) & 15))) << 16);
     }},
    {"pk_lshlrev_b16_const", "v_pk_lshlrev_b16 v5, 15, v2 op_sel_hi:[0,1]",
     [](uint32_t a, uint32_t, uint32_t) {
       return uint32_t(uint16_t(a << 15)) | (uint32_t(uint16_t((a >> 16) << 15)) << 16);
     }},
    {"pk_add_u16_opsel", "v_pk_add_u16 v5, v2, v3 op_sel:[1,0] op_sel_hi:[0,1]",
     [](uint32_t a, uint32_t b, uint32_t) {
       return uint32_t(uint16_t((a >> 16) + b)) | (uint32_t(uint16_t(a + (b >> 16))) << 16);
     }},
    {"cvt_pk_u16_u32", "v_cvt_pk_u16_u32 v5, v2, v3",
     [](uint32_t a, uint32_t b, uint32_t) { return std::min(a, 0xffffu) | (std::min(b, 0xffffu) << 16); }},
    {"mbcnt_lo", "v_mbcnt_lo_u32_b32 v5, -1, 0", nullptr},
};

std::string caseName(const ::testing::TestParamInfo<IntCase> &info) { return info.param.name; }

std::vector<IntCase> withReference() {
  std::vector<IntCase> out;
  for (const IntCase &c : kIntCases)
    if (c.ref)
      out.push_back(c);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Ops, EmuValuInt, ::testing::ValuesIn(withReference()), caseName);

TEST(EmuValu, MbcntCountsLanesBelow) {
  const Buffer z(64, 0);
  const Buffer out = runLaneOp("v_mbcnt_lo_u32_b32 v5, -1, 0\n v_mbcnt_hi_u32_b32 v5, -1, v5", z, z, z);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], l);
}

TEST(EmuValu, AddCoCarryChain64) {
  // 64-bit add from 32-bit halves: v_add_co_u32 + v_addc_co_u32 (e32: VCC).
  const Buffer a = pattern(5), b = pattern(6), c = pattern(7);
  const Buffer out = runLaneOp(R"(
  v_add_co_u32_e32 v6, vcc, v2, v3
  v_addc_co_u32_e32 v7, vcc, v4, v4, vcc
  v_xor_b32 v5, v6, v7)", a, b, c);
  for (unsigned l = 0; l < 64; ++l) {
    const uint64_t sum = uint64_t(a[l]) + b[l];
    const uint32_t hi = c[l] + c[l] + uint32_t(sum >> 32);
    EXPECT_EQ(out[l], uint32_t(sum) ^ hi) << l;
  }
}

TEST(EmuValu, AddCoE64WritesSgprPairCarry) {
  const Buffer a = pattern(8), b = pattern(9), z(64, 0);
  const Buffer out = runLaneOp(R"(
  v_add_co_u32_e64 v6, s[12:13], v2, v3
  v_cndmask_b32_e64 v5, 0, 1, s[12:13])", a, b, z);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], (uint64_t(a[l]) + b[l]) >> 32 ? 1u : 0u) << l;
}

TEST(EmuValu, SubCoBorrow) {
  const Buffer a = pattern(10), b = pattern(12), z(64, 0);
  const Buffer out = runLaneOp(R"(
  v_sub_co_u32_e64 v6, s[12:13], v2, v3
  v_subb_co_u32_e64 v7, s[14:15], 0, 0, s[12:13]
  v_xor_b32 v5, v6, v7)", a, b, z);
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t borrow = b[l] > a[l] ? 1 : 0;
    EXPECT_EQ(out[l], (a[l] - b[l]) ^ (0u - borrow)) << l;
  }
}

TEST(EmuValu, MadU64U32) {
  const Buffer a = pattern(13), b = pattern(14), c = pattern(15);
  const Buffer out = runLaneOp(R"(
  v_mov_b32 v6, 0
  v_mov_b32 v7, v4
  v_mad_u64_u32 v[8:9], s[12:13], v2, v3, v[6:7]
  v_xor_b32 v5, v8, v9)", a, b, c, pattern(16));
  for (unsigned l = 0; l < 64; ++l) {
    const uint64_t r = uint64_t(a[l]) * b[l] + (uint64_t(c[l]) << 32);
    EXPECT_EQ(out[l], uint32_t(r) ^ uint32_t(r >> 32)) << l;
  }
}

TEST(EmuValu, LshlrevB64AndLshlAddU64) {
  const Buffer a = pattern(17), b = pattern(18), c = pattern(19);
  const Buffer out = runLaneOp(R"(
  v_mov_b32 v10, v3
  v_mov_b32 v11, v4
  v_lshlrev_b64 v[6:7], 13, v[2:3]
  v_lshl_add_u64 v[8:9], v[6:7], 2, v[10:11]
  v_xor_b32 v5, v8, v9)", a, b, c);
  for (unsigned l = 0; l < 64; ++l) {
    const uint64_t x = ((uint64_t(b[l]) << 32) | a[l]) << 13;
    const uint64_t y = (x << 2) + ((uint64_t(c[l]) << 32) | b[l]);
    EXPECT_EQ(out[l], uint32_t(y) ^ uint32_t(y >> 32)) << l;
  }
}

TEST(EmuValu, LshlAddU64ShiftAbove4IsZero) {
  const Buffer a = pattern(20), b = pattern(21), c = pattern(22);
  const Buffer out = runLaneOp(R"(
  v_mov_b32 v10, v3
  v_lshl_add_u64 v[8:9], v[2:3], 5, v[10:11]
  v_mov_b32 v5, v8)", a, b, c);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], a[l] + b[l]) << l;
}

TEST(EmuValu, MovB64FromSgprPair) {
  const Buffer z(64, 0);
  const Buffer out = runLaneOp(R"(
  s_mov_b64 s[12:13], 0x12345678
  v_mov_b64 v[6:7], s[12:13]
  v_add_u32 v5, v6, v7)", z, z, z);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], 0x12345678u) << l;
}

TEST(EmuValu, ReadfirstlaneAndReadlane) {
  const Buffer a = pattern(23), z(64, 0);
  const Buffer out = runLaneOp(R"(
  v_readlane_b32 s12, v2, 9
  v_readfirstlane_b32 s13, v2
  v_mov_b32 v5, s12
  v_writelane_b32 v5, s13, 3)", a, z, z);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], l == 3 ? a[0] : a[9]) << l;
}

TEST(EmuValu, ExecMaskedWritesKeepInactiveLanes) {
  const Buffer a = pattern(24), z(64, 0), init = pattern(25);
  const Buffer out = runLaneOp(R"(
  s_mov_b32 exec_lo, 0x00ff00ff
  s_mov_b32 exec_hi, 0x00ff00ff
  v_mov_b32 v5, v2
  s_mov_b64 exec, -1)", a, z, z, init);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], ((l / 8) % 2 == 0) ? a[l] : init[l]) << l;
}

} // namespace
} // namespace mxf::emu::test
