//===- test_launch_contract.cpp - Launching from the ABI and its record ---===//
//
// What an engine relies on when it launches a kernel itself: the launch
// record and the abi/ argument order alone give the same bytes as the spec
// launcher (`mxforge run`), and every bad launch argument is refused with a
// message naming it before anything runs (the outputs keep their poison).
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_runner.h"
#include "tests/unit/test_seed.h"

#include "abi/operands.h"
#include "runtime/emu_device.h"
#include "runtime/kernel_args.h"
#include "runtime/spec_launcher.h"

#include <gtest/gtest.h>

#include <random>

namespace mxf::e2e {
namespace {

class LaunchContract : public ::testing::Test {
protected:
  void SetUp() override {
    Result<std::unique_ptr<runtime::Device>> opened = runtime::openEmuDevice({});
    ASSERT_TRUE(opened.ok()) << opened.error();
    device = std::move(opened.value());
    Result<KernelSpec> parsed =
        parseSpec("rotate_quant:K=512,RS=64,rot=hadamard,M=16,layout=a4w4_shuffle");
    ASSERT_TRUE(parsed.ok()) << parsed.error();
    spec = parsed.value();
    Result<LoadedKernel> loaded = compileAndLoad(*device, spec);
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    kernel = std::move(loaded.value());
    const uint64_t seed = mxf::testing::testSeed("LaunchContract");
    std::mt19937_64 rng(seed);
    x.resize(size_t(m) * 512 * 2);
    for (uint8_t &byte : x)
      byte = uint8_t(rng() % 0x7F); // finite bf16 patterns
  }

  /// Buffers for m rows, dense: x, q and s (poisoned).
  struct Buffers {
    runtime::ScopedBuffer x, q, s;
  };
  Buffers allocate(uint64_t xBytes, uint64_t qBytes, uint64_t sBytes) {
    Buffers b;
    b.x = std::move(runtime::ScopedBuffer::allocate(*device, xBytes).value());
    b.q = std::move(runtime::ScopedBuffer::allocate(*device, qBytes).value());
    b.s = std::move(runtime::ScopedBuffer::allocate(*device, sBytes).value());
    EXPECT_TRUE(device->copyIn(b.x, 0, x.data(), std::min<uint64_t>(xBytes, x.size())).ok());
    std::vector<uint8_t> poison(std::max(qBytes, sBytes), kPoison);
    EXPECT_TRUE(device->copyIn(b.q, 0, poison.data(), qBytes).ok());
    EXPECT_TRUE(device->copyIn(b.s, 0, poison.data(), sBytes).ok());
    return b;
  }
  std::vector<uint8_t> read(const runtime::ScopedBuffer &buffer) {
    std::vector<uint8_t> bytes(buffer.get().size);
    EXPECT_TRUE(device->copyOut(buffer, 0, bytes.data(), bytes.size()).ok());
    return bytes;
  }
  uint64_t bytesOf(const char *name) {
    return runtime::operandBytes(spec, m, name).value();
  }
  /// Launches through the spec launcher; the outputs must keep the poison
  /// when it refuses.
  std::string refused(Buffers &b, int rows, const runtime::RowStrides &strides = {},
                      const LaunchRecord *record = nullptr) {
    Status launched = runtime::launchSpecKernel(
        *device, kernel.kernel, spec, record ? *record : kernel.code.launch, rows,
        {runtime::KernelArg::buffer(b.x.get()), runtime::KernelArg::buffer(b.q.get()),
         runtime::KernelArg::buffer(b.s.get())},
        strides);
    EXPECT_FALSE(launched.ok());
    for (uint8_t byte : read(b.q))
      if (byte != kPoison) {
        ADD_FAILURE() << "a refused launch wrote q";
        break;
      }
    return launched.ok() ? "" : launched.message();
  }

  static constexpr uint8_t kPoison = 0xA5;
  const int m = 5;
  std::unique_ptr<runtime::Device> device;
  KernelSpec spec;
  LoadedKernel kernel;
  std::vector<uint8_t> x;
};

TEST_F(LaunchContract, TheRecordAloneGivesTheBytesOfTheSpecLauncher) {
  runtime::SpecLaunchOptions options;
  options.poison = kPoison;
  Result<runtime::SpecLaunch> viaSpec = runtime::launchSpec(
      *device, kernel.code.hsaco, kernel.code.kernel, kernel.code.launch, spec, m, {{"x", x}},
      options);
  ASSERT_TRUE(viaSpec.ok()) << viaSpec.error();

  // An engine's launch: buffers in abi/ order, then m and the strides, the
  // grid from the record; no spec, no launcher.
  Buffers b = allocate(x.size(), bytesOf("q"), bytesOf("s"));
  runtime::KernelArgs args;
  args.buffer(b.x.get()).buffer(b.q.get()).buffer(b.s.get());
  args.value(int32_t(m)).value(int32_t(512)).value(int32_t(256));
  const runtime::LaunchConfig config = runtime::launchConfigFor(kernel.code.launch, m);
  ASSERT_TRUE(device->launch(kernel.kernel, config, args).ok());
  EXPECT_EQ(read(b.q), viaSpec.value().outputs.at("q"));
  EXPECT_EQ(read(b.s), viaSpec.value().outputs.at("s"));
  EXPECT_EQ(config.grid.x, viaSpec.value().grid.x);
  EXPECT_EQ(config.grid.y, viaSpec.value().grid.y);
}

TEST_F(LaunchContract, BadRowCountsStridesAndBuffersAreRefusedByName) {
  Buffers b = allocate(x.size(), bytesOf("q"), bytesOf("s"));
  // Rows up to the code object's class limit (256), not the spec's bucket
  // (16), which only names the class.
  EXPECT_NE(refused(b, 0).find("m=0 is outside 1..256 (the rows this code object serves)"),
            std::string::npos);
  EXPECT_NE(refused(b, 257).find("m=257 is outside 1..256 (the rows this code object serves)"),
            std::string::npos);
  // A record whose class serves fewer rows than the spec's bucket.
  LaunchRecord small = kernel.code.launch;
  small.maxRows = 4;
  EXPECT_NE(refused(b, m, {}, &small).find("m=5 is outside 1..4 (the rows this code object"),
            std::string::npos);
  EXPECT_NE(refused(b, m, {{"x", 500}}).find("the row stride of 'x' is 500; it must be at least 512"),
            std::string::npos);
  EXPECT_NE(refused(b, m, {{"s", 600}}).find("'s' takes no row stride"), std::string::npos);
  EXPECT_NE(refused(b, m, {{"y", 600}}).find("'y' is not an operand"), std::string::npos);
  // m rows at a wider stride span more than x holds.
  std::string tooSmall = refused(b, m, {{"x", 1024}});
  EXPECT_NE(tooSmall.find("'x' has 5120 bytes, m=5 rows need 9216"), std::string::npos)
      << tooSmall;
  EXPECT_NE(tooSmall.find("row stride 1024"), std::string::npos) << tooSmall;
  Buffers shortS = allocate(x.size(), bytesOf("q"), bytesOf("s") - 1);
  EXPECT_NE(refused(shortS, m).find("'s' has"), std::string::npos);
  // A record that disagrees with the code object's metadata loads nothing.
  LaunchRecord wrong = kernel.code.launch;
  wrong.ldsBytes += 1024;
  Result<runtime::SpecLaunch> launched = runtime::launchSpec(
      *device, kernel.code.hsaco, kernel.code.kernel, wrong, spec, m, {{"x", x}});
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().find("the launch record says 1024 LDS bytes"), std::string::npos)
      << launched.error();
}

} // namespace
} // namespace mxf::e2e
