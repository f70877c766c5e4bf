//===- test_tiling.cpp - Launch geometry and template support -------------===//

#include "templates/quant_weight/rules.h"
#include "templates/rotate_quant/family.h"
#include "templates/common/rotating_quantizer/tiling.h"
#include "tests/support/quantizer_tiling.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace mxf {
namespace {

KernelSpec spec(const char *text) {
  Result<KernelSpec> parsed = parseSpec(text);
  EXPECT_TRUE(parsed.ok()) << parsed.error();
  return parsed.value();
}

/// The grid the launch record of `text`'s code spec gives for m rows.
std::array<uint32_t, 3> gridFor(const char *text, uint32_t m) {
  return rotateQuantLaunchRecord(spec(text)).gridFor(m);
}

TEST(Tiling, OneWavePerRotationBlockAndSixteenTokens) {
  KernelTiling t = testing::quantizerTilingOf(spec("rotate_quant:K=4096,RS=64,M=16"));
  EXPECT_EQ(t.channelsPerUnit, 64);
  EXPECT_EQ(t.unitsPerRow, 64);
  EXPECT_EQ(t.workgroupSize(), 256);
  const char *text = "rotate_quant:K=4096,RS=64,M=32";
  EXPECT_EQ(gridFor(text, 1), (std::array<uint32_t, 3>{16, 1, 1}));
  EXPECT_EQ(gridFor(text, 16), (std::array<uint32_t, 3>{16, 1, 1}));
  EXPECT_EQ(gridFor(text, 17), (std::array<uint32_t, 3>{16, 2, 1}));
  EXPECT_EQ(t.ldsBytes, 0);
}

TEST(Tiling, NoRotationTakes64ChannelsPerWave) {
  KernelTiling t = testing::quantizerTilingOf(spec("rotate_quant:K=256,M=1"));
  EXPECT_EQ(t.channelsPerUnit, 64);
  EXPECT_EQ(t.unitsPerRow, 4);
  EXPECT_EQ(gridFor("rotate_quant:K=256,M=1", 1), (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(gridFor("rotate_quant:K=4096,M=16", 16), (std::array<uint32_t, 3>{16, 1, 1}));
  // An odd number of scale blocks: one block (32 channels) per wave.
  KernelTiling odd = testing::quantizerTilingOf(spec("rotate_quant:K=96,M=1"));
  EXPECT_EQ(odd.channelsPerUnit, 32);
  EXPECT_EQ(odd.unitsPerRow, 3);
}

TEST(Tiling, ShuffledScalesCoverThePaddingRows) {
  KernelTiling t = testing::quantizerTilingOf(spec("rotate_quant:K=4096,RS=128,M=4,layout=a4w4_shuffle"));
  EXPECT_TRUE(t.fillsRowPadding);
  const LaunchRecord record =
      rotateQuantLaunchRecord(spec("rotate_quant:K=4096,RS=128,M=4,layout=a4w4_shuffle"));
  EXPECT_EQ(record.rowPadding, 256u);
  EXPECT_EQ(record.gridFor(3)[1], 16u); // pad256(3) / 16
  EXPECT_EQ(record.gridFor(257)[1], 32u);
}

TEST(Tiling, LearnedRotationIsStagedInLds) {
  for (int rs : {32, 64, 128, 256}) {
    SCOPED_TRACE(rs);
    KernelTiling t = testing::quantizerTilingOf(
        spec(("rotate_quant:K=4096,rot=learned,RS=" + std::to_string(rs)).c_str()));
    EXPECT_TRUE(t.stagesRotationInLds);
    // All of R up to 32 KiB; RS=256 two 32-column slices (16 KiB each).
    EXPECT_EQ(t.rotationSliceColumns, rs >= 256 ? 32 : 0);
    EXPECT_EQ(t.ldsBytes, rs >= 256 ? 2 * rs * 32 * 2 : rs * rs * 2);
    EXPECT_LE(t.workgroupSize(), 1024);
    // LDS and the workgroup size leave room for 8 waves per SIMD (32 per
    // CU of 160 KiB): the rest is up to the registers.
    const int wavesPerWorkgroup = t.workgroupSize() / 64;
    const int workgroupsPerCu = std::min(160 * 1024 / t.ldsBytes, 32 / wavesPerWorkgroup);
    EXPECT_GE(workgroupsPerCu * wavesPerWorkgroup, 32);
    // A slice is a whole number of 16-byte pieces per thread.
    if (t.rotationSliceColumns > 0) {
      EXPECT_EQ(rs * t.rotationSliceColumns * 2 % (t.workgroupSize() * 16), 0);
    }
  }
  EXPECT_FALSE(testing::quantizerTilingOf(spec("rotate_quant:K=4096,rot=learned_per_block,RS=64"))
                   .stagesRotationInLds);
}

TEST(Tiling, PerBlockRotationGoesThroughEachWavesLds) {
  // One 32x32 bf16 piece per wave from RS=64 on; RS=32 gathers.
  for (int rs : {32, 64, 128, 256}) {
    SCOPED_TRACE(rs);
    KernelTiling t = testing::quantizerTilingOf(
        spec(("rotate_quant:K=4096,rot=learned_per_block,RS=" + std::to_string(rs)).c_str()));
    EXPECT_FALSE(t.stagesRotationInLds);
    EXPECT_EQ(t.transposesInWaveLds, rs >= 64);
    EXPECT_EQ(t.ldsBytes, rs >= 64 ? t.wavesPerWorkgroup * 2048 : 0);
    EXPECT_EQ(t.workgroupSize(), 256);
  }
}

TEST(Tiling, UnsupportedSpecsAreNamed) {
  auto message = [](const char *text) { return checkRotateQuantSupported(spec(text)).message(); };
  // Every K the spec accepts: multiples of 32 and of RS up to 65536.
  for (const char *text : {"rotate_quant:K=16384,RS=256,M=256", "rotate_quant:K=4160,M=1",
                           "rotate_quant:K=32,M=1", "rotate_quant:K=25600,RS=128,M=1",
                           "rotate_quant:K=65536,RS=256,rot=learned,M=256",
                           // Every format, through the hardware's scaled converts.
                           "rotate_quant:K=4096,fmt=fp6_e2m3", "rotate_quant:K=4096,fmt=fp6_e3m2",
                           "rotate_quant:K=4096,fmt=fp8_e4m3", "rotate_quant:K=4096,fmt=fp8_e5m2"})
    EXPECT_TRUE(checkRotateQuantSupported(spec(text)).ok()) << text;
  EXPECT_NE(message("rotate_quant:K=4096,RS=64,rot=hadamard_butterfly").find("hadamard_butterfly"),
            std::string::npos);
  // Stochastic rounding in every format; weights round to nearest.
  for (const char *text : {"rotate_quant:K=4096,round=sr", "rotate_quant:K=4096,fmt=fp8_e4m3,round=sr",
                           "rotate_quant:K=4096,fmt=fp8_e5m2,round=sr,RS=32,rot=hadamard_butterfly",
                           "rotate_quant:K=4096,fmt=fp6_e2m3,round=sr",
                           "rotate_quant:K=4096,fmt=fp6_e3m2,round=sr,RS=128,rot=learned"})
    EXPECT_TRUE(checkRotateQuantSupported(spec(text)).ok()) << text;
  EXPECT_TRUE(checkRotatingQuantizerSupported(spec("rotate_quant:K=4096,round=sr")).ok());
  EXPECT_NE(checkQuantWeightSupported(spec("quant_weight:K=4096,N=16,round=sr"))
                .message()
                .find("round=sr (weights are quantized once"),
            std::string::npos);
  EXPECT_NE(message("quant_weight:K=4096,N=16").find("quant_weight"), std::string::npos);
}

} // namespace
} // namespace mxf
