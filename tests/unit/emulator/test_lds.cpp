//===- test_lds.cpp - LDS reads, writes, transpose loads, lane shuffles ---===//

#include "emu_harness.h"

#include <gtest/gtest.h>

namespace mxf::emu::test {
namespace {

TEST(EmuLds, WriteReadB32B64B128) {
  AsmKernel k;
  k.lds = 4096;
  k.body = std::string(kPrologue) + R"(
  v_lshlrev_b32 v10, 4, v0
  v_add_u32 v12, 1000, v0
  v_add_u32 v13, 2000, v0
  v_add_u32 v14, 3000, v0
  v_add_u32 v15, 4000, v0
  ds_write_b128 v10, v[12:15]
  ds_read_b32 v20, v10 offset:4
  ds_read_b64 v[22:23], v10 offset:8
  ds_read_b128 v[24:27], v10
  s_waitcnt lgkmcnt(0)
  v_add_u32 v2, v20, v22
  v_add_u32 v2, v2, v23
  v_add_u32 v2, v2, v24
  v_add_u32 v2, v2, v27
  global_store_dword v1, v2, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], (2000 + l) + (3000 + l) + (4000 + l) + (1000 + l) + (4000 + l));
  EXPECT_EQ(stats.value().ldsBytesWritten, 64u * 16);
  EXPECT_EQ(stats.value().ldsBytesRead, 64u * (4 + 8 + 16));
}

TEST(EmuLds, Read2Write2AndNarrow) {
  AsmKernel k;
  k.lds = 2048;
  k.body = std::string(kPrologue) + R"(
  v_lshlrev_b32 v10, 3, v0
  v_mov_b32 v11, 0xfffe8081
  ds_write2_b32 v10, v0, v11 offset0:0 offset1:1
  ds_read2_b32 v[12:13], v10 offset0:1 offset1:0
  ds_read_i8 v14, v10 offset:4
  ds_read_u16 v15, v10 offset:6
  ds_read_i16 v16, v10 offset:4
  s_waitcnt lgkmcnt(0)
  v_xor_b32 v2, v12, v13
  v_add_u32 v2, v2, v14
  v_add_u32 v2, v2, v15
  v_add_u32 v2, v2, v16
  global_store_dword v1, v2, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], (0xfffe8081u ^ l) + 0xffffff81u + 0xfffeu + 0xffff8081u) << l;
}

// st64: offsets in units of 64 elements (256 bytes for b32); a read2 whose
// destination overlaps its address register still reads both addresses
// (ds_read2st64_b32 v[10:11], v10: the first result must not move the
// second address).
// ds_write_b8_d16_hi stores bits [23:16] of the data (Triton packs bytes
// this way); ds_write_b16_d16_hi bits [31:16]. The other LDS bytes keep
// what was there.
TEST(EmuLds, WriteD16HiStoresTheHighByteOrHalf) {
  AsmKernel k;
  k.lds = 1024;
  k.body = std::string(kPrologue) + R"(
  v_lshlrev_b32 v10, 3, v0
  v_mov_b32 v12, 0
  v_mov_b32 v13, 0
  ds_write_b64 v10, v[12:13]
  v_lshlrev_b32 v14, 24, v0
  v_or_b32 v14, 0xab0000, v14
  v_or_b32 v14, 0xcd, v14
  ds_write_b8_d16_hi v10, v14 offset:1
  ds_write_b16_d16_hi v10, v14 offset:4
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v2, v10
  ds_read_b32 v3, v10 offset:4
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5]
  global_store_dword v1, v3, s[6:7]
)";
  Buffer lo(64, 0), hi(64, 0);
  auto stats = runAsm(k, {&lo, &hi});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(lo[l], 0xab00u) << l;
    EXPECT_EQ(hi[l], (l << 8) | 0xabu) << l;
  }
}

TEST(EmuLds, Read2St64Write2St64AndAnOverlappingAddress) {
  AsmKernel k;
  k.lds = 4096;
  k.body = std::string(kPrologue) + R"(
  v_lshlrev_b32 v10, 2, v0
  v_add_u32 v11, 500, v0
  v_add_u32 v12, 900, v0
  ds_write2st64_b32 v10, v11, v12 offset0:1 offset1:5
  s_waitcnt lgkmcnt(0)
  ds_read2st64_b32 v[10:11], v10 offset0:1 offset1:5
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v2, 16, v11
  v_or_b32 v2, v2, v10
  global_store_dword v1, v2, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], ((900 + l) << 16) | (500 + l)) << l;
}

// ds_add_u32 from every lane to 4 counters: each gets 16 adds of its lanes'
// values, whatever the order; the returning form gives each lane the value
// before its own add, in lane order.
TEST(EmuLds, AddU32CountsAndReturnsTheOldValue) {
  AsmKernel k;
  k.lds = 256;
  k.body = std::string(kPrologue) + R"(
  v_mov_b32 v10, 0
  v_and_b32 v11, 3, v0
  v_lshlrev_b32 v11, 2, v11
  ds_write_b32 v11, v10
  s_waitcnt lgkmcnt(0)
  v_add_u32 v12, 1, v0
  ds_add_u32 v11, v12
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v13, 1
  ds_add_rtn_u32 v14, v11, v13 offset:0
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v15, v11
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v2, 16, v14
  v_or_b32 v2, v2, v15
  global_store_dword v1, v2, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l) {
    const unsigned counter = l % 4;
    unsigned sum = 0; // lanes counter, counter + 4, ...: sum of (lane + 1)
    for (unsigned j = counter; j < 64; j += 4)
      sum += j + 1;
    EXPECT_EQ(out[l] & 0xFFFF, sum + 16) << l;            // then 16 returning adds of 1
    EXPECT_EQ(out[l] >> 16, sum + l / 4) << l;            // lanes before l on its counter
  }
}

