//===- test_mubuf.cpp - buffer_load/store through a resource descriptor ---===//
//
// Hand-computed results for the MUBUF addressing rules of emulator/mubuf.cpp:
// base + soffset + inst_offset + vaddr (OFFEN), index * stride (IDXEN), and
// the range check Triton's masked accesses rely on (out of range: loads
// give 0, stores are dropped; soffset is not part of the check).
//
//===----------------------------------------------------------------------===//

#include "emu_harness.h"

#include <gtest/gtest.h>

namespace mxf::emu::test {
namespace {

/// s[12:15] = a raw (stride 0) V# over buffer 0 with `numRecords` bytes;
/// the word3 flags are the ones Triton's gfx9 descriptors carry.
std::string rawDescriptor(uint32_t numRecords, uint32_t stride = 0) {
  return "  s_mov_b32 s12, s4\n  s_and_b32 s13, s5, 0xffff\n  s_or_b32 s13, s13, " +
         std::to_string(stride << 16) + "\n  s_mov_b32 s14, " + std::to_string(numRecords) +
         "\n  s_mov_b32 s15, 0x27000\n";
}

Buffer iota(unsigned n, uint32_t start) {
  return lanes([start](unsigned l) { return start + l; }, n);
}

TEST(EmuMubuf, LoadOffenWithInstOffsetAndSoffset) {
  AsmKernel k;
  // Lane l loads dword l + 3 of buffer 0: vaddr 4l, soffset 8, offset:4.
  k.body = std::string(kPrologue) + rawDescriptor(4 * 128) + R"(
  s_mov_b32 s16, 8
  buffer_load_dword v2, v1, s[12:15], s16 offen offset:4
  s_waitcnt vmcnt(0)
  global_store_dword v1, v2, s[6:7]
)";
  Buffer in = iota(128, 1000), out(64, 0);
  auto stats = runAsm(k, {&in, &out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l)
    ASSERT_EQ(out[l], 1000 + l + 3) << "lane " << l;
}

TEST(EmuMubuf, OutOfRangeLoadsGiveZeroPerDword) {
  AsmKernel k;
  // num_records = 40 bytes: lane l reads 16 bytes at 4l. Dwords at byte
  // offsets >= 40 are out of range and read 0, also inside a dwordx4 that
  // starts in range; lanes past 32 carry Triton's masked-off offset.
  k.body = std::string(kPrologue) + rawDescriptor(40) + R"(
  v_cmp_gt_u32 vcc, 32, v0
  v_mov_b32 v3, 0x80000000
  v_cndmask_b32 v3, v3, v1, vcc
  buffer_load_dwordx4 v[4:7], v3, s[12:15], 0 offen
  s_waitcnt vmcnt(0)
  v_lshlrev_b32 v8, 4, v0
  global_store_dwordx4 v8, v[4:7], s[6:7]
)";
  Buffer in = iota(64, 1), out(256, 0xdeadbeef);
  auto stats = runAsm(k, {&in, &out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned i = 0; i < 4; ++i) {
      const unsigned byte = 4 * l + 4 * i;
      const uint32_t expected = (l < 32 && byte < 40) ? 1 + l + i : 0;
      ASSERT_EQ(out[4 * l + i], expected) << "lane " << l << " dword " << i;
    }
}

TEST(EmuMubuf, OutOfRangeStoresAreDropped) {
  AsmKernel k;
  // Buffer 0 has 64 dwords but the V# covers 100 bytes (25 dwords): lanes
  // 25.. store nothing, and the bytes they would write keep their value.
  k.body = std::string(kPrologue) + rawDescriptor(100) + R"(
  v_add_u32 v2, 7, v0
  buffer_store_dword v2, v1, s[12:15], 0 offen
  buffer_store_byte v2, v1, s[12:15], 0 offen offset:2
  s_waitcnt vmcnt(0)
)";
  Buffer buf(64, 0xa5a5a5a5);
  auto stats = runAsm(k, {&buf});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t dword = 7 + l;
    const uint32_t expected = l < 25 ? (dword & 0xff00ffffu) | ((dword & 0xff) << 16) : 0xa5a5a5a5u;
    ASSERT_EQ(buf[l], expected) << "lane " << l;
  }
  EXPECT_EQ(stats.value().globalBytesWritten, 25u * 4 + 25u);
}

