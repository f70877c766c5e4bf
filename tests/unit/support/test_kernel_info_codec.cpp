//===- test_kernel_info_codec.cpp - KernelInfo <-> bytes ------------------===//

#include "abi/kernel_info_codec.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <random>

namespace mxf {
namespace {

KernelInfo sampleInfo() {
  KernelInfo info;
  info.name = "mxf_rotate_quant_K4096";
  info.target = "amdgcn-amd-amdhsa--gfx950";
  info.codeObjectVersion = 5;
  info.kernargSize = 28;
  info.kernargAlign = 8;
  info.vgprCount = 39;
  info.sgprCount = 20;
  info.ldsBytes = 8192;
  info.maxWorkgroupSize = 256;
  info.args = {{"x", "global_buffer", "global", 0, 8},
               {"q", "global_buffer", "global", 8, 8},
               {"s", "global_buffer", "global", 16, 8},
               {"rows", "by_value", "", 24, 4}};
  return info;
}

TEST(KernelInfoCodec, RoundTrips) {
  ByteWriter out;
  encodeKernelInfo(out, sampleInfo());
  ByteReader in(out.bytes());
  KernelInfo back = decodeKernelInfo(in);
  ASSERT_TRUE(in.ok()) << in.error();
  EXPECT_EQ(back, sampleInfo());
  EXPECT_EQ(in.remaining(), 0u);
}

TEST(KernelInfoCodec, RejectsArgumentsOutsideTheKernarg) {
  KernelInfo info = sampleInfo();
  info.args[3].offset = 26; // 26 + 4 > 28
  ByteWriter out;
  encodeKernelInfo(out, info);
  ByteReader in(out.bytes());
  (void)decodeKernelInfo(in);
  EXPECT_EQ(in.error(),
            "argument 3 (offset 26, size 4) does not fit the kernarg segment of 28 bytes");
}

TEST(KernelInfoCodec, EveryTruncationAndRandomDamageFailsCleanly) {
  ByteWriter out;
  encodeKernelInfo(out, sampleInfo());
  const std::vector<uint8_t> &good = out.bytes();
  for (size_t length = 0; length < good.size(); ++length) {
    ByteReader in(good.data(), length);
    (void)decodeKernelInfo(in);
    ASSERT_FALSE(in.ok()) << "truncated to " << length;
  }
  std::mt19937_64 rng(testing::testSeed("KernelInfoCodec.EveryTruncationAndRandomDamageFailsCleanly"));
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<uint8_t> bytes = good;
    for (int flips = 1 + int(rng() % 4); flips > 0; --flips)
      bytes[rng() % bytes.size()] ^= uint8_t(1 + rng() % 255);
    ByteReader in(bytes);
    KernelInfo info = decodeKernelInfo(in);
    if (in.ok()) { // whatever decodes must satisfy the invariants
      for (const KernelArgInfo &arg : info.args)
        ASSERT_LE(uint64_t(arg.offset) + arg.size, info.kernargSize);
      ASSERT_TRUE(info.wavefrontSize == 32 || info.wavefrontSize == 64);
    }
  }
}

} // namespace
} // namespace mxf
