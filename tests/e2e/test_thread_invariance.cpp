//===- test_thread_invariance.cpp - 1 vs N emulator threads ---------------===//
//
// The emu device promises results that do not depend on its thread count
// (workgroups run in parallel, each with its own LDS and registers). Once
// per rotation kind, a spec with many workgroups runs with 1 and with 4
// threads on the same inputs: output bytes and every counter must agree
// (and both must match numerics/, which runAndCheck checks).
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_case.h"
#include "tests/support/spec_matrix.h"
#include "tests/unit/test_seed.h"

#include "runtime/emu_device.h"
#include "templates/registry.h"
#include "templates/rotate_quant/family.h"

#include <gtest/gtest.h>

namespace mxf::e2e {
namespace {

/// The matrix spec of `kind` with the most workgroups at its bucket among
/// the cheap ones (K * bucket bounded), so that the threads really split it.
std::optional<std::pair<size_t, KernelSpec>> pickSpec(RotationKind kind) {
  const std::vector<KernelSpec> specs = testing::rotateQuantSpecMatrix();
  std::optional<std::pair<size_t, KernelSpec>> best;
  uint64_t bestWorkgroups = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const KernelSpec &spec = specs[i];
    if (spec.rot != kind || int64_t(spec.K) * spec.M > 2048 * 64)
      continue;
    const std::array<uint32_t, 3> grid =
        rotateQuantLaunchRecord(codeSpecFor(spec).value()).gridFor(uint32_t(spec.M));
    const uint64_t workgroups = uint64_t(grid[0]) * grid[1];
    if (workgroups > bestWorkgroups) {
      bestWorkgroups = workgroups;
      best = {i, spec};
    }
  }
  return best;
}

class ThreadCountInvariance : public ::testing::TestWithParam<RotationKind> {};

TEST_P(ThreadCountInvariance, SameBytesAndCounters) {
  std::optional<std::pair<size_t, KernelSpec>> picked = pickSpec(GetParam());
  ASSERT_TRUE(picked) << "the matrix has no spec of this rotation kind";
  const auto &[index, spec] = *picked;
  RunContext context;
  const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
  context.testName = std::string(info->test_suite_name()) + "." + info->name();
  context.seed = testing::testSeed(context.testName.c_str());
  context.specIndex = index;
  std::printf("[ spec     ] %s\n", printSpec(spec).c_str());

  std::vector<std::unique_ptr<runtime::Device>> devices;
  std::vector<RunOutputs> outs;
  const RunInputs inputs = drawInputs(spec, spec.M, context);
  for (unsigned threads : {1u, 4u}) {
    runtime::EmuDeviceOptions options;
    options.threads = threads;
    Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice(options);
    ASSERT_TRUE(device.ok()) << device.error();
    Result<LoadedKernel> kernel = compileAndLoad(*device.value(), spec);
    ASSERT_TRUE(kernel.ok()) << kernel.error();
    outs.push_back(runAndCheck(*device.value(), kernel.value(), inputs, context));
    ASSERT_FALSE(outs.back().q.empty());
  }
  EXPECT_TRUE(outs[0].q == outs[1].q && outs[0].s == outs[1].s)
      << "1 and 4 emulator threads wrote different bytes: " << printSpec(spec)
      << " M=" << spec.M << " seed=" << context.seed;
  const std::string counters = compareReports(outs[0].report, outs[1].report);
  EXPECT_TRUE(counters.empty()) << "1 and 4 emulator threads counted differently: " << counters;
}

INSTANTIATE_TEST_SUITE_P(Rotation, ThreadCountInvariance,
                         ::testing::Values(RotationKind::None, RotationKind::Hadamard,
                                           RotationKind::Learned, RotationKind::LearnedPerBlock),
                         [](const ::testing::TestParamInfo<RotationKind> &info) {
                           return std::string(rotationKindName(info.param));
                         });

} // namespace
} // namespace mxf::e2e
