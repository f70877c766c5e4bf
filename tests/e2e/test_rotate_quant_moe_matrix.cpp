//===- test_rotate_quant_moe_matrix.cpp - The MoE kernel, emulated ---------===//
//
// One test per spec of rotateQuantMoeSpecMatrix(): compile in process, draw
// a routing (the kind rotates with the seed: uniform, skewed, same experts,
// one token, m*topk > E*block, duplicate slots) and m, launch on the emu
// device with every output poisoned and every buffer exactly sized, and
// compare every byte of q, s, sorted_ids, sorted_weights,
// sorted_expert_ids and num_valid_ids with numerics' rotateQuantMoe (bytes
// the kernel must not write still poison). Then the same launch with the
// workgroups dispatched in reverse and in a shuffled order and other
// poisons: the bytes must repeat.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_runner.h"
#include "tests/e2e/moe_case.h"
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
  static const std::vector<KernelSpec> specs = testing::rotateQuantMoeSpecMatrix();
  return specs;
}

class RotateQuantMoeMatrix : public ::testing::TestWithParam<size_t> {};

TEST_P(RotateQuantMoeMatrix, MatchesReferenceInEveryWorkgroupOrder) {
  const size_t index = GetParam();
  const KernelSpec &spec = matrix()[index];
  const uint64_t seed = testing::testSeed(currentTestName().c_str());
  Result<CodeObject> code = compileMatrixSpec(spec);
  ASSERT_TRUE(code.ok()) << printSpec(spec) << ": " << code.error();

  std::mt19937_64 rng(seed ^ (index * 0x9E3779B97F4A7C15ull));
  // A selective spec runs two consecutive routings: one even (its launch
  // rotates) and one odd (quantization alone; moe_case.cpp), so both of the
  // kernel's paths are checked every run.
  const int runs = spec.select == RotationSelect::Off ? 1 : 2;
  for (int runIndex = 0; runIndex < runs; ++runIndex) {
    const auto routing = MoeRouting((seed + index + size_t(runIndex)) % kNumMoeRoutings);
    // The sample tier keeps three cases in four with a bucket above 32 at
    // decode sizes (m <= 32): a launch's work grows with m * topk, and one
    // case at m = 204, topk 8, K = 7168 took 67 s. The fourth, an overflow
    // routing (which needs its m) and the full tier draw m up to the bucket.
    const bool overflowReachable =
        routing == MoeRouting::Overflow && spec.E * spec.block / spec.topk + 1 <= spec.M;
    int forcedM = 0;
    if (spec.M > 32 && !overflowReachable && !extraRuns(seed, /*salt=*/4, 4)) {
      forcedM = 1 + int(rng() % 32);
      std::printf("[ sampled  ] m = %d: the %s tier's draw from the seed keeps this case at decode "
                  "sizes; MXFORGE_E2E_TIER=full draws m up to %d\n",
                  forcedM, tierName(), spec.M);
    }
    const MoeInputs inputs = drawMoeInputs(spec, routing, rng, forcedM);
    Result<MoeQuantized> expected = moeReference(spec, inputs);
    ASSERT_TRUE(expected.ok()) << expected.error();
    std::printf("[ routing  ] %s, m=%d (%d pairs, %d valid sorted rows of %zu), x stride %lld, "
                "q stride %lld%s\n",
                moeRoutingName(inputs.routing), inputs.m, inputs.m * spec.topk,
                expected.value().sorting.numValid(), expected.value().sorting.sortedIds.size(),
                (long long)inputs.xStride, (long long)inputs.qStride,
                !inputs.selection ? ""
                : selectionRotates(spec, *inputs.selection,
                                   inputs.layerMask.empty() ? nullptr : inputs.layerMask.data())
                    ? ", this launch rotates"
                    : ", this launch quantizes without rotating");

    for (const CaseOrder &order : kCaseOrders) {
      if (!workgroupOrderRuns(seed, order.name))
        continue;
      Result<MoeRun> run = launchMoe(code.value(), spec, inputs, order.order, seed, order.poison);
      ASSERT_TRUE(run.ok()) << printSpec(spec) << " (" << order.name << "): " << run.error();
      std::printf("[ %-8s ] grid (%u, %u), %.0f ms emulated\n", order.name,
                  run.value().launch.grid.x, run.value().launch.grid.y, run.value().ms);
      // Every written byte equals the reference in every order, and every
      // other byte keeps this order's poison: together, the same bytes.
      const std::string mismatches =
          compareMoe(spec, inputs, expected.value(), run.value().launch, order.poison);
      EXPECT_TRUE(mismatches.empty()) << printSpec(spec) << ", " << moeRoutingName(inputs.routing)
                                      << " m=" << inputs.m << ", workgroups " << order.name
                                      << ", seed " << seed << mismatches;
    }
  }
}

std::string specTestName(const ::testing::TestParamInfo<size_t> &info) {
  return matrixTestName(matrix()[info.param], info.param);
}

INSTANTIATE_TEST_SUITE_P(Spec, RotateQuantMoeMatrix, ::testing::Range<size_t>(0, matrix().size()),
                         specTestName);

} // namespace
} // namespace mxf::e2e
