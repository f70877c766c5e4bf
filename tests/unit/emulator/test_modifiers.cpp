//===- test_modifiers.cpp - SDWA, DPP, VOP3 op_sel and source modifiers ---===//

#include "emu_harness.h"

#include "emulator/operands.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mxf::emu::test {
namespace {

/// v4 gets a copy of b; the modifier cases read only v2 and v3.
Buffer runOp(const std::string &op, const Buffer &a, const Buffer &b, Buffer init) {
  return runLaneOp(op, a, b, b, std::move(init));
}

Buffer words(uint32_t seed) {
  return lanes([seed](unsigned l) { return (0x87654321u * (l + seed)) ^ (l << 7) ^ 0x80808080u; });
}

struct SdwaCase {
  const char *name;
  const char *op;
  uint32_t (*ref)(uint32_t a, uint32_t b, uint32_t old);
};
class EmuSdwa : public ::testing::TestWithParam<SdwaCase> {};

TEST_P(EmuSdwa, SelectsAndPlaces) {
  const SdwaCase &c = GetParam();
  const Buffer a = words(1), b = words(2), init = words(3);
  const Buffer out = runOp(c.op, a, b, init);
  for (unsigned l = 0; l < 64; ++l)
    ASSERT_EQ(out[l], c.ref(a[l], b[l], init[l])) << c.op << " lane " << l;
}

const SdwaCase kSdwaCases[] = {
    {"or_src0_word1", "v_or_b32_sdwa v5, v2, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD",
     [](uint32_t a, uint32_t b, uint32_t) { return (a >> 16) | b; }},
    {"or_src1_byte2", "v_or_b32_sdwa v5, v2, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:BYTE_2",
     [](uint32_t a, uint32_t b, uint32_t) { return a | ((b >> 16) & 0xff); }},
    {"lshr_dst_byte1_pad", "v_lshrrev_b32_sdwa v5, v2, v3 dst_sel:BYTE_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD",
     [](uint32_t a, uint32_t b, uint32_t) { return ((b >> (a & 31)) & 0xff) << 8; }},
    {"or_dst_word1_preserve", "v_or_b32_sdwa v5, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0 src1_sel:WORD_0",
     [](uint32_t a, uint32_t b, uint32_t old) { return (old & 0xffff) | (((a | b) & 0xffff) << 16); }},
    {"mov_sext_byte3", "v_mov_b32_sdwa v5, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_3",
     [](uint32_t a, uint32_t, uint32_t) { return a >> 24; }},
    {"add_sext", "v_add_u32_sdwa v5, sext(v2), v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD",
     [](uint32_t a, uint32_t b, uint32_t) { return uint32_t(int32_t(int8_t(a))) + b; }},
    {"dst_word0_sext", "v_mov_b32_sdwa v5, v2 dst_sel:WORD_0 dst_unused:UNUSED_SEXT src0_sel:WORD_1",
     [](uint32_t a, uint32_t, uint32_t) { return uint32_t(int32_t(int16_t(a >> 16))); }},
};
std::string sdwaName(const ::testing::TestParamInfo<SdwaCase> &info) { return info.param.name; }
INSTANTIATE_TEST_SUITE_P(Forms, EmuSdwa, ::testing::ValuesIn(kSdwaCases), sdwaName);

TEST(EmuSdwaHelpers, SelectAndDest) {
  EXPECT_EQ(sdwaSelect(0x80ff7f01u, 1, false), 0x7fu);
  EXPECT_EQ(sdwaSelect(0x80ff7f01u, 3, true), 0xffffff80u);
  EXPECT_EQ(sdwaSelect(0x80ff7f01u, 5, false), 0x80ffu);
  EXPECT_EQ(sdwaDest(0x11223344u, 0xab, 2, 2), 0x11ab3344u);
  EXPECT_EQ(sdwaDest(0x11223344u, 0xab, 2, 0), 0x00ab0000u);
  EXPECT_EQ(sdwaDest(0x11223344u, 0x80, 1, 1), 0xffff8000u);
}

TEST(EmuDpp, QuadPerm) {
  const Buffer a = words(4), init(64, 7);
  const Buffer out = runOp("v_mov_b32_dpp v5, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", a, a, init);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], a[l ^ 1]) << l;
}

TEST(EmuDpp, RowShrWithoutBoundCtrlKeepsOldValue) {
  const Buffer a = words(5), init(64, 7);
  const Buffer out = runOp("v_mov_b32_dpp v5, v2 row_shr:1 row_mask:0xf bank_mask:0xf", a, a, init);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], l % 16 == 0 ? 7u : a[l - 1]) << l;
}

TEST(EmuDpp, RowShrBoundCtrlReadsZero) {
  const Buffer a = words(6), init(64, 7);
  const Buffer out =
      runOp("v_mov_b32_dpp v5, v2 row_shr:2 row_mask:0xf bank_mask:0xf bound_ctrl:1", a, a, init);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], l % 16 < 2 ? 0u : a[l - 2]) << l;
}

TEST(EmuDpp, RowMaskDisablesRows) {
  const Buffer a = words(7), b = words(8), init(64, 7);
  const Buffer out =
      runOp("v_add_u32_dpp v5, v2, v3 row_mirror row_mask:0x5 bank_mask:0xf", a, b, init);
  for (unsigned l = 0; l < 64; ++l) {
    const unsigned row = l / 16;
    const uint32_t want = (row == 0 || row == 2) ? a[row * 16 + 15 - l % 16] + b[l] : 7u;
    EXPECT_EQ(out[l], want) << l;
  }
}

TEST(EmuModifiers, Vop3NegAbsOnF32) {
  const Buffer a = lanes([](unsigned l) { return bits(float(l) - 32.0f); });
  const Buffer b = lanes([](unsigned l) { return bits(0.25f * float(l % 5) - 0.5f); });
  const Buffer out = runOp("v_add_f32_e64 v5, -|v2|, -v3", a, b, Buffer(64, 0));
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(flt(out[l]), -std::fabs(flt(a[l])) - flt(b[l])) << l;
}

TEST(EmuModifiers, CndmaskVop3AbsNeg) {
  const Buffer a = lanes([](unsigned l) { return bits(-float(l)); });
  const Buffer out = runOp("v_cndmask_b32_e64 v5, v2, |v2|, exec", a, a, Buffer(64, 0));
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(flt(out[l]), float(l)) << l;
}

TEST(EmuModifiers, ClampOnUnmodelledIntegerOpIsAnError) {
  AsmKernel k;
  k.body = "v_mad_u32_u24 v2, v0, v0, v0 clamp";
  Buffer out(64);
  auto stats = runAsm(k, {&out});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("clamp"), std::string::npos) << stats.error();
}

} // namespace
} // namespace mxf::emu::test
