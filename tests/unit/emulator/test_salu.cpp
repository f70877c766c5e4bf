//===- test_salu.cpp - Scalar ALU instructions and SCC --------------------===//

#include "emu_harness.h"

#include <gtest/gtest.h>

namespace mxf::emu::test {
namespace {

/// Runs `op` with s21 = a, s22 = b (and s[22:23] = {b, a} for 64-bit
/// forms); returns {s20, s21 after, SCC}.
std::array<uint32_t, 3> runScalar(const std::string &op, uint32_t a, uint32_t b,
                                  bool sccIn = false) {
  AsmKernel k;
  k.body = std::string(kPrologue) + "  s_mov_b32 s21, " + std::to_string(a) +
           "\n  s_mov_b32 s22, " + std::to_string(b) + "\n  s_mov_b32 s23, " +
           std::to_string(a) + "\n  s_mov_b32 s20, 0\n" +
           (sccIn ? "  s_cmp_eq_u32 0, 0\n" : "  s_cmp_eq_u32 0, 1\n") + op + R"(
  s_cselect_b32 s24, 1, 0
  v_mov_b32 v2, s20
  v_mov_b32 v3, s21
  v_mov_b32 v4, s24
  v_mov_b32 v5, 0
  global_store_dwordx2 v5, v[2:3], s[4:5]
  global_store_dword v5, v4, s[4:5] offset:8
)";
  Buffer out(4, 0);
  auto stats = runAsm(k, {&out});
  EXPECT_TRUE(stats.ok()) << stats.error();
  return {out[0], out[1], out[2]};
}

struct SaluCase {
  const char *name;
  const char *op;
  uint32_t a, b;
  bool sccIn;
  uint32_t want;
  uint32_t wantScc;
};
class EmuSalu : public ::testing::TestWithParam<SaluCase> {};

TEST_P(EmuSalu, ResultAndScc) {
  const SaluCase &c = GetParam();
  const auto r = runScalar(c.op, c.a, c.b, c.sccIn);
  EXPECT_EQ(r[0], c.want) << c.op;
  EXPECT_EQ(r[2], c.wantScc) << c.op << " SCC";
}

const SaluCase kSaluCases[] = {
    {"mov_b32", "s_mov_b32 s20, s21", 5, 0, false, 5, 0},
    {"movk_negative", "s_movk_i32 s20, 0x8000", 0, 0, false, 0xffff8000u, 0},
    {"add_u32_carry", "s_add_u32 s20, s21, s22", 0xffffffffu, 2, false, 1, 1},
    {"add_u32_nocarry", "s_add_u32 s20, s21, s22", 7, 2, false, 9, 0},
    {"addc_u32", "s_addc_u32 s20, s21, s22", 7, 2, true, 10, 0},
    {"addc_u32_carry", "s_addc_u32 s20, s21, -1", 1, 0, true, 1, 1},
    {"sub_u32_borrow", "s_sub_u32 s20, s21, s22", 1, 2, false, 0xffffffffu, 1},
    {"add_i32_overflow", "s_add_i32 s20, s21, s22", 0x7fffffffu, 1, false, 0x80000000u, 1},
    {"and_b32", "s_and_b32 s20, s21, s22", 0xf0f0u, 0xff00u, false, 0xf000u, 1},
    {"and_b32_zero", "s_and_b32 s20, s21, s22", 0xf0u, 0x0fu, true, 0, 0},
    {"and_literal", "s_and_b32 s20, s21, 0xfffff000", 0x12345678u, 0, false, 0x12345000u, 1},
    {"or_b32", "s_or_b32 s20, s21, s22", 1, 2, false, 3, 1},
    {"xor_b32", "s_xor_b32 s20, s21, s22", 3, 3, true, 0, 0},
    {"andn2_b32", "s_andn2_b32 s20, s21, s22", 0xff, 0x0f, false, 0xf0, 1},
    {"lshl_b32", "s_lshl_b32 s20, s21, 4", 0x10000001u, 0, false, 0x10u, 1},
    {"lshr_b32", "s_lshr_b32 s20, s21, 4", 0x80000000u, 0, false, 0x08000000u, 1},
    {"ashr_i32", "s_ashr_i32 s20, s21, 31", 0x80000000u, 0, false, 0xffffffffu, 1},
    {"ashr_i32_positive", "s_ashr_i32 s20, s21, 31", 5, 0, true, 0, 0},
    {"mul_i32", "s_mul_i32 s20, s21, s22", 7, 0xfffffffdu, false, uint32_t(-21), 0},
    {"bfe_u32", "s_bfe_u32 s20, s21, 0x40004", 0xabcdu, 0, false, 0xcu, 1},
    {"min_u32", "s_min_u32 s20, s21, s22", 3, 9, false, 3, 1},
    {"max_i32", "s_max_i32 s20, s21, s22", uint32_t(-3), 9, false, 9, 0},
    {"cselect_taken", "s_cselect_b32 s20, s21, s22", 1, 2, true, 1, 1},
    {"cselect_not", "s_cselect_b32 s20, s21, s22", 1, 2, false, 2, 0},
    {"cmp_lg_u32", "s_cmp_lg_u32 s21, 0", 3, 0, false, 0, 1},
    {"cmp_lt_i32", "s_cmp_lt_i32 s21, s22", uint32_t(-1), 0, false, 0, 1},
    {"cmp_lt_u32", "s_cmp_lt_u32 s21, s22", uint32_t(-1), 0, true, 0, 0},
    {"cmpk_eq", "s_cmpk_eq_u32 s21, 0x1234", 0x1234, 0, false, 0, 1},
    {"bcnt1", "s_bcnt1_i32_b32 s20, s21", 0xf0f0u, 0, false, 8, 1},
    // s_bitset0/1 read-modify-write sdst and leave SCC alone; the bit index
    // is S0[4:0] (35 selects bit 3).
    {"bitset0", "s_mov_b32 s20, s21\n  s_bitset0_b32 s20, 31", 0xffffffffu, 0, true, 0x7fffffffu, 1},
    {"bitset1", "s_mov_b32 s20, s21\n  s_bitset1_b32 s20, s22", 0x10u, 35, false, 0x18u, 0},
    {"ff1", "s_ff1_i32_b32 s20, s21", 0x80u, 0, false, 7, 0},
    {"not_b32", "s_not_b32 s20, s21", 0, 0, false, 0xffffffffu, 1},
    {"sext_i16", "s_sext_i32_i16 s20, s21", 0x8001u, 0, false, 0xffff8001u, 0},
    {"lshl2_add", "s_lshl2_add_u32 s20, s21, s22", 3, 4, false, 16, 0},
    {"pack_ll", "s_pack_ll_b32_b16 s20, s21, s22", 0x1111aaaau, 0x2222bbbbu, false, 0xbbbbaaaau, 0},
    {"addk", "s_mov_b32 s20, 10\n s_addk_i32 s20, 0xfffe", 0, 0, false, 8, 0},
    {"and_b64", "s_and_b64 s[20:21], s[22:23], s[22:23]", 0x5, 0x3, false, 0x3, 1},
    {"lshl_b64", "s_lshl_b64 s[20:21], s[22:23], 4", 0x1, 0x80000001u, false, 0x10, 1},
    {"xor_b64_minus1", "s_xor_b64 s[20:21], s[22:23], -1", 0, 3, false, 0xfffffffcu, 1},
    {"mov_b64_literal", "s_mov_b64 s[20:21], 0x2100", 0, 0, false, 0x2100, 0},
};
std::string saluName(const ::testing::TestParamInfo<SaluCase> &info) { return info.param.name; }
INSTANTIATE_TEST_SUITE_P(Ops, EmuSalu, ::testing::ValuesIn(kSaluCases), saluName);

TEST(EmuSalu, Lshl64HighWord) {
  const auto r = runScalar("s_lshl_b64 s[20:21], s[22:23], 4", 0, 0x80000001u);
  EXPECT_EQ(r[0], 0x10u); // s[22:23] = {0x80000001, 0} << 4
  EXPECT_EQ(r[1], 0x8u);  // the high word receives the bits shifted out of s22
}

TEST(EmuSalu, AndSaveexec) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  v_cmp_gt_u32_e64 s[12:13], 10, v0
  s_and_saveexec_b64 s[14:15], s[12:13]
  s_cselect_b32 s16, 1, 0
  s_mov_b64 s[18:19], exec
  s_mov_b64 exec, s[14:15]
  v_mov_b32 v2, s18
  v_mov_b32 v3, s14
  v_mov_b32 v4, s16
  global_store_dword v1, v2, s[4:5]
  global_store_dword v1, v3, s[4:5] offset:256
  global_store_dword v1, v4, s[4:5] offset:512
)";
  Buffer out(192, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(out[0], 0x3ffu);        // new EXEC: lanes 0..9
  EXPECT_EQ(out[64], 0xffffffffu);  // saved EXEC
  EXPECT_EQ(out[128], 1u);          // SCC = EXEC != 0
}

} // namespace
} // namespace mxf::emu::test
