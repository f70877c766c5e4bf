//===- test_launch.cpp - Determinism, threads and statistics --------------===//

#include "emu_harness.h"

#include <gtest/gtest.h>

#include <cstring>

namespace mxf::emu::test {
namespace {

/// A kernel that does some of everything: each workgroup sums its slice
/// through LDS and writes one value per work-item.
AsmKernel mixedKernel() {
  AsmKernel k;
  k.lds = 1024;
  k.body = std::string(kPrologue) + R"(
  s_lshl_b32 s12, s2, 10
  v_add_u32 v2, s12, v1
  global_load_dword v3, v2, s[6:7]
  s_waitcnt vmcnt(0)
  v_mul_lo_u32 v3, v3, v3
  v_and_b32 v4, 0xff, v0
  v_lshlrev_b32 v4, 2, v4
  ds_write_b32 v4, v3
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_xor_b32 v5, 4, v4
  ds_read_b32 v6, v5
  s_waitcnt lgkmcnt(0)
  v_add_u32 v6, v6, v3
  global_store_dword v2, v6, s[4:5]
)";
  return k;
}

TEST(EmuLaunch, ResultsDoNotDependOnTheThreadCount) {
  auto code = build(mixedKernel());
  ASSERT_TRUE(code.ok()) << code.error();
  Buffer in = lanes([](unsigned i) { return i * 2654435761u; }, 256 * 16);
  Buffer out1(256 * 16, 0), out4(256 * 16, 0);
  auto s1 = run(*code.value(), {&out1, &in}, {16, 1, 1}, {256, 1, 1}, 0, 1);
  auto s4 = run(*code.value(), {&out4, &in}, {16, 1, 1}, {256, 1, 1}, 0, 4);
  ASSERT_TRUE(s1.ok()) << s1.error();
  ASSERT_TRUE(s4.ok()) << s4.error();
  EXPECT_EQ(out1, out4);
  EXPECT_EQ(s1.value().instructionsByFamily, s4.value().instructionsByFamily);
  EXPECT_EQ(s1.value().globalBytesRead, s4.value().globalBytesRead);
  for (unsigned i = 0; i < 256 * 16; ++i) {
    const unsigned group = i / 256, local = i % 256, other = local ^ 1;
    const uint32_t mine = in[i] * in[i], theirs = in[group * 256 + other] * in[group * 256 + other];
    ASSERT_EQ(out1[i], mine + theirs) << i;
  }
}

TEST(EmuLaunch, StatisticsByFamily) {
  auto code = build(mixedKernel());
  ASSERT_TRUE(code.ok()) << code.error();
  Buffer in(256 * 2, 1), out(256 * 2, 0);
  auto s = run(*code.value(), {&out, &in}, {2, 1, 1}, {256, 1, 1}, 0, 2);
  ASSERT_TRUE(s.ok()) << s.error();
  const LaunchStats &st = s.value();
  EXPECT_EQ(st.waves, 8u);
  EXPECT_EQ(st.workgroups, 2u);
  EXPECT_EQ(st.count(Family::Smem), 2u * 8);
  EXPECT_EQ(st.count(Family::Vmem), 2u * 8);
  EXPECT_EQ(st.count(Family::Lds), 2u * 8);
  EXPECT_EQ(st.count(Family::Mfma), 0u);
  EXPECT_EQ(st.globalBytesRead, 8u * (32 + 256));
  EXPECT_EQ(st.globalBytesWritten, 8u * 256);
  EXPECT_EQ(st.ldsBytesRead, 8u * 256);
  EXPECT_EQ(st.ldsBytesWritten, 8u * 256);
  EXPECT_EQ(st.peakVgprIndex, 6);
  EXPECT_EQ(st.instructions(), st.count(Family::Salu) + st.count(Family::Valu) +
                                   st.count(Family::Vmem) + st.count(Family::Smem) +
                                   st.count(Family::Lds) + st.count(Family::Other) +
                                   st.count(Family::Branch) + st.count(Family::Mfma) +
                                   st.count(Family::CvtScaled));
  EXPECT_STREQ(familyName(Family::CvtScaled), "cvt-scaled");
}

TEST(EmuLaunch, LowestFailingWorkgroupIsReported) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  s_lshl_b32 s12, s2, 8
  v_add_u32 v2, s12, v1
  global_store_dword v2, v0, s[4:5]
)";
  auto code = build(k);
  ASSERT_TRUE(code.ok()) << code.error();
  Buffer out(64 * 5, 0); // workgroups 5.. fail
  for (unsigned threads : {1u, 3u, 8u}) {
    auto s = run(*code.value(), {&out}, {12, 1, 1}, {64, 1, 1}, 0, threads);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().find("workgroup (5,0,0)"), std::string::npos) << s.error();
  }
}

