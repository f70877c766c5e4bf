//===- test_rotate_quant_gemm_matrix.cpp - The fused GEMM, emulated -------===//
//
// One test per spec of rotateQuantGemmSpecMatrix(): compile in process, draw
// m (1..M) and the inputs from the printed seed, prepare the weights with
// numerics' quantWeight (the same code path as the quant_weight kernel,
// which its own suite holds to it), launch on the emu device through
// runtime::launchSpec (buffers exactly what m rows span at their strides, so
// the emulator's bounds checks catch a read past them) with y poisoned, and
// compare every byte of y, gaps between strided rows included, with
// numerics' rotateQuantGemm. Then:
//  - the same launch with the workgroups in a shuffled order and another
//    poison must give the same bytes (no cross-workgroup order in the sum);
//  - every output is within the bound docs/numerics.md derives of the
//    float64 product of the dequantized operands.
// The decode layers of real models (more than 2^24 weights) are sampled:
// 8 column workgroups drawn from the seed (the last, ragged one always
// among them; printed) run, every row tile; their columns are compared with
// the reference of those weight rows, and every other byte of y must still
// be the poison. The small and mid shapes run and check whole.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/gemm_case.h"
#include "tests/e2e/e2e_tier.h"
#include "tests/support/spec_matrix.h"
#include "tests/unit/test_seed.h"

#include "compiler/compiler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

namespace mxf::e2e {
namespace {

const std::vector<KernelSpec> &matrix() {
  static const std::vector<KernelSpec> specs = testing::rotateQuantGemmSpecMatrix();
  return specs;
}

class RotateQuantGemmMatrix : public ::testing::TestWithParam<size_t> {};

TEST_P(RotateQuantGemmMatrix, MatchesReferenceBitForBitInEveryWorkgroupOrder) {
  const size_t index = GetParam();
  const KernelSpec &spec = matrix()[index];
  const uint64_t seed = testing::testSeed(currentTestName().c_str());
  Result<CodeObject> code = compileMatrixSpec(spec);
  ASSERT_TRUE(code.ok()) << printSpec(spec) << ": " << code.error();

  const ColumnSample sample = gemmColumnSample(spec, seed);
  const GemmInputs in = drawGemmInputs(spec, index, seed, sample);
  ASSERT_TRUE(in.ok) << printSpec(spec) << ": weight preparation failed";
  Result<std::vector<uint16_t>> expected = gemmReferenceY(spec, in, sample);
  ASSERT_TRUE(expected.ok()) << expected.error();
  std::printf("[ run      ] m = %d, x stride %lld, y stride %lld, seed %llu\n", in.m,
              (long long)in.xStride, (long long)in.yStride, (unsigned long long)seed);
  if (!sample.workgroups.empty()) {
    std::string which;
    for (uint32_t group : sample.workgroups)
      which += (which.empty() ? "" : ", ") + std::to_string(group);
    std::printf("[ sampled  ] column groups %s of %zu (%zu columns and %zu workgroups each; "
                "every row tile); the rest of y must stay poisoned\n",
                which.c_str(), (size_t(spec.N) + sample.columnsPerGroup - 1) / sample.columnsPerGroup,
                sample.columnsPerGroup, sample.workgroupsPerGroup);
  }

  struct Order {
    emu::WorkgroupOrder order;
    const char *name;
    uint8_t poison;
  };
  const Order orders[] = {{emu::WorkgroupOrder::Forward, "forward", 0xA5},
                          {emu::WorkgroupOrder::Shuffled, "shuffled", 0x3C}};
  // Both orders are held to the same reference bytes: the sum's order does
  // not depend on which workgroup runs first.
  const size_t rowElements = in.yStride ? size_t(in.yStride) : size_t(spec.N);
  // Shuffled always; the sample tier adds forward for half the specs, drawn
  // from the seed (e2e_tier.h), the full tier for all.
  const bool forwardRuns = extraRuns(seed, /*salt=*/3, 2);
  for (const Order &order : orders) {
    if (order.order == emu::WorkgroupOrder::Forward && !forwardRuns) {
      reportLeftOut("the forward order");
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    Result<runtime::SpecLaunch> run =
        launchGemm(code.value(), spec, in, sample, order.order, seed, order.poison);
    ASSERT_TRUE(run.ok()) << printSpec(spec) << " (" << order.name << "): " << run.error();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const std::vector<uint8_t> &y = run.value().outputs.at("y");
    std::printf("[ %-8s ] grid (%u, %u), %.0f ms emulated\n", order.name, run.value().grid.x,
                run.value().grid.y, ms);
    const std::string diff =
        compareGemmY(y, expectedGemmY(spec, in, expected.value(), sample, order.poison), rowElements,
                     size_t(spec.N));
    EXPECT_TRUE(diff.empty()) << printSpec(spec) << ", m " << in.m << ", workgroups "
                              << order.name << ", seed " << seed << "\n  " << diff;
    // Split chains (abi/gemm_split.h): the workspace came in zeroed and must
    // be fit for the next launch, every arrival counter back at zero.
    if (auto ws = run.value().workspaces.find("ws"); ws != run.value().workspaces.end()) {
      const std::string counters = nonzeroSplitCounters(spec, in.m, ws->second);
      EXPECT_TRUE(counters.empty()) << printSpec(spec) << " (" << order.name << "): " << counters;
      std::printf("[ split    ] %u workgroups a column group add their partials through ws; its "
                  "counters are zero again\n",
                  unsigned(sample.workgroupsPerGroup));
    }
  }
  std::string outsideFirst;
  const size_t outside = countOutsideGemmBound(spec, in, expected.value(), sample, outsideFirst);
  EXPECT_EQ(outside, 0u) << printSpec(spec) << ": outputs outside the float64 error bound, first "
                         << outsideFirst;
}

std::string specTestName(const ::testing::TestParamInfo<size_t> &info) {
  return matrixTestName(matrix()[info.param], info.param);
}

INSTANTIATE_TEST_SUITE_P(Spec, RotateQuantGemmMatrix, ::testing::Range<size_t>(0, matrix().size()),
                         specTestName);

} // namespace
} // namespace mxf::e2e
