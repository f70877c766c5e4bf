//===- test_negative_controls.cpp - The suite can fail ---------------------===//
//
// A bit-exact suite that never fails proves nothing unless it is shown to
// fail when the kernel is wrong. These tests launch real compiled kernels
// with deliberately wrong arguments (a row count the reference does not
// expect, another rotation matrix, a buffer that is too short) and require
// the checks of e2e_check.h / the emulator to catch each one in the region
// where the error is.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_case.h"
#include "tests/e2e/e2e_check.h"
#include "tests/e2e/e2e_runner.h"
#include "tests/unit/test_seed.h"

#include "runtime/emu_device.h"
#include "runtime/spec_launcher.h"

#include <gtest/gtest.h>

namespace mxf::e2e {
namespace {

class NegativeControl : public ::testing::Test {
protected:
  void SetUp() override {
    runtime::EmuDeviceOptions options;
    options.threads = 1;
    Result<std::unique_ptr<runtime::Device>> opened = runtime::openEmuDevice(options);
    ASSERT_TRUE(opened.ok()) << opened.error();
    device = std::move(opened.value());
  }

  LoadedKernel load(const KernelSpec &spec) {
    Result<LoadedKernel> kernel = compileAndLoad(*device, spec);
    EXPECT_TRUE(kernel.ok()) << kernel.error();
    return kernel.ok() ? std::move(kernel.value()) : LoadedKernel();
  }

  static KernelSpec spec(RotationKind rot, ScaleLayout layout) {
    KernelSpec s;
    s.K = 512;
    s.RS = rot == RotationKind::None ? 0 : 64;
    s.rot = rot;
    s.M = 8;
    s.layout = layout;
    return s;
  }

  std::unique_ptr<runtime::Device> device;
};

/// The kernel is told one more row than the reference computes: the extra
/// row's codes and (plain) scales land where poison must stay.
TEST_F(NegativeControl, ExtraRowIsCaught) {
  const KernelSpec s = spec(RotationKind::Hadamard, ScaleLayout::Plain);
  LoadedKernel kernel = load(s);
  ASSERT_FALSE(kernel.code.hsaco.empty());
  RunContext context;
  context.seed = testing::testSeed("NegativeControl.ExtraRowIsCaught");
  RunInputs inputs = drawInputs(s, 3, context);
  Result<RunOutputs> out = runKernel(*device, kernel, inputs);
  ASSERT_TRUE(out.ok()) << out.error();

  RunInputs fewer = inputs;
  fewer.m = 2;
  fewer.x.resize(size_t(2) * s.K);
  Result<QuantizedRows> ref = referenceFor(s, fewer);
  ASSERT_TRUE(ref.ok()) << ref.error();
  const ExpectedOutputs expected =
      expectedOutputs(kernel.shape, 2, ref.value().codes, ref.value().scales, inputs.poison);
  const Comparison c = compareOutputs(expected, kernel.shape, out.value().q, out.value().s);
  EXPECT_GT(c.byRegion[size_t(Region::CodePastM)], 0u) << c.describe();
  EXPECT_GT(c.byRegion[size_t(Region::ScalePastM)], 0u) << c.describe();
  EXPECT_EQ(c.byRegion[size_t(Region::Code)], 0u) << c.describe();
  EXPECT_NE(out.value().report.get("global_bytes_written"), expected.bytesWritten);
}

/// The kernel rotates with another learned matrix than the reference: codes
/// and scales of valid rows differ, and nothing else does.
TEST_F(NegativeControl, WrongRotationIsCaught) {
  const KernelSpec s = spec(RotationKind::Learned, ScaleLayout::A4W4Shuffle);
  LoadedKernel kernel = load(s);
  ASSERT_FALSE(kernel.code.hsaco.empty());
  RunContext context;
  context.seed = testing::testSeed("NegativeControl.WrongRotationIsCaught");
  context.specIndex = 0; // an orthogonal matrix, normal rows first
  RunInputs inputs = drawInputs(s, 4, context);
  Result<RunOutputs> out = runKernel(*device, kernel, inputs);
  ASSERT_TRUE(out.ok()) << out.error();

  RunInputs other = inputs;
  std::mt19937_64 rng = runEngine(context.seed, 99);
  other.r = learnedRotation(s, MatrixKind::RandomBf16, rng);
  Result<QuantizedRows> ref = referenceFor(s, other);
  ASSERT_TRUE(ref.ok()) << ref.error();
  const ExpectedOutputs expected =
      expectedOutputs(kernel.shape, 4, ref.value().codes, ref.value().scales, inputs.poison);
  const Comparison c = compareOutputs(expected, kernel.shape, out.value().q, out.value().s);
  EXPECT_GT(c.byRegion[size_t(Region::Code)], 0u) << c.describe();
  EXPECT_EQ(c.byRegion[size_t(Region::CodePastM)] + c.byRegion[size_t(Region::ScalePadding)], 0u)
      << c.describe();
}

/// An x holding fewer rows than m claims: the emulator stops the launch at
/// the first load past the buffer instead of reading a neighbour.
TEST_F(NegativeControl, ShortInputIsAnOutOfBoundsError) {
  const KernelSpec s = spec(RotationKind::None, ScaleLayout::Plain);
  LoadedKernel kernel = load(s);
  ASSERT_FALSE(kernel.code.hsaco.empty());
  Result<runtime::ScopedBuffer> x = runtime::ScopedBuffer::allocate(*device, size_t(s.K) * 2);
  Result<runtime::ScopedBuffer> q = runtime::ScopedBuffer::allocate(*device, kernel.shape.bucket * kernel.shape.qCols);
  Result<runtime::ScopedBuffer> sc = runtime::ScopedBuffer::allocate(*device, kernel.shape.sRows * kernel.shape.sCols);
  ASSERT_TRUE(x.ok() && q.ok() && sc.ok());
  runtime::KernelArgs args;
  args.buffer(x.value()).buffer(q.value()).buffer(sc.value()).value(int32_t(5)); // x has 1 row
  args.value(int32_t(s.K)).value(int32_t(kernel.shape.qCols));                   // strides
  // Straight to the device, past the launcher's size checks.
  const runtime::LaunchConfig config = runtime::launchConfigFor(kernel.code.launch, 5);
  const Status launched = device->launch(kernel.kernel, config, args);
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.message().find("0x"), std::string::npos) << launched.message();
  std::printf("[ expected ] %s\n", launched.message().c_str());
}

} // namespace
} // namespace mxf::e2e
