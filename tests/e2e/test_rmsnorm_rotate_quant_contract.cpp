//===- test_rmsnorm_rotate_quant_contract.cpp - The norm's launches -------===//
//
// What an engine gets wrong at the norm's boundary: eps missing, refused or
// misnamed, the residual missing, a spec whose LDS does not fit; each is
// refused with a message that names it. And the negative controls: a
// launch with another eps than the reference's, or the residual of
// another row, is caught by the byte comparison the matrix relies on.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_runner.h"
#include "tests/e2e/rmsnorm_case.h"
#include "tests/unit/test_seed.h"
#include "tests/support/parsed_spec.h"

#include "abi/operands.h"
#include "compiler/compiler.h"
#include "runtime/emu_device.h"
#include "numerics/formats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mxf::e2e {
namespace {

using testing::parsed;

struct Compiled {
  KernelSpec spec;
  CodeObject code;
};

const Compiled &withResidual() {
  static const Compiled compiled = [] {
    KernelSpec spec = parsed("rmsnorm_rotate_quant:K=512,RS=64,rot=hadamard,add=1,M=4");
    Result<CodeObject> code = compileSpec(spec, CompileOptions());
    EXPECT_TRUE(code.ok()) << code.error();
    return Compiled{spec, code.ok() ? code.value() : CodeObject{}};
  }();
  return compiled;
}

/// Draws a launch of `m` rows and its reference.
struct Case {
  NormInputs in;
  arrays::ReferenceRun expected;
};
Case drawCase(const KernelSpec &spec, int m, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Case c{drawNormInputs(spec, m, seed % 5, true, rng), {}};
  Result<arrays::ReferenceRun> expected = normReference(spec, c.in);
  EXPECT_TRUE(expected.ok()) << expected.error();
  if (expected.ok())
    c.expected = std::move(expected.value());
  return c;
}

Status launchWith(const LaunchValues &values, uint64_t seed) {
  const Compiled &kernel = withResidual();
  Case c = drawCase(kernel.spec, 3, seed);
  Result<runtime::SpecLaunch> launched = launchNorm(kernel.code, kernel.spec, c.in, c.expected,
                                                    emu::WorkgroupOrder::Forward, 0, 0xA5,
                                                    &values);
  return launched.status();
}

TEST(RmsnormRotateQuantContract, EpsIsRequiredNamedAndChecked) {
  const uint64_t seed = testing::testSeed("RmsnormRotateQuantContract.EpsIsRequired");
  Status missing = launchWith({}, seed);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("needs the by-value 'eps'"), std::string::npos)
      << missing.message();
  for (double bad : {-1e-6, std::nan(""), double(INFINITY), 2.0}) {
    Status refused = launchWith({{"eps", bad}}, seed);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.message().find("eps must be a finite value in [0, 1]"), std::string::npos)
        << refused.message();
  }
  Status misnamed = launchWith({{"eps", 1e-6}, {"epsilon", 1e-6}}, seed);
  ASSERT_FALSE(misnamed.ok());
  EXPECT_NE(misnamed.message().find("'epsilon' is not a value of rmsnorm_rotate_quant (its "
                                    "values: eps)"),
            std::string::npos)
      << misnamed.message();
  // An op without values refuses one.
  EXPECT_NE(checkLaunchValues(parsed("rotate_quant:K=512"), {{"eps", 1e-6}})
                .message()
                .find("'eps' is not a value of rotate_quant (it takes none)"),
            std::string::npos);
  // The control: the same launch with eps succeeds.
  EXPECT_TRUE(launchWith({{"eps", 1e-6}}, seed).ok());
}

