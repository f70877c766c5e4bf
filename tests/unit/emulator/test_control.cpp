//===- test_control.cpp - Branches, EXEC flow, barriers, errors -----------===//

#include "emu_harness.h"

#include <gtest/gtest.h>

namespace mxf::emu::test {
namespace {

TEST(EmuControl, ScalarLoop) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  s_mov_b32 s12, 0
  s_mov_b32 s13, 10
.Lloop:
  s_add_u32 s12, s12, s13
  s_sub_u32 s13, s13, 1
  s_cmp_lg_u32 s13, 0
  s_cbranch_scc1 .Lloop
  v_mov_b32 v2, s12
  global_store_dword v1, v2, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(out[5], 55u);
  EXPECT_EQ(stats.value().count(Family::Branch), 10u);
}

TEST(EmuControl, DivergentIfElseWithSaveexec) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  v_mov_b32 v2, 0
  v_and_b32 v3, 1, v0
  v_cmp_eq_u32_e32 vcc, 0, v3
  s_and_saveexec_b64 s[12:13], vcc
  s_cbranch_execz .Lelse
  v_mov_b32 v2, 100
.Lelse:
  s_andn2_b64 exec, s[12:13], exec
  s_cbranch_execz .Lend
  v_mov_b32 v2, 200
.Lend:
  s_or_b64 exec, exec, s[12:13]
  global_store_dword v1, v2, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], l % 2 ? 200u : 100u) << l;
}

TEST(EmuControl, ExeczSkipsAllInactive) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  v_mov_b32 v2, 1
  s_mov_b64 s[12:13], exec
  s_mov_b64 exec, 0
  s_cbranch_execz .Lskip
  s_mov_b64 exec, s[12:13]
  v_mov_b32 v2, 2
.Lskip:
  s_mov_b64 exec, s[12:13]
  global_store_dword v1, v2, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(out[0], 1u);
}

TEST(EmuControl, VccBranches) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  v_mov_b32 v2, 0
  v_cmp_gt_u32_e32 vcc, 0, v0
  s_cbranch_vccz .La
  v_or_b32 v2, 1, v2
.La:
  v_cmp_eq_u32_e32 vcc, 3, v0
  s_cbranch_vccnz .Lb
  v_or_b32 v2, 2, v2
.Lb:
  s_branch .Lc
  v_or_b32 v2, 4, v2
.Lc:
  global_store_dword v1, v2, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(out[0], 0u);
}

TEST(EmuControl, BarrierOrdersLdsAcrossWaves) {
  // Each wave writes its slice, then (after the barrier) reads another
  // wave's slice: without the barrier the first wave would read zeros.
  AsmKernel k;
  k.lds = 1024;
  k.body = std::string(kPrologue) + R"(
  v_lshlrev_b32 v2, 2, v0
  v_add_u32 v3, 7, v0
  ds_write_b32 v2, v3
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_add_u32 v4, 64, v0
  v_and_b32 v4, 0xff, v4
  v_lshlrev_b32 v4, 2, v4
  ds_read_b32 v5, v4
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v6, 2, v0
  global_store_dword v6, v5, s[4:5]
)";
  Buffer out(256, 0);
  auto stats = runAsm(k, {&out}, {1, 1, 1}, {256, 1, 1});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned i = 0; i < 256; ++i)
    EXPECT_EQ(out[i], ((i + 64) & 0xff) + 7) << i;
  EXPECT_EQ(stats.value().waves, 4u);
}

TEST(EmuControl, BarrierWithAnEndedWave) {
  AsmKernel k;
  k.lds = 1024;
  k.body = std::string(kPrologue) + R"(
  s_cmp_eq_u32 s2, 0
  v_readfirstlane_b32 s12, v0
  s_cmp_eq_u32 s12, 0
  s_cbranch_scc1 .Lfirst
  s_endpgm
.Lfirst:
  s_barrier
  global_store_dword v1, v0, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out}, {1, 1, 1}, {128, 1, 1});
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(out[9], 9u);
}

TEST(EmuControl, UnknownInstructionStopsWithItsText) {
  AsmKernel k;
  k.body = "  v_sin_f32 v2, v0\n";
  Buffer out(1, 0);
  auto code = build(k);
  ASSERT_TRUE(code.ok()) << code.error();
  const auto unsupported = code.value()->unsupportedInstructions("k");
  ASSERT_EQ(unsupported.size(), 1u);
  EXPECT_NE(unsupported[0].find("v_sin_f32"), std::string::npos);
  auto stats = run(*code.value(), {&out});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("v_sin_f32_e32 v2, v0"), std::string::npos) << stats.error();
  EXPECT_NE(stats.error().find("no semantics"), std::string::npos) << stats.error();
  EXPECT_NE(stats.error().find(" at 0x"), std::string::npos) << stats.error();
}

TEST(EmuControl, TrapIsAnError) {
  AsmKernel k;
  k.body = "  s_trap 2\n";
  Buffer out(1, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("s_trap"), std::string::npos) << stats.error();
}

TEST(EmuControl, InfiniteLoopHitsTheGuard) {
  AsmKernel k;
  k.body = ".Lforever:\n  s_branch .Lforever\n";
  auto code = build(k);
  ASSERT_TRUE(code.ok()) << code.error();
  std::vector<uint8_t> kernargs(64, 0);
  LaunchOptions options;
  options.maxInstructionsPerWave = 1000;
  auto stats = launch(*code.value(), "k", {1, 1, 1}, {64, 1, 1}, 0, kernargs, {}, options);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("exceeded 1000"), std::string::npos) << stats.error();
}

TEST(EmuControl, TimingInstructionsAreNoOps) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  s_nop 7
  s_setprio 2
  s_sleep 1
  s_waitcnt vmcnt(0) lgkmcnt(0)
  global_store_dword v1, v0, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(out[63], 63u);
  EXPECT_GE(stats.value().count(Family::Other), 5u);
}

} // namespace
} // namespace mxf::emu::test