TEST(EmuMubuf, SoffsetIsNotRangeChecked) {
  AsmKernel k;
  // num_records 16: offsets 0..15 pass whatever soffset adds.
  k.body = std::string(kPrologue) + rawDescriptor(16) + R"(
  s_mov_b32 s16, 64
  v_and_b32 v3, 12, v1
  buffer_load_dword v2, v3, s[12:15], s16 offen
  s_waitcnt vmcnt(0)
  global_store_dword v1, v2, s[6:7]
)";
  Buffer in = iota(64, 0), out(64, 0);
  auto stats = runAsm(k, {&in, &out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l)
    ASSERT_EQ(out[l], 16 + (l & 3)) << "lane " << l;
}

TEST(EmuMubuf, IdxenWithStride) {
  AsmKernel k;
  // Records of 16 bytes, 5 of them: lane l reads dword 1 of record l;
  // records >= 5 are out of range, and so is offset 16 in any record.
  k.body = std::string(kPrologue) + rawDescriptor(5, 16) + R"(
  v_mov_b32 v3, v0
  buffer_load_dword v2, v3, s[12:15], 0 idxen offset:4
  buffer_load_dword v4, v3, s[12:15], 0 idxen offset:16
  s_waitcnt vmcnt(0)
  v_add_u32 v2, v2, v4
  global_store_dword v1, v2, s[6:7]
)";
  Buffer in = iota(64, 100), out(64, 1);
  auto stats = runAsm(k, {&in, &out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l)
    ASSERT_EQ(out[l], l < 5 ? 100 + 4 * l + 1 : 0u) << "lane " << l;
}

TEST(EmuMubuf, NarrowAndD16Loads) {
  AsmKernel k;
  k.body = std::string(kPrologue) + rawDescriptor(256) + R"(
  v_mov_b32 v2, 0x11112222
  v_mov_b32 v3, 0x33334444
  buffer_load_sbyte v4, v1, s[12:15], 0 offen
  buffer_load_ushort v5, v1, s[12:15], 0 offen offset:2
  buffer_load_short_d16_hi v2, v1, s[12:15], 0 offen
  buffer_load_ubyte_d16 v3, v1, s[12:15], 0 offen offset:1
  s_waitcnt vmcnt(0)
  v_xor_b32 v4, v4, v5
  v_xor_b32 v4, v4, v2
  v_xor_b32 v4, v4, v3
  global_store_dword v1, v4, s[6:7]
)";
  Buffer in = lanes([](unsigned l) { return 0x80f1c2b3u + l * 0x01010101u; }), out(64, 0);
  auto stats = runAsm(k, {&in, &out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t w = in[l];
    const uint32_t sbyte = uint32_t(int32_t(int8_t(w & 0xff)));
    const uint32_t ushort = w >> 16;
    const uint32_t hi = (w << 16) | 0x2222;
    const uint32_t lo = 0x33330000u | ((w >> 8) & 0xff);
    ASSERT_EQ(out[l], sbyte ^ ushort ^ hi ^ lo) << "lane " << l;
  }
}

TEST(EmuMubuf, InRangeButOutsideTheBuffersIsAnError) {
  AsmKernel k;
  // The V# claims 2 GiB (as Triton's do); lane 63 reads past buffer 0.
  k.body = std::string(kPrologue) + rawDescriptor(0x7ffffffe) + R"(
  v_add_u32 v3, 4, v1
  buffer_load_dword v2, v3, s[12:15], 0 offen
  s_waitcnt vmcnt(0)
  global_store_dword v1, v2, s[6:7]
)";
  Buffer in(64, 0), out(64, 0);
  auto stats = runAsm(k, {&in, &out});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("buffer_load_dword"), std::string::npos) << stats.error();
  EXPECT_NE(stats.error().find("lane 63"), std::string::npos) << stats.error();
}

TEST(EmuMubuf, SwizzledDescriptorsAreRefused) {
  AsmKernel k;
  k.body = std::string(kPrologue) + rawDescriptor(256) + R"(
  s_or_b32 s13, s13, 0x80000000
  buffer_load_dword v2, v1, s[12:15], 0 offen
  s_waitcnt vmcnt(0)
)";
  Buffer in(64, 0);
  auto stats = runAsm(k, {&in});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("swizzle"), std::string::npos) << stats.error();
}

} // namespace
} // namespace mxf::emu::test
