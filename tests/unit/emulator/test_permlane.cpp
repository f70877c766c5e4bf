//===- test_permlane.cpp - v_permlane16_swap_b32 / v_permlane32_swap_b32 --===//

#include "emu_harness.h"

#include <gtest/gtest.h>

namespace mxf::emu::test {
namespace {

/// Runs the swap on v2 = 1000 + lane, v3 = 2000 + lane; returns both.
std::pair<Buffer, Buffer> runSwap(const std::string &op, const std::string &pre = "") {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  v_add_u32 v2, 1000, v0
  v_add_u32 v3, 2000, v0
)" + pre + op + R"(
  s_mov_b64 exec, -1
  global_store_dword v1, v2, s[4:5]
  global_store_dword v1, v3, s[6:7]
)";
  Buffer a(64, 0), b(64, 0);
  auto stats = runAsm(k, {&a, &b});
  EXPECT_TRUE(stats.ok()) << stats.error();
  return {a, b};
}

TEST(EmuPermlane, Swap16) {
  auto [vdst, vsrc] = runSwap("v_permlane16_swap_b32 v2, v3");
  for (unsigned l = 0; l < 64; ++l) {
    const bool oddRow = (l / 16) % 2 == 1;
    // Odd 16-lane rows of vdst take the even rows of vsrc, and vice versa.
    EXPECT_EQ(vdst[l], oddRow ? 2000 + (l - 16) : 1000 + l) << l;
    EXPECT_EQ(vsrc[l], oddRow ? 2000 + l : 1000 + (l + 16)) << l;
  }
}

TEST(EmuPermlane, Swap32) {
  auto [vdst, vsrc] = runSwap("v_permlane32_swap_b32 v2, v3");
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(vdst[l], l >= 32 ? 2000 + (l - 32) : 1000 + l) << l;
    EXPECT_EQ(vsrc[l], l >= 32 ? 2000 + l : 1000 + (l + 32)) << l;
  }
}

TEST(EmuPermlane, Swap16Vop3Form) {
  auto [vdst, vsrc] = runSwap("v_permlane16_swap_b32_e64 v2, v3");
  EXPECT_EQ(vdst[16], 2000u);
  EXPECT_EQ(vsrc[0], 1016u);
}

TEST(EmuPermlane, TwoSwapsReduceAcrossFourLanes) {
  // The kernel pattern: max over lanes {t, t+16, t+32, t+48} via swaps.
  auto [vdst, vsrc] = runSwap(R"(
  v_mov_b32 v4, v2
  v_mov_b32 v5, v2
  v_permlane32_swap_b32 v4, v5
  v_max_u32 v6, v4, v5
  v_mov_b32 v7, v6
  v_permlane16_swap_b32 v6, v7
  v_max_u32 v2, v6, v7
)");
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(vdst[l], 1000 + 48 + l % 16) << l;
}

TEST(EmuPermlane, PartialExecIsAnError) {
  AsmKernel k;
  k.body = "  s_mov_b32 exec_lo, 0\n  v_permlane32_swap_b32 v2, v3\n";
  Buffer out(1, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("partial EXEC"), std::string::npos) << stats.error();
}

} // namespace
} // namespace mxf::emu::test
