//===- test_rmsnorm_rotate_quant_matrix.cpp - The norm's kernel, emulated ---===//
//
// One test per spec of rmsnormRotateQuantSpecMatrix(): compile in process,
// draw x and the residual row by row from the e2e distributions (finite
// ones: the norm of a row with a NaN is NaN whatever the order), a gain,
// eps and, where the spec takes them, R, the seed and the selection; then
// launch at m = 1, a ragged m and the bucket with x and the residual at
// row strides whose gaps hold NaNs, every output poisoned and every buffer
// exactly the bytes m rows span, and compare every byte of q, s and
// residual_out with the CPU reference (numerics' RMSNorm, then
// rotate_quant's reference on the normalized rows). Each launch runs with
// the workgroups forward; a second order (reverse or shuffled), whose bytes
// must repeat, runs for every row count in the full tier and for one drawn
// from the seed in the sample tier (e2e_tier.h). Bad launches are refused
// with a message naming the problem.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_case.h"
#include "tests/e2e/e2e_runner.h"
#include "tests/e2e/rmsnorm_case.h"
#include "tests/e2e/e2e_tier.h"
#include "tests/support/spec_matrix.h"
#include "tests/unit/test_seed.h"

#include "compiler/compiler.h"
#include "spec/reference_problem.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace mxf::e2e {
namespace {

const std::vector<KernelSpec> &matrix() {
  static const std::vector<KernelSpec> specs = testing::rmsnormRotateQuantSpecMatrix();
  return specs;
}

class RmsnormRotateQuantMatrix : public ::testing::TestWithParam<size_t> {};

TEST_P(RmsnormRotateQuantMatrix, MatchesReferenceInTwoWorkgroupOrders) {
  const size_t index = GetParam();
  const KernelSpec &spec = matrix()[index];
  const uint64_t seed = testing::testSeed(currentTestName().c_str());
  Result<CodeObject> code = compileMatrixSpec(spec);
  ASSERT_TRUE(code.ok()) << printSpec(spec) << ": " << code.error();

  std::vector<int> counts = rowCountsFor(spec.M, seed);
  if (spec.M > 16 && !extraRuns(seed, /*salt=*/1, 2)) {
    reportLeftOut("m = " + std::to_string(counts.back()) + " (the bucket)");
    counts.pop_back();
  }
  std::mt19937_64 rng(seed ^ (index * 0x9E3779B97F4A7C15ull));
  // The run that also goes in a second workgroup order (sample tier).
  const size_t reorderedRun = size_t(seed % counts.size());
  for (size_t run = 0; run < counts.size(); ++run) {
    // Selective specs alternate their path run by run, so both are checked.
    const bool rotate = spec.select == RotationSelect::Off || (seed + run) % 2 == 0;
    const NormInputs in = drawNormInputs(spec, counts[run], index + run, rotate, rng);
    Result<arrays::ReferenceRun> expected = normReference(spec, in);
    ASSERT_TRUE(expected.ok()) << expected.error();
    std::printf("[ run      ] m=%d, eps=%g, x stride %lld, residual stride %lld%s\n", in.m,
                in.eps, (long long)in.xStride, (long long)in.residualStride,
                !in.selection.selection ? ""
                : expected.value().rotates ? ", this launch rotates"
                                           : ", this launch quantizes without rotating");
    for (const CaseOrder &order : kCaseOrders) {
      const bool forward = order.order == emu::WorkgroupOrder::Forward;
      if (!forward && !fullTier() && run != reorderedRun) {
        reportLeftOut(std::string("the ") + order.name + " order at m = " +
                      std::to_string(in.m));
        continue;
      }
      if (!workgroupOrderRuns(seed + run, order.name))
        continue;
      Result<runtime::SpecLaunch> launched =
          launchNorm(code.value(), spec, in, expected.value(), order.order, seed, order.poison);
      ASSERT_TRUE(launched.ok()) << printSpec(spec) << " (" << order.name
                                 << "): " << launched.error();
      const std::string mismatches = compareReferenceOutputs(expected.value(), launched.value());
      EXPECT_TRUE(mismatches.empty())
          << printSpec(spec) << " m=" << in.m << " eps=" << in.eps << ", workgroups "
          << order.name << ", seed " << seed << mismatches;
    }
  }
}

std::string specTestName(const ::testing::TestParamInfo<size_t> &info) {
  return matrixTestName(matrix()[info.param], info.param);
}

INSTANTIATE_TEST_SUITE_P(Spec, RmsnormRotateQuantMatrix,
                         ::testing::Range<size_t>(0, matrix().size()), specTestName);

} // namespace
} // namespace mxf::e2e
