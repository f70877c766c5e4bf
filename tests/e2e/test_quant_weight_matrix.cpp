//===- test_quant_weight_matrix.cpp - The weight kernel, emulated ---------===//
//
// One test per spec of quantWeightSpecMatrix(): compile in process, launch on
// the emu device through runtime::launchSpec (buffers sized from the ABI, so
// the emulator's bounds checks catch any access past them), with w at a row
// stride on every other spec and the outputs poisoned, and compare every
// byte of q and s (codes in the weight layout, scales with their a4w4
// padding) with numerics' quantWeight. Then the same launch again with the
// workgroups dispatched in reverse and in a shuffled order, other poisons:
// the bytes must repeat exactly (no byte written by two workgroups, none
// left to chance).
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/weight_case.h"
#include "tests/e2e/e2e_tier.h"
#include "tests/support/spec_matrix.h"
#include "tests/unit/test_seed.h"

#include "compiler/compiler.h"
#include "numerics/packing.h"
#include "numerics/reference.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace mxf::e2e {
namespace {

const std::vector<KernelSpec> &matrix() {
  static const std::vector<KernelSpec> specs = testing::quantWeightSpecMatrix();
  return specs;
}

class QuantWeightMatrix : public ::testing::TestWithParam<size_t> {};

TEST_P(QuantWeightMatrix, MatchesReferenceInEveryWorkgroupOrder) {
  const size_t index = GetParam();
  const KernelSpec &spec = matrix()[index];
  const uint64_t seed = testing::testSeed(currentTestName().c_str());
  Result<CodeObject> code = compileMatrixSpec(spec);
  ASSERT_TRUE(code.ok()) << printSpec(spec) << ": " << code.error();
  EXPECT_EQ(code.value().launch.maxRows, uint32_t(spec.N));

  const WeightInputs inputs = drawWeights(spec, index, seed);
  RotateQuantProblem problem = problemFor(spec, spec.layout);
  Result<QuantizedRows> expected = quantWeight(problem, spec.wlayout, inputs.w.data(),
                                               size_t(spec.N),
                                               inputs.r.empty() ? nullptr : inputs.r.data());
  ASSERT_TRUE(expected.ok()) << expected.error();
  const size_t rowBytes = packedBytes(spec.fmt, size_t(spec.K));

  std::vector<uint8_t> firstQ, firstS;
  for (const CaseOrder &order : kCaseOrders) {
    if (!workgroupOrderRuns(seed, order.name))
      continue;
    Result<WeightRun> run = launchWeights(code.value(), spec, inputs, order.order, seed, order.poison);
    ASSERT_TRUE(run.ok()) << printSpec(spec) << " (" << order.name << "): " << run.error();
    const std::vector<uint8_t> &q = run.value().launch.outputs.at("q");
    const std::vector<uint8_t> &s = run.value().launch.outputs.at("s");
    std::printf("[ %-8s ] grid (%u, %u), %.0f ms emulated, w stride %lld\n", order.name,
                run.value().launch.grid.x, run.value().launch.grid.y, run.value().ms,
                (long long)inputs.stride);
    const std::string codes = compareBytes("q", q, expected.value().codes, rowBytes);
    const std::string scales =
        compareBytes("s", s, expected.value().scales, size_t(spec.K) / 32);
    EXPECT_TRUE(codes.empty() && scales.empty())
        << printSpec(spec) << ", workgroups " << order.name << ", seed " << seed << "\n  "
        << codes << "\n  " << scales;
    if (firstQ.empty()) {
      firstQ = q;
      firstS = s;
    } else {
      EXPECT_TRUE(q == firstQ && s == firstS)
          << printSpec(spec) << ": the " << order.name << " order wrote other bytes";
    }
  }
}

std::string specTestName(const ::testing::TestParamInfo<size_t> &info) {
  return matrixTestName(matrix()[info.param], info.param);
}

INSTANTIATE_TEST_SUITE_P(Spec, QuantWeightMatrix, ::testing::Range<size_t>(0, matrix().size()),
                         specTestName);

} // namespace
} // namespace mxf::e2e
