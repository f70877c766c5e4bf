//===- test_launch_record.cpp - Launch records: grids, checks, bytes ------===//

#include "abi/launch_record.h"

#include <gtest/gtest.h>

namespace mxf {
namespace {

LaunchRecord sample() {
  LaunchRecord record;
  record.workgroupSize = 256;
  record.gridX = 16;
  record.rowsPerWorkgroup = 16;
  record.maxRows = 256;
  return record;
}

TEST(LaunchRecord, GridsFollowMAndThePadding) {
  LaunchRecord record = sample();
  EXPECT_EQ(record.gridFor(1), (std::array<uint32_t, 3>{16, 1, 1}));
  EXPECT_EQ(record.gridFor(16), (std::array<uint32_t, 3>{16, 1, 1}));
  EXPECT_EQ(record.gridFor(17), (std::array<uint32_t, 3>{16, 2, 1}));
  record.rowPadding = 256;
  EXPECT_EQ(record.gridFor(1)[1], 16u);
  EXPECT_EQ(record.gridFor(257)[1], 32u);
  EXPECT_EQ(record.describe(),
            "workgroup 256, grid (16, ceil(pad256(m)/16), 1), LDS 0 B, 1 <= m <= 256, ABI 2");
}

TEST(LaunchRecord, RowsOutsideTheLimitAreNamed) {
  const LaunchRecord record = sample();
  EXPECT_TRUE(record.checkRows(1).ok());
  EXPECT_TRUE(record.checkRows(256).ok());
  EXPECT_EQ(record.checkRows(0).message(),
            "m=0 is outside 1..256 (the rows this code object serves)");
  EXPECT_EQ(record.checkRows(257).message(),
            "m=257 is outside 1..256 (the rows this code object serves)");
}

TEST(LaunchRecord, ValidationNamesTheField) {
  auto message = [](void (*damage)(LaunchRecord &)) {
    LaunchRecord record = sample();
    damage(record);
    return record.validate().message();
  };
  EXPECT_TRUE(sample().validate().ok());
  EXPECT_EQ(message([](LaunchRecord &r) { r.abiVersion = 1; }),
            "launch record: kernel ABI 1, this runtime launches ABI 2");
  EXPECT_NE(message([](LaunchRecord &r) { r.workgroupSize = 100; }).find("workgroup size 100"),
            std::string::npos);
  EXPECT_NE(message([](LaunchRecord &r) { r.workgroupSize = 2048; }).find("workgroup size 2048"),
            std::string::npos);
  EXPECT_NE(message([](LaunchRecord &r) { r.gridX = 0; }).find("grid x is 0"), std::string::npos);
  EXPECT_NE(message([](LaunchRecord &r) { r.rowPadding = 24; }).find("row padding 24"),
            std::string::npos);
  EXPECT_NE(message([](LaunchRecord &r) { r.maxRows = 0; }).find("serves no rows"),
            std::string::npos);
  EXPECT_NE(message([](LaunchRecord &r) { r.ldsBytes = 200000; }).find("LDS 200000"),
            std::string::npos);
}

TEST(LaunchRecord, DisagreementWithTheMetadataIsNamed) {
  KernelInfo kernel;
  kernel.name = "k";
  kernel.maxWorkgroupSize = 256;
  LaunchRecord record = sample();
  EXPECT_TRUE(record.checkAgainst(kernel).ok());
  record.ldsBytes = 1024;
  EXPECT_EQ(record.checkAgainst(kernel).message(),
            "k: the launch record says 1024 LDS bytes, the code object's metadata 0");
  record.ldsBytes = 0;
  record.workgroupSize = 512;
  EXPECT_EQ(record.checkAgainst(kernel).message(),
            "k: the launch record's workgroup of 512 is over the code object's "
            ".max_flat_workgroup_size 256");
}

TEST(LaunchRecord, RoundTripsThroughBytesAndRejectsDamage) {
  LaunchRecord record = sample();
  record.rowPadding = 256;
  record.ldsBytes = 8192;
  ByteWriter out;
  encodeLaunchRecord(out, record);
  ASSERT_EQ(out.size(), kLaunchRecordBytes);
  ByteReader in(out.bytes());
  EXPECT_EQ(decodeLaunchRecord(in), record);
  EXPECT_TRUE(in.ok()) << in.error();
  // Cut short: the field is named.
  ByteReader shortIn(out.bytes().data(), 10);
  (void)decodeLaunchRecord(shortIn);
  EXPECT_FALSE(shortIn.ok());
  EXPECT_NE(shortIn.error().find("launch record"), std::string::npos) << shortIn.error();
  // Decodes but is not launchable.
  std::vector<uint8_t> bytes = out.bytes();
  bytes[4] = 7; // workgroup size 7 (little-endian low byte of 256 is 0)
  bytes[5] = 0;
  ByteReader bad(bytes);
  (void)decodeLaunchRecord(bad);
  EXPECT_NE(bad.error().find("workgroup size 7"), std::string::npos) << bad.error();
}

} // namespace
} // namespace mxf
