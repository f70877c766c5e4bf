//===- test_quant_weight_contract.cpp - Bad weight launches, negative controls -===//
//
// What must be refused before anything runs (the outputs keep their
// poison): a row count other than N, a weight buffer too small for N rows
// at its stride, a stride below the row; what the template refuses before
// any IR exists; and a negative control: the matrix suite's comparison sees
// a kernel whose code layout is not the one it claims.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_runner.h"
#include "tests/unit/test_seed.h"

#include "abi/operands.h"
#include "compiler/compiler.h"
#include "numerics/reference.h"
#include "runtime/emu_device.h"
#include "runtime/spec_launcher.h"
#include "templates/family_rules.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace mxf::e2e {
namespace {

constexpr uint8_t kPoison = 0xA5;

class QuantWeightContract : public ::testing::Test {
protected:
  void SetUp() override {
    Result<std::unique_ptr<runtime::Device>> opened = runtime::openEmuDevice({});
    ASSERT_TRUE(opened.ok()) << opened.error();
    device = std::move(opened.value());
    Result<KernelSpec> parsed = parseSpec("quant_weight:K=256,N=48,RS=64,rot=hadamard,"
                                          "layout=a4w4_shuffle,wlayout=preshuffle_16x16");
    ASSERT_TRUE(parsed.ok()) << parsed.error();
    spec = parsed.value();
    Result<CodeObject> compiled = compileSpec(spec, CompileOptions());
    ASSERT_TRUE(compiled.ok()) << compiled.error();
    code = std::move(compiled.value());
    std::mt19937_64 rng(mxf::testing::testSeed("QuantWeightContract"));
    std::normal_distribution<float> normal;
    w.resize(size_t(spec.N) * size_t(spec.K));
    for (uint16_t &value : w) {
      const float f = normal(rng);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      value = uint16_t(bits >> 16);
    }
  }

  runtime::HostArrays inputs() const {
    runtime::HostArrays given;
    std::vector<uint8_t> bytes(w.size() * 2);
    std::memcpy(bytes.data(), w.data(), bytes.size());
    given["w"] = std::move(bytes);
    return given;
  }

  Result<runtime::SpecLaunch> launch(int m, const runtime::HostArrays &given,
                                     runtime::SpecLaunchOptions options = {}) {
    options.poison = kPoison;
    return runtime::launchSpec(*device, code.hsaco, code.kernel, code.launch, spec, m, given,
                               options);
  }

  std::unique_ptr<runtime::Device> device;
  KernelSpec spec;
  CodeObject code;
  std::vector<uint16_t> w;
};

TEST_F(QuantWeightContract, RowCountMustBeN) {
  for (int m : {0, 1, 47, 49, 256}) {
    Result<runtime::SpecLaunch> run = launch(m, inputs());
    ASSERT_FALSE(run.ok()) << "m=" << m;
    EXPECT_NE(run.error().find("always processes its N=48 rows"), std::string::npos)
        << run.error();
  }
  EXPECT_TRUE(launch(48, inputs()).ok());
  EXPECT_TRUE(checkLaunchRows(spec, 48).ok());
  EXPECT_EQ(maxLaunchRows(spec), 48);
}

TEST_F(QuantWeightContract, ShortWeightsAndBadStridesAreRefused) {
  runtime::HostArrays given = inputs();
  given["w"].resize(given["w"].size() - 2);
  Result<runtime::SpecLaunch> run = launch(spec.N, given);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("'w' has"), std::string::npos) << run.error();

  runtime::SpecLaunchOptions narrow;
  narrow.rowStrides["w"] = spec.K - 8;
  run = launch(spec.N, inputs(), narrow);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("row stride of 'w'"), std::string::npos) << run.error();

  // q and s are dense by definition of the weight layouts.
  runtime::SpecLaunchOptions codesStrided;
  codesStrided.rowStrides["q"] = spec.K;
  run = launch(spec.N, inputs(), codesStrided);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("'q' takes no row stride"), std::string::npos) << run.error();
}

TEST_F(QuantWeightContract, TheTemplateRefusesWhatItCannotGenerate) {
  auto refusal = [](const char *text) {
    Result<KernelSpec> parsed = parseSpec(text);
    EXPECT_TRUE(parsed.ok()) << text << ": " << parsed.error();
    return parsed.ok() ? checkCompilable(parsed.value()).message() : std::string();
  };
  EXPECT_NE(refusal("quant_weight:K=65536,N=65552,RS=0").find("65536 x 65536"), std::string::npos);
  EXPECT_TRUE(checkCompilable(parseSpec("quant_weight:K=65536,N=65536,RS=0").value()).ok());
  EXPECT_NE(refusal("quant_weight:K=256,N=16,RS=64,rot=hadamard_butterfly")
                .find("quant_weight template does not support rot=hadamard_butterfly"),
            std::string::npos);
  EXPECT_NE(refusal("quant_weight:K=256,N=16,RS=32,rot=hadamard,round=sr").find("round=sr"),
            std::string::npos);
}

// Negative control: the matrix suite compares whole buffers with the
// reference; the same comparison against the reference of the other code
// layout (plain instead of preshuffled) must fail, and it must fail for
// the codes only.
TEST_F(QuantWeightContract, NegativeControlWrongLayoutIsCaught) {
  Result<runtime::SpecLaunch> run = launch(spec.N, inputs());
  ASSERT_TRUE(run.ok()) << run.error();
  RotateQuantProblem problem = problemFor(spec, spec.layout);
  Result<QuantizedRows> right = quantWeight(problem, spec.wlayout, w.data(), size_t(spec.N), nullptr);
  Result<QuantizedRows> wrong =
      quantWeight(problem, WeightLayout::Plain, w.data(), size_t(spec.N), nullptr);
  ASSERT_TRUE(right.ok() && wrong.ok());
  EXPECT_EQ(run.value().outputs.at("q"), right.value().codes);
  EXPECT_EQ(run.value().outputs.at("s"), right.value().scales);
  EXPECT_NE(run.value().outputs.at("q"), wrong.value().codes);
  EXPECT_EQ(run.value().outputs.at("s"), wrong.value().scales);
}

} // namespace
} // namespace mxf::e2e