// A workgroup's LDS starts as the poison pattern, not zeros (the hardware
// gives no zeros either): a kernel that reads before writing shows it.
TEST(EmuLds, LdsStartsPoisoned) {
  AsmKernel k;
  k.lds = 256;
  k.body = std::string(kPrologue) + R"(
  v_lshlrev_b32 v10, 2, v0
  ds_read_b32 v2, v10
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], 0xE7E7E7E7u) << l;
}

TEST(EmuLds, OutOfRangeIsAnError) {
  AsmKernel k;
  k.lds = 256;
  k.body = std::string(kPrologue) + "  ds_write_b32 v1, v0 offset:4\n";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("lane 63"), std::string::npos) << stats.error();
  EXPECT_NE(stats.error().find("LDS address 0x100"), std::string::npos) << stats.error();
}

TEST(EmuLds, DynamicLdsExtendsTheSegment) {
  AsmKernel k;
  k.lds = 256;
  k.body = std::string(kPrologue) + "  ds_write_b32 v1, v0 offset:4\n";
  Buffer out(64, 0);
  auto code = build(k);
  ASSERT_TRUE(code.ok()) << code.error();
  auto stats = run(*code.value(), {&out}, {1, 1, 1}, {64, 1, 1}, /*dynamicLds=*/256);
  EXPECT_TRUE(stats.ok()) << stats.error();
}

/// §C7: lane t of each 16-lane group gets element j from lane 4j + (t >> 2),
/// its element t & 3.
TEST(EmuLds, ReadB64TrB16FollowsTheExchangeFormula) {
  AsmKernel k;
  k.lds = 1024;
  k.body = std::string(kPrologue) + R"(
  v_lshlrev_b32 v10, 3, v0
  v_lshlrev_b32 v12, 2, v0
  v_or_b32 v12, v12, 0
  v_add_u32 v13, 1, v12
  v_add_u32 v14, 2, v12
  v_add_u32 v15, 3, v12
  v_lshl_or_b32 v16, v13, 16, v12
  v_lshl_or_b32 v17, v15, 16, v14
  ds_write_b64 v10, v[16:17]
  s_waitcnt lgkmcnt(0)
  ds_read_b64_tr_b16 v[20:21], v10
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v11, 3, v0
  global_store_dwordx2 v11, v[20:21], s[4:5]
)";
  Buffer out(128, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  // Lane s wrote elements e = 0..3 with value 4s + e.
  for (unsigned lane = 0; lane < 64; ++lane) {
    const unsigned g = lane / 16, t = lane % 16;
    for (unsigned j = 0; j < 4; ++j) {
      const unsigned s = 16 * g + 4 * j + (t >> 2), e = t & 3;
      const uint32_t got = (out[2 * lane + j / 2] >> (16 * (j % 2))) & 0xffff;
      EXPECT_EQ(got, 4 * s + e) << "lane " << lane << " element " << j;
    }
  }
}

TEST(EmuLds, ReadB64TrB8FollowsTheExchangeFormula) {
  AsmKernel k;
  k.lds = 1024;
  k.body = std::string(kPrologue) + R"(
  v_lshlrev_b32 v10, 3, v0
  v_mov_b32 v12, 0x03020100
  v_mov_b32 v13, 0x07060504
  v_lshlrev_b32 v14, 3, v0
  s_mov_b32 s12, 0x01010101
  v_mul_lo_u32 v14, s12, v14
  v_add_u32 v12, v12, v14
  v_add_u32 v13, v13, v14
  ds_write_b64 v10, v[12:13]
  s_waitcnt lgkmcnt(0)
  ds_read_b64_tr_b8 v[20:21], v10
  s_waitcnt lgkmcnt(0)
  global_store_dwordx2 v10, v[20:21], s[4:5]
)";
  Buffer out(128, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned lane = 0; lane < 64; ++lane) {
    const unsigned g = lane / 16, t = lane % 16;
    for (unsigned j = 0; j < 8; ++j) {
      const unsigned s = 16 * g + 2 * j + (t >> 3), e = t & 7;
      const uint32_t got = (out[2 * lane + j / 4] >> (8 * (j % 4))) & 0xff;
      const uint32_t word = (e < 4 ? 0x03020100u : 0x07060504u) + 8u * s * 0x01010101u;
      EXPECT_EQ(got, (word >> (8 * (e % 4))) & 0xff) << "lane " << lane << " element " << j;
    }
  }
}

TEST(EmuLds, TransposeLoadNeedsFullExec) {
  AsmKernel k;
  k.lds = 1024;
  k.body = R"(
  v_lshlrev_b32 v10, 3, v0
  s_mov_b32 exec_hi, 0
  ds_read_b64_tr_b16 v[20:21], v10
)";
  Buffer out(1, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("EXEC all ones"), std::string::npos) << stats.error();
}

TEST(EmuLds, Bpermute) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  v_xor_b32 v2, 5, v0
  v_lshlrev_b32 v2, 2, v2
  v_mul_u32_u24 v3, 3, v0
  ds_bpermute_b32 v4, v2, v3
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v4, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], 3 * (l ^ 5)) << l;
}

} // namespace
} // namespace mxf::emu::test
