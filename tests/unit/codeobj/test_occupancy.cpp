//===- test_occupancy.cpp - Waves per SIMD on gfx950 ----------------------===//
//
// Hand-computed cases of the model in codeobj/occupancy.h, and agreement
// with llc's own "; Occupancy:" for every test kernel (register, SGPR, LDS
// and workgroup-size limited ones in Inputs/occupancy.ll).
//
//===----------------------------------------------------------------------===//

#include "codeobj/hsaco_reader.h"
#include "codeobj/occupancy.h"

#include "tests/unit/codeobj/codeobj_test_support.h"

#include <gtest/gtest.h>

namespace mxf::codeobj {
namespace {

using namespace mxf::codeobj::testing;

Occupancy occupancy(uint32_t vgprs, uint32_t sgprs, uint32_t lds, uint32_t workgroup) {
  return computeOccupancy({vgprs, sgprs, lds, workgroup});
}

TEST(Occupancy, Vgprs) {
  // 512 registers per lane, granule 8, at most 8 waves.
  EXPECT_EQ(occupancy(0, 16, 0, 256).byVgpr, 8u);
  EXPECT_EQ(occupancy(7, 16, 0, 256).byVgpr, 8u);  // below one granule
  EXPECT_EQ(occupancy(64, 16, 0, 256).byVgpr, 8u); // 512 / 64
  EXPECT_EQ(occupancy(65, 16, 0, 256).byVgpr, 7u); // 512 / 72
  EXPECT_EQ(occupancy(72, 16, 0, 256).byVgpr, 7u);
  EXPECT_EQ(occupancy(73, 16, 0, 256).byVgpr, 6u); // 512 / 80
  EXPECT_EQ(occupancy(128, 16, 0, 256).byVgpr, 4u);
  EXPECT_EQ(occupancy(129, 16, 0, 256).byVgpr, 3u); // 512 / 136
  EXPECT_EQ(occupancy(256, 16, 0, 256).byVgpr, 2u);
  EXPECT_EQ(occupancy(257, 16, 0, 256).byVgpr, 1u);
  EXPECT_EQ(occupancy(512, 16, 0, 256).byVgpr, 1u);
  EXPECT_EQ(occupancy(513, 16, 0, 256).byVgpr, 0u); // cannot start
  Occupancy o = occupancy(128, 16, 0, 256);
  EXPECT_EQ(o.wavesPerSimd, 4u);
  EXPECT_EQ(o.limitingFactor(), "vgpr");
}

TEST(Occupancy, Sgprs) {
  EXPECT_EQ(occupancy(8, 100, 0, 64).bySgpr, 8u);
  EXPECT_EQ(occupancy(8, 101, 0, 64).bySgpr, 7u);
  EXPECT_EQ(occupancy(8, 108, 0, 64).limitingFactor(), "sgpr");
}

TEST(Occupancy, LdsAndWorkgroup) {
  // 64 KiB, 256 items: 160/64 = 2 workgroups x 4 waves = 8 waves per CU,
  // 2 per SIMD.
  Occupancy o = occupancy(8, 16, 64 * 1024, 256);
  EXPECT_EQ(o.wavesPerWorkgroup, 4u);
  EXPECT_EQ(o.workgroupsPerCu, 2u);
  EXPECT_EQ(o.byLds, 2u);
  EXPECT_EQ(o.wavesPerSimd, 2u);
  EXPECT_EQ(o.limitingFactor(), "lds");
  // 32 KiB, 256 items: 5 workgroups x 4 = 20 waves -> 5 per SIMD.
  EXPECT_EQ(occupancy(8, 16, 32 * 1024, 256).wavesPerSimd, 5u);
  // All 160 KiB, 1024 items: one workgroup of 16 waves -> 4 per SIMD.
  EXPECT_EQ(occupancy(8, 16, 163840, 1024).wavesPerSimd, 4u);
  // More than the CU has: cannot start.
  Occupancy tooBig = occupancy(8, 16, 163841, 64);
  EXPECT_EQ(tooBig.wavesPerSimd, 0u);
  EXPECT_EQ(tooBig.limitingFactor(), "lds");
  // One-wave workgroups with 40 KiB: 4 workgroups, 4 waves per CU; the
  // busiest SIMD holds 1.
  EXPECT_EQ(occupancy(8, 16, 40 * 1024, 64).wavesPerSimd, 1u);
  // No LDS: 1024 items = 16 waves, 2 workgroups fill the 32 slots.
  Occupancy full = occupancy(8, 16, 0, 1024);
  EXPECT_EQ(full.wavesPerSimd, 8u);
  EXPECT_EQ(full.limitingFactor(), "none");
  EXPECT_EQ(full.workgroupsPerCu, 2u);
  // 576 items = 9 waves: 3 workgroups = 27 waves -> 7 per SIMD.
  Occupancy odd = occupancy(8, 16, 0, 576);
  EXPECT_EQ(odd.byWorkgroup, 7u);
  EXPECT_EQ(odd.limitingFactor(), "workgroup");
  // 256-item workgroups and 16 barriers: 8 workgroups x 4 waves = 32.
  EXPECT_EQ(occupancy(8, 16, 0, 256).byWorkgroup, 8u);
  // 128-item workgroups: barriers cap at 16 workgroups x 2 = 32 waves.
  EXPECT_EQ(occupancy(8, 16, 0, 128).workgroupsPerCu, 16u);
}

TEST(Occupancy, SeveralLimitsAtOnce) {
  // 256 VGPRs -> 2 waves; 80 KiB with 256 items: 2 workgroups x 4 waves ->
  // 2 waves. Both limits are reported.
  Occupancy o = occupancy(256, 16, 80 * 1024, 256);
  EXPECT_EQ(o.wavesPerSimd, 2u);
  EXPECT_EQ(o.limitingFactor(), "vgpr+lds");
}

TEST(Occupancy, DamagedInputsDoNotOverflow) {
  Occupancy o = occupancy(UINT32_MAX, UINT32_MAX, 1, UINT32_MAX);
  EXPECT_EQ(o.wavesPerSimd, 0u);
  EXPECT_EQ(occupancy(0, 0, 0, 0).wavesPerSimd, 8u); // no size given: one wave
}

class AgainstLlc : public ::testing::TestWithParam<const char *> {};

TEST_P(AgainstLlc, SameWavesAsLlcReports) {
  Result<std::vector<KernelInfo>> infos = readKernelInfos(loadHsaco(GetParam()));
  ASSERT_TRUE(infos.ok()) << infos.error();
  std::map<std::string, unsigned> llc = llcOccupancy(GetParam());
  ASSERT_EQ(llc.size(), infos.value().size());
  for (const KernelInfo &info : infos.value()) {
    ASSERT_TRUE(llc.count(info.name)) << info.name;
    Occupancy o =
        computeOccupancy({info.vgprCount, info.sgprCount, info.ldsBytes, info.maxWorkgroupSize});
    EXPECT_EQ(o.wavesPerSimd, llc[info.name]) << info.name << ": limited by " << o.limitingFactor();
  }
}

INSTANTIATE_TEST_SUITE_P(CodeObjects, AgainstLlc,
                         ::testing::Values("mfma_cvt", "scratch", "lds_v5", "occupancy"));

TEST(Occupancy, TheOccupancyKernelsHitTheirIntendedLimits) {
  Result<std::vector<KernelInfo>> infos = readKernelInfos(loadHsaco("occupancy"));
  ASSERT_TRUE(infos.ok()) << infos.error();
  const std::map<std::string, std::pair<unsigned, std::string>> expected = {
      {"vgpr64", {8, "none"}},       {"vgpr65", {7, "vgpr"}},  {"vgpr128", {4, "vgpr"}},
      {"agpr128", {3, "vgpr"}},      {"sgpr101", {7, "sgpr"}}, {"workgroup576", {7, "workgroup"}},
      {"lds40k_wave64", {1, "lds"}},
  };
  ASSERT_EQ(infos.value().size(), expected.size());
  for (const KernelInfo &info : infos.value()) {
    Occupancy o =
        computeOccupancy({info.vgprCount, info.sgprCount, info.ldsBytes, info.maxWorkgroupSize});
    ASSERT_TRUE(expected.count(info.name)) << info.name;
    EXPECT_EQ(o.wavesPerSimd, expected.at(info.name).first) << info.name;
    EXPECT_EQ(o.limitingFactor(), expected.at(info.name).second) << info.name;
  }
}

} // namespace
} // namespace mxf::codeobj
