//===- test_rotate_quant_matrix.cpp - Every matrix spec, emulated ---------===//
//
// One test per spec of rotateQuantSpecMatrix(): compile once in process, run
// on the emu device for M = 1, a ragged M and the bucket with fresh inputs,
// compare with numerics/ bit for bit, then run M = 1 again with another
// poison and require identical bytes and counters (determinism, and no read
// of the output buffers). One ctest entry per spec, so ctest -j spreads them.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_case.h"
#include "tests/e2e/e2e_tier.h"
#include "tests/support/spec_matrix.h"
#include "tests/unit/test_seed.h"

#include "abi/operands.h"
#include "runtime/emu_device.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace mxf::e2e {
namespace {

const std::vector<KernelSpec> &matrix() {
  static const std::vector<KernelSpec> specs = testing::rotateQuantSpecMatrix();
  return specs;
}

/// Extra rounds per spec (MXFORGE_E2E_ROUNDS, default 1): each round is the
/// whole plan again with a seed derived from the test's, for soak runs.
unsigned roundsFromEnvironment() {
  const char *text = std::getenv("MXFORGE_E2E_ROUNDS");
  const unsigned long rounds = text ? std::strtoul(text, nullptr, 10) : 1;
  return rounds ? unsigned(rounds) : 1;
}

/// M = 1, ragged, bucket; then M = 1 again with the same inputs and another
/// poison: bytes the kernel writes must not change (it must not read q or
/// s), the rest must hold the new poison, and every counter must repeat.
void runPlan(runtime::Device &device, const LoadedKernel &kernel, RunContext context) {
  const KernelSpec &spec = kernel.spec;
  std::vector<int> counts = rowCountsFor(spec.M, context.seed);
  // The bucket-sized run is the expensive one; the sample tier runs it for
  // half the specs with a bucket above 16 (e2e_tier.h).
  if (spec.M > 16 && !extraRuns(context.seed, /*salt=*/1, 2)) {
    reportLeftOut("m = " + std::to_string(counts.back()) + " (the bucket)");
    counts.pop_back();
  }
  RunInputs first;
  RunOutputs firstOut;
  for (size_t run = 0; run < counts.size(); ++run) {
    context.run = run;
    RunInputs inputs = drawInputs(spec, counts[run], context);
    RunOutputs out = runAndCheck(device, kernel, inputs, context);
    if (run == 0) {
      first = std::move(inputs);
      firstOut = std::move(out);
    }
  }
  if (firstOut.q.empty())
    return; // the first launch already failed and said why

  context.run = 0;
  RunInputs again = first;
  again.poison = poisonFor(counts.size());
  RunOutputs out = runAndCheck(device, kernel, again, context);
  if (out.q.empty())
    return;
  // A byte holding each run's own poison was left alone both times (the
  // checks above say where that is allowed); any other byte must repeat.
  auto differing = [&](const std::vector<uint8_t> &a, const std::vector<uint8_t> &b) {
    size_t n = 0;
    for (size_t i = 0; i < a.size(); ++i)
      n += !(a[i] == first.poison && b[i] == again.poison) && a[i] != b[i];
    return n;
  };
  EXPECT_EQ(differing(firstOut.q, out.q) + differing(firstOut.s, out.s), 0u)
      << "a second identical launch wrote different bytes: " << printSpec(spec)
      << " M=" << first.m << " seed=" << context.seed;
  const std::string counters = compareReports(firstOut.report, out.report);
  EXPECT_TRUE(counters.empty()) << "a second identical launch counted differently: " << counters
                                << "\n  " << printSpec(spec) << " M=" << first.m;
}

class RotateQuantMatrix : public ::testing::TestWithParam<size_t> {};

TEST_P(RotateQuantMatrix, MatchesReference) {
  const size_t index = GetParam();
  const KernelSpec &spec = matrix()[index];
  RunContext context;
  context.testName = currentTestName();
  context.seed = testing::testSeed(context.testName.c_str());
  context.specIndex = index;
  std::printf("[ spec     ] %s\n", printSpec(spec).c_str());

  // One emulator thread: ctest -j runs as many specs at once as there are
  // cores, and results do not depend on the thread count (checked by
  // ThreadCountInvariance).
  runtime::EmuDeviceOptions options;
  options.threads = 1;
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice(options);
  ASSERT_TRUE(device.ok()) << device.error();
  Result<LoadedKernel> kernel = compileAndLoad(*device.value(), spec);
  ASSERT_TRUE(kernel.ok()) << "compile/load failed for " << printSpec(spec) << ": "
                           << kernel.error();
  EXPECT_EQ(kernel.value().code.kernel.scratchBytes, 0u) << printSpec(spec);
  std::printf("[ compile  ] %s: %.0f ms, %u VGPRs, %u LDS bytes, workgroup %d\n",
              kernel.value().code.kernel.name.c_str(), kernel.value().compileMs,
              kernel.value().code.kernel.vgprCount, kernel.value().code.kernel.ldsBytes,
              kernel.value().tiling.workgroupSize());

  const unsigned rounds = roundsFromEnvironment();
  for (unsigned round = 0; round < rounds; ++round) {
    RunContext roundContext = context;
    if (round > 0) {
      roundContext.seed = runEngine(context.seed, 1u << 30 | round)();
      std::printf("[ round    ] %u: replay alone with MXFORGE_TEST_SEED=%llu\n", round,
                  (unsigned long long)roundContext.seed);
    }
    runPlan(*device.value(), kernel.value(), roundContext);
  }
}

std::string specTestName(const ::testing::TestParamInfo<size_t> &info) {
  return matrixTestName(matrix()[info.param], info.param);
}

INSTANTIATE_TEST_SUITE_P(Spec, RotateQuantMatrix, ::testing::Range<size_t>(0, matrix().size()),
                         specTestName);

} // namespace
} // namespace mxf::e2e
