//===- test_kernel_summary.cpp - What inspect reports ---------------------===//
//
// The warnings (scratch in use, spills), the gfx950-only rule, and the
// per-instruction families of summarizeCodeObject.
//
//===----------------------------------------------------------------------===//

#include "codeobj/kernel_summary.h"

#include "tests/unit/codeobj/codeobj_test_support.h"

#include "llvm/BinaryFormat/ELF.h"

#include <gtest/gtest.h>

namespace mxf::codeobj {
namespace {

using namespace mxf::codeobj::testing;

class KernelSummaryTest : public ::testing::Test {
protected:
  void SetUp() override {
    Result<std::unique_ptr<Disassembler>> created = Disassembler::create();
    ASSERT_TRUE(created.ok()) << created.error();
    disassembler = std::move(created.value());
  }
  Result<CodeObjectSummary> summarize(const std::vector<uint8_t> &bytes) {
    return summarizeCodeObject(bytes, *disassembler);
  }
  std::unique_ptr<Disassembler> disassembler;
};

bool mentions(const std::vector<std::string> &warnings, llvm::StringRef text) {
  for (const std::string &warning : warnings)
    if (llvm::StringRef(warning).contains(text))
      return true;
  return false;
}

TEST_F(KernelSummaryTest, CleanKernelsHaveNoWarnings) {
  std::vector<uint8_t> bytes = loadHsaco("mfma_cvt");
  Result<CodeObjectSummary> summary = summarize(bytes);
  ASSERT_TRUE(summary.ok()) << summary.error();
  EXPECT_EQ(summary.value().codeObjectVersion, 6u);
  EXPECT_EQ(summary.value().target, "amdgcn-amd-amdhsa--gfx950");
  ASSERT_EQ(summary.value().kernels.size(), 2u);
  for (const KernelSummary &kernel : summary.value().kernels) {
    EXPECT_TRUE(kernel.warnings.empty()) << kernel.kernel.info.name;
    EXPECT_EQ(kernel.families.size(), kernel.instructions.size());
    EXPECT_EQ(kernel.histogram.total(), kernel.instructions.size());
  }
}

TEST_F(KernelSummaryTest, ScratchAndSpillsAreFlagged) {
  std::vector<uint8_t> bytes = loadHsaco("scratch");
  Result<CodeObjectSummary> summary = summarize(bytes);
  ASSERT_TRUE(summary.ok()) << summary.error();
  for (const KernelSummary &kernel : summary.value().kernels) {
    SCOPED_TRACE(kernel.kernel.info.name);
    EXPECT_GT(kernel.scratchInstructions, 0u);
    EXPECT_TRUE(mentions(kernel.warnings, "scratch in use"));
    const bool spills = kernel.kernel.info.name == "vgpr_spill";
    EXPECT_EQ(mentions(kernel.warnings, "spills:"), spills);
  }
}

TEST_F(KernelSummaryTest, OnlyGfx950) {
  EXPECT_TRUE(isGfx950Target("amdgcn-amd-amdhsa--gfx950"));
  EXPECT_TRUE(isGfx950Target("amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-"));
  EXPECT_FALSE(isGfx950Target("amdgcn-amd-amdhsa--gfx9500"));
  EXPECT_FALSE(isGfx950Target("amdgcn-amd-amdhsa--gfx942"));

  std::vector<uint8_t> gfx942 = loadHsaco("lds_gfx942");
  Result<CodeObjectSummary> other = summarize(gfx942);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().find("gfx942' is not gfx950"), std::string::npos) << other.error();

  // The note says gfx950, the ELF header says gfx942.
  std::vector<uint8_t> mixed = loadHsaco("lds_v5");
  mixed[48] = llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX942; // low byte of e_flags
  Result<CodeObjectSummary> inconsistent = summarize(mixed);
  ASSERT_FALSE(inconsistent.ok());
  EXPECT_NE(inconsistent.error().find("machine"), std::string::npos) << inconsistent.error();
}

TEST_F(KernelSummaryTest, OccupancyUsesTheMetadata) {
  std::vector<uint8_t> bytes = loadHsaco("lds_v5");
  Result<CodeObjectSummary> summary = summarize(bytes);
  ASSERT_TRUE(summary.ok()) << summary.error();
  const Occupancy &o = summary.value().kernels[0].occupancy;
  EXPECT_EQ(o.wavesPerSimd, 2u);
  EXPECT_EQ(o.limitingFactor(), "lds");
}

} // namespace
} // namespace mxf::codeobj