TEST(RmsnormRotateQuantContract, TheResidualIsAnInputWhenTheSpecSaysSo) {
  const Compiled &kernel = withResidual();
  const uint64_t seed = testing::testSeed("RmsnormRotateQuantContract.Residual");
  Case c = drawCase(kernel.spec, 2, seed);
  // The kernel of add=1 launched with every input but its residual: refused
  // by name before anything runs.
  runtime::HostArrays given;
  for (const auto &[name, array] : c.expected.inputs)
    if (name != "residual")
      given[name] = std::vector<uint8_t>(reinterpret_cast<const uint8_t *>(
                                             array.as<uint16_t>().data()),
                                         reinterpret_cast<const uint8_t *>(
                                             array.as<uint16_t>().data() + array.size()));
  runtime::SpecLaunchOptions options;
  options.values = {{"eps", 1e-6}};
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice(caseDeviceOptions());
  ASSERT_TRUE(device.ok()) << device.error();
  Result<runtime::SpecLaunch> launched =
      runtime::launchSpec(*device.value(), kernel.code.hsaco, kernel.code.kernel,
                          kernel.code.launch, kernel.spec, 2, given, options);
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().find("input 'residual' is missing"), std::string::npos)
      << launched.error();
  // The control: with the residual, the same launch runs.
  given["residual"] = std::vector<uint8_t>(
      reinterpret_cast<const uint8_t *>(c.in.residual.data()),
      reinterpret_cast<const uint8_t *>(c.in.residual.data() + c.in.residual.size()));
  EXPECT_TRUE(runtime::launchSpec(*device.value(), kernel.code.hsaco, kernel.code.kernel,
                                  kernel.code.launch, kernel.spec, 2, given, options)
                  .ok());
  EXPECT_FALSE(parseSpec("rmsnorm_rotate_quant:K=512,add=2").ok());
  EXPECT_NE(parseSpec("rmsnorm_rotate_quant:K=512,add=2").error().find("add must be 0"),
            std::string::npos);
}

TEST(RmsnormRotateQuantContract, AKWhosePartialsDoNotFitIsRefusedByName) {
  Result<CodeObject> code = compileSpec(
      parsed("rmsnorm_rotate_quant:K=32768,RS=128,rot=learned,add=1,M=1"), CompileOptions());
  ASSERT_FALSE(code.ok());
  EXPECT_NE(code.error().find("bytes of LDS per workgroup"), std::string::npos) << code.error();
  EXPECT_NE(code.error().find("K up to 16384 fits"), std::string::npos) << code.error();
}

TEST(RmsnormRotateQuantContract, NegativeControlsAnotherEpsOrResidualIsCaught) {
  const Compiled &kernel = withResidual();
  const uint64_t seed = testing::testSeed("RmsnormRotateQuantContract.NegativeControls");
  Case c = drawCase(kernel.spec, 4, seed);
  // Rows whose mean square (about 0.01) eps = 0.25 dwarfs, so that the
  // other eps changes every normalized value.
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> small(0.0f, 0.07f);
  for (std::vector<uint16_t> *rows : {&c.in.x, &c.in.residual})
    for (uint16_t &value : *rows)
      value = f32ToBf16(small(rng));
  c.in.eps = 1e-6;
  Result<arrays::ReferenceRun> expected = normReference(kernel.spec, c.in);
  ASSERT_TRUE(expected.ok()) << expected.error();
  c.expected = std::move(expected.value());
  // Launched with another eps than the reference used: the bytes differ.
  const LaunchValues other{{"eps", 0.25}};
  Result<runtime::SpecLaunch> wrongEps = launchNorm(
      kernel.code, kernel.spec, c.in, c.expected, emu::WorkgroupOrder::Forward, 0, 0xA5, &other);
  ASSERT_TRUE(wrongEps.ok()) << wrongEps.error();
  EXPECT_FALSE(compareReferenceOutputs(c.expected, wrongEps.value()).empty());
  // One residual row swapped with the next: residual_out and the codes of
  // those rows differ.
  NormInputs swapped = c.in;
  const size_t k = size_t(kernel.spec.K);
  std::swap_ranges(swapped.residual.begin(), swapped.residual.begin() + long(k),
                   swapped.residual.begin() + long(k));
  arrays::ReferenceRun fed = c.expected;
  fed.inputs.erase("residual");
  Result<runtime::SpecLaunch> wrongResidual = launchNorm(
      kernel.code, kernel.spec, swapped, fed, emu::WorkgroupOrder::Forward, 0, 0xA5);
  ASSERT_TRUE(wrongResidual.ok()) << wrongResidual.error();
  const std::string mismatches = compareReferenceOutputs(c.expected, wrongResidual.value());
  EXPECT_NE(mismatches.find("residual_out"), std::string::npos) << mismatches;
  EXPECT_NE(mismatches.find("q:"), std::string::npos) << mismatches;
  // The control of the controls: the right launch agrees.
  Result<runtime::SpecLaunch> right = launchNorm(kernel.code, kernel.spec, c.in, c.expected,
                                                 emu::WorkgroupOrder::Reverse, 0, 0x5A);
  ASSERT_TRUE(right.ok()) << right.error();
  EXPECT_EQ(compareReferenceOutputs(c.expected, right.value()), "");
}

} // namespace
} // namespace mxf::e2e
