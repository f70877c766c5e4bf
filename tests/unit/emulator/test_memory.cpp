//===- test_memory.cpp - Global and scalar memory, bounds checks ----------===//

#include "emu_harness.h"

#include <gtest/gtest.h>

namespace mxf::emu::test {
namespace {

TEST(EmuMemory, LoadStoreWidths) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  v_lshlrev_b32 v10, 4, v0
  global_load_dwordx4 v[12:15], v10, s[6:7]
  global_load_dwordx2 v[16:17], v10, s[6:7] offset:8
  global_load_ushort v18, v10, s[6:7] offset:2
  global_load_sshort v19, v10, s[6:7] offset:2
  global_load_ubyte v20, v10, s[6:7] offset:3
  global_load_sbyte v21, v10, s[6:7] offset:3
  s_waitcnt vmcnt(0)
  global_store_dwordx4 v10, v[12:15], s[4:5]
  v_add_u32 v10, 0x400, v10
  global_store_dwordx2 v10, v[16:17], s[4:5]
  global_store_dword v10, v18, s[4:5] offset:8
  global_store_dword v10, v19, s[4:5] offset:12
  v_add_u32 v10, 0x400, v10
  global_store_dword v10, v20, s[4:5]
  global_store_dword v10, v21, s[4:5] offset:4
)";
  Buffer in = lanes([](unsigned i) { return 0x9080f0e0u + i * 0x01010101u; }, 256);
  Buffer out(768, 0);
  auto stats = runAsm(k, {&out, &in});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l) {
    for (unsigned i = 0; i < 4; ++i)
      EXPECT_EQ(out[4 * l + i], in[4 * l + i]);
    EXPECT_EQ(out[256 + 4 * l], in[4 * l + 2]);
    EXPECT_EQ(out[256 + 4 * l + 1], in[4 * l + 3]);
    EXPECT_EQ(out[256 + 4 * l + 2], in[4 * l] >> 16);
    EXPECT_EQ(out[256 + 4 * l + 3], uint32_t(int32_t(int16_t(in[4 * l] >> 16))));
    EXPECT_EQ(out[512 + 4 * l], in[4 * l] >> 24);
    EXPECT_EQ(out[512 + 4 * l + 1], uint32_t(int32_t(int8_t(in[4 * l] >> 24))));
  }
  EXPECT_EQ(stats.value().globalBytesRead, 64u * (16 + 8 + 2 + 2 + 1 + 1) + 32);
  EXPECT_EQ(stats.value().globalBytesWritten, 64u * (16 + 8 + 4 + 4 + 4 + 4));
}

TEST(EmuMemory, VaddrOffFormWithNegativeOffset) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  v_mov_b32 v3, s5
  v_add_co_u32 v2, vcc, s4, v1
  v_addc_co_u32 v3, vcc, 0, v3, vcc
  v_add_co_u32 v2, vcc, 16, v2
  v_addc_co_u32 v3, vcc, 0, v3, vcc
  global_store_dword v[2:3], v0, off offset:-16
)";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], l);
}

TEST(EmuMemory, ByteAndShortStores) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  v_mov_b32 v2, 0x11223344
  v_lshlrev_b32 v3, 1, v0
  global_store_short v3, v2, s[4:5]
  global_store_byte v0, v2, s[6:7]
  global_store_short_d16_hi v3, v2, s[8:9]
)";
  Buffer a(32, 0), b(16, 0), c(32, 0);
  auto stats = runAsm(k, {&a, &b, &c});
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(a[0], 0x33443344u);
  EXPECT_EQ(b[0], 0x44444444u);
  EXPECT_EQ(c[5], 0x11221122u);
}

TEST(EmuMemory, OutOfBoundsStoreNamesLaneAndAddress) {
  AsmKernel k;
  k.body = std::string(kPrologue) + "  global_store_dword v1, v0, s[4:5]\n";
  Buffer out(60, 0); // lanes 60..63 fall outside
  auto stats = runAsm(k, {&out});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("lane 60"), std::string::npos) << stats.error();
  EXPECT_NE(stats.error().find("0x1000000f0"), std::string::npos) << stats.error();
  EXPECT_NE(stats.error().find("global_store_dword"), std::string::npos) << stats.error();
}

TEST(EmuMemory, OutOfBoundsLoadIsAnError) {
  AsmKernel k;
  k.body = std::string(kPrologue) + "  global_load_dword v2, v1, s[6:7] offset:4\n";
  Buffer out(64, 0), in(64, 0);
  auto stats = runAsm(k, {&out, &in});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("lane 63"), std::string::npos) << stats.error();
}

TEST(EmuMemory, InactiveLanesDoNotAccess) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  v_cmp_gt_u32_e64 s[12:13], 60, v0
  s_and_saveexec_b64 s[14:15], s[12:13]
  global_store_dword v1, v0, s[4:5]
  s_mov_b64 exec, s[14:15]
)";
  Buffer out(60, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(out[59], 59u);
  EXPECT_EQ(stats.value().globalBytesWritten, 240u);
}

TEST(EmuMemory, ScalarLoadsFromKernargAndBuffers) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  s_load_dwordx8 s[12:19], s[6:7], 0x0
  s_load_dword s20, s[6:7], 0x20
  s_mov_b32 s21, 4
  s_load_dword s21, s[6:7], s21
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v2, s19
  v_mov_b32 v3, s20
  v_mov_b32 v4, s21
  v_mov_b32 v5, 0
  global_store_dword v5, v2, s[4:5]
  global_store_dword v5, v3, s[4:5] offset:4
  global_store_dword v5, v4, s[4:5] offset:8
)";
  Buffer out(4, 0), in = lanes([](unsigned i) { return 100 + i; }, 16);
  auto stats = runAsm(k, {&out, &in});
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(out[0], 107u);
  EXPECT_EQ(out[1], 108u);
  EXPECT_EQ(out[2], 101u);
}

TEST(EmuMemory, ScalarLoadOutOfBounds) {
  AsmKernel k;
  k.body = std::string(kPrologue) + "  s_load_dwordx4 s[12:15], s[6:7], 0x8\n s_waitcnt lgkmcnt(0)\n";
  Buffer out(4, 0), in(4, 0);
  auto stats = runAsm(k, {&out, &in});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("s_load_dwordx4"), std::string::npos) << stats.error();
  EXPECT_NE(stats.error().find("outside every registered buffer"), std::string::npos);
}

TEST(EmuMemory, OverlappingBuffersAreRejected) {
  auto code = build(AsmKernel{});
  ASSERT_TRUE(code.ok()) << code.error();
  std::vector<uint8_t> a(64), b(64), kernargs(64, 0);
  auto stats = launch(*code.value(), "k", {1, 1, 1}, {64, 1, 1}, 0, kernargs,
                      {{0x1000, a.data(), 64}, {0x1020, b.data(), 64}});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("overlap"), std::string::npos) << stats.error();
}

} // namespace
} // namespace mxf::emu::test
