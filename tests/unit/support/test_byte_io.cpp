//===- test_byte_io.cpp - Little-endian writer and bounds-checked reader --===//

#include "support/byte_io.h"

#include <gtest/gtest.h>

namespace mxf {
namespace {

TEST(ByteIo, RoundTripsEveryWidthLittleEndian) {
  ByteWriter out;
  out.u8(0xAB);
  out.u16(0x1234);
  out.u32(0xDEADBEEF);
  out.u64(0x0123456789ABCDEFull);
  out.string("spec");
  ASSERT_EQ(out.size(), 1u + 2 + 4 + 8 + 4 + 4);
  EXPECT_EQ(out.bytes()[1], 0x34); // low byte first
  ByteReader in(out.bytes());
  EXPECT_EQ(in.u8("a"), 0xAB);
  EXPECT_EQ(in.u16("b"), 0x1234);
  EXPECT_EQ(in.u32("c"), 0xDEADBEEFu);
  EXPECT_EQ(in.u64("d"), 0x0123456789ABCDEFull);
  EXPECT_EQ(in.string("e", 16), "spec");
  EXPECT_TRUE(in.ok());
  EXPECT_EQ(in.remaining(), 0u);
}

TEST(ByteIo, ShortReadNamesTheFieldAndSticks) {
  ByteWriter out;
  out.u16(7);
  ByteReader in(out.bytes());
  EXPECT_EQ(in.u32("payload length"), 0u);
  EXPECT_FALSE(in.ok());
  EXPECT_EQ(in.error(), "payload length: needs 4 bytes at offset 0, only 2 remain");
  // Later reads neither move nor overwrite the first error.
  EXPECT_EQ(in.u8("other"), 0u);
  EXPECT_EQ(in.offset(), 0u);
  EXPECT_EQ(in.error(), "payload length: needs 4 bytes at offset 0, only 2 remain");
}

TEST(ByteIo, StringLongerThanItsLimitIsRejectedUnread) {
  ByteWriter out;
  out.u32(0xFFFFFFFF); // a damaged length must not allocate 4 GiB
  ByteReader in(out.bytes());
  EXPECT_EQ(in.string("spec", 4096), "");
  EXPECT_EQ(in.error(), "spec: length 4294967295 exceeds the limit of 4096");
}

TEST(ByteIo, PatchOverwritesInPlace) {
  ByteWriter out;
  out.u32(0);
  out.u64(0);
  out.patchU32(0, 0x01020304);
  out.patchU64(4, 0x1122334455667788ull);
  ByteReader in(out.bytes());
  EXPECT_EQ(in.u32("a"), 0x01020304u);
  EXPECT_EQ(in.u64("b"), 0x1122334455667788ull);
}

} // namespace
} // namespace mxf