// An engine's packed launch with a wrong grid (grid.y = 2^32 - 1) kept the
// emulator busy for hours even though every workgroup past the buffer would
// fail: a launch over the limit is refused before any workgroup runs.
TEST(EmuLaunch, AbsurdGridsAreRefusedBeforeAnythingRuns) {
  auto code = build(mixedKernel());
  ASSERT_TRUE(code.ok()) << code.error();
  Buffer in(256, 3), out(256, 0xAAAAAAAAu);
  auto s = run(*code.value(), {&out, &in}, {2, 0xFFFFFFFFu, 1}, {256, 1, 1});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("2x4294967295x1 = 8589934590 workgroups exceeds the emulator's limit "
                           "of 16777216"),
            std::string::npos)
      << s.error();
  EXPECT_EQ(out[0], 0xAAAAAAAAu) << "nothing may run";

  // The limit is an option; a grid of exactly the limit runs.
  std::vector<EmuBuffer> buffers = {{bufferAddress(0), out.data(), out.size() * 4},
                                    {bufferAddress(1), in.data(), in.size() * 4}};
  std::vector<uint8_t> kernargs(64, 0);
  for (unsigned i = 0; i < 2; ++i) {
    const uint64_t address = bufferAddress(i);
    std::memcpy(kernargs.data() + 8 * i, &address, 8);
  }
  LaunchOptions options;
  options.threads = 1;
  options.maxWorkgroups = 1;
  EXPECT_TRUE(launch(*code.value(), "k", {1, 1, 1}, {256, 1, 1}, 0, kernargs, buffers, options).ok());
  auto refused = launch(*code.value(), "k", {1, 2, 1}, {256, 1, 1}, 0, kernargs, buffers, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("limit of 1 per launch"), std::string::npos) << refused.error();
}

TEST(EmuLaunch, LoadedCodeObjectIsReusable) {
  auto code = build(mixedKernel());
  ASSERT_TRUE(code.ok()) << code.error();
  Buffer in(256, 3), out(256, 0);
  for (int i = 0; i < 3; ++i) {
    auto s = run(*code.value(), {&out, &in}, {1, 1, 1}, {256, 1, 1});
    ASSERT_TRUE(s.ok()) << s.error();
    EXPECT_EQ(out[7], 18u);
  }
}

// Registers start as garbage on the hardware: a kernel that reads a VGPR or
// SGPR it never wrote must not see a convenient 0. The emulator fills them
// with a poison pattern; only what the dispatch defines (v0's work-item ids,
// the kernarg pointer, EXEC) holds a value.
TEST(EmuLaunch, UnwrittenRegistersHoldPoisonNotZero) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  v_mov_b32 v2, v7
  v_mov_b32 v3, s20
  v_mov_b32 v4, vcc_lo
  v_mov_b32 v5, m0
  v_lshlrev_b32 v6, 2, v1
  global_store_dwordx4 v6, v[2:5], s[4:5]
)";
  Buffer out(256, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned lane = 0; lane < 64; ++lane)
    for (unsigned i = 0; i < 4; ++i)
      ASSERT_EQ(out[lane * 4 + i], 0xE7E7E7E7u) << "lane " << lane << " register " << i;
}

} // namespace
} // namespace mxf::emu::test
