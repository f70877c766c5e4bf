//===- test_quality_report.cpp - The demo's quality rows --------------------===//
//
// `mxforge demo` says "ok" only when the round-trip bound of
// arrays/quant_metrics.h holds for both runs; it must hold for every correct
// quantization, and must not be vacuous (tests/unit/arrays checks that it
// catches broken ones).
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/quality_report.h"

#include "arrays/random_inputs.h"
#include "spec/kernel_spec.h"

#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

namespace mxf::cli {
namespace {

KernelSpec specOf(const std::string &text) {
  Result<KernelSpec> spec = parseSpec(text);
  EXPECT_TRUE(spec.ok()) << text << ": " << spec.error();
  return spec.ok() ? spec.value() : KernelSpec();
}

TEST(QuantMetrics, RoundTripBoundHoldsForCorrectQuantizations) {
  const uint64_t seed = testing::testSeed("QuantMetrics.RoundTripBoundHolds");
  const char *const specs[] = {
      "rotate_quant:K=512,M=4",
      "rotate_quant:K=512,RS=64,rot=hadamard,M=4",
      "rotate_quant:K=512,RS=128,rot=hadamard,M=4,inter=bf16",
      "rotate_quant:K=512,RS=256,rot=hadamard_butterfly,M=4,scale=ceil",
      "rotate_quant:K=512,RS=32,rot=learned,M=4,scale=rceil,round=sr",
      "rotate_quant:K=512,RS=64,rot=learned_per_block,M=4,fmt=fp6_e2m3,scale=floor",
      "rotate_quant:K=512,RS=64,rot=hadamard,M=4,fmt=fp6_e3m2,scale=rceil_recip",
      "rotate_quant:K=512,RS=64,rot=hadamard,M=4,fmt=fp8_e4m3,round=sr",
      "rotate_quant:K=512,RS=64,rot=hadamard,M=4,fmt=fp8_e5m2,scale=even126",
      "rotate_quant:K=512,RS=64,rot=hadamard,M=4,layout=a4w4_shuffle",
  };
  for (const char *text : specs) {
    SCOPED_TRACE(text);
    const KernelSpec spec = specOf(text);
    arrays::RandomStream stream(seed, "x");
    std::vector<uint16_t> x = arrays::randomNormalBf16(stream, 4 * 512, 3.0);
    arrays::addBlockOutliers(stream, x, 32, 40.0);
    Result<QualityRow> row = measureQuality(spec, 4, x, seed);
    ASSERT_TRUE(row.ok()) << row.error();
    EXPECT_TRUE(row.value().ok());
    EXPECT_LE(row.value().boundRatio, 1.0);
    EXPECT_GT(row.value().boundRatio, 0.05); // the bound is not vacuous
    EXPECT_GT(row.value().relRms, 0.0);
  }
}

} // namespace
} // namespace mxf::cli
