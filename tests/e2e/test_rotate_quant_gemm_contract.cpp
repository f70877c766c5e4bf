//===- test_rotate_quant_gemm_contract.cpp - Bad GEMM launches, negative controls -===//
//
// What must be refused before anything runs (y keeps its poison): weight
// codes or scales of the wrong size (the scales of the other layout among
// them), row strides below the row, row counts outside 1..M; what the
// template refuses before any IR exists; a read past the weights, which the
// emulator must catch when a caller bypasses the launcher's size checks; and
// negative controls: the matrix suite's comparison sees a kernel that read
// the other scale layout, another scale byte, or no rotation (and, for
// W6A16, the weight tiles read as plain rows). The fixture runs for one
// A4W4 and one W6A16 spec.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_runner.h"
#include "tests/unit/test_seed.h"

#include "abi/operands.h"
#include "compiler/compiler.h"
#include "numerics/formats.h"
#include "numerics/packing.h"
#include "numerics/reference.h"
#include "runtime/emu_device.h"
#include "runtime/spec_launcher.h"
#include "templates/family_rules.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <random>

namespace mxf::e2e {
namespace {

constexpr uint8_t kPoison = 0xA5;

std::string refusal(const char *text) {
  Result<KernelSpec> parsed = parseSpec(text);
  EXPECT_TRUE(parsed.ok()) << text << ": " << parsed.error();
  return parsed.ok() ? checkCompilable(parsed.value()).message() : std::string();
}

class RotateQuantGemmContract : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    Result<std::unique_ptr<runtime::Device>> opened = runtime::openEmuDevice({});
    ASSERT_TRUE(opened.ok()) << opened.error();
    device = std::move(opened.value());
    Result<KernelSpec> parsed = parseSpec(GetParam());
    ASSERT_TRUE(parsed.ok()) << parsed.error();
    spec = parsed.value();
    Result<CodeObject> compiled = compileSpec(spec, CompileOptions());
    ASSERT_TRUE(compiled.ok()) << compiled.error();
    code = std::move(compiled.value());
    std::mt19937_64 rng(mxf::testing::testSeed(currentTestName().c_str()));
    std::normal_distribution<float> normal;
    x.resize(size_t(m) * size_t(spec.K));
    for (uint16_t &value : x)
      value = f32ToBf16(normal(rng));
    std::vector<uint16_t> w(size_t(spec.N) * size_t(spec.K));
    for (uint16_t &value : w)
      value = f32ToBf16(0.05f * normal(rng));
    Result<QuantizedRows> prepared =
        quantWeight(problemFor(spec, spec.layout), spec.wlayout, w.data(), size_t(spec.N), nullptr);
    ASSERT_TRUE(prepared.ok()) << prepared.error();
    weights = std::move(prepared.value());
  }

  runtime::HostArrays inputs() const {
    runtime::HostArrays given;
    given["x"].resize(x.size() * 2);
    std::memcpy(given["x"].data(), x.data(), x.size() * 2);
    given["w_q"] = weights.codes;
    given["w_s"] = weights.scales;
    return given;
  }

  Result<runtime::SpecLaunch> launch(int rows, const runtime::HostArrays &given,
                                     runtime::SpecLaunchOptions options = {}) {
    options.poison = kPoison;
    return runtime::launchSpec(*device, code.hsaco, code.kernel, code.launch, spec, rows, given,
                               options);
  }

  /// numerics' y for the inputs, with the weight scales `scales` read as
  /// `layout` and the activation rotated by RS (0: not at all).
  std::vector<uint8_t> reference(const std::vector<uint8_t> &scales, ScaleLayout layout,
                                 int rs, std::optional<WeightLayout> wlayout = {}) const {
    KernelSpec asked = spec;
    asked.RS = rs;
    asked.rot = rs ? spec.rot : RotationKind::None;
    GemmProblem problem;
    problem.activation = problemFor(asked, ScaleLayout::Plain);
    problem.n = size_t(spec.N);
    problem.weightLayout = wlayout.value_or(spec.wlayout);
    problem.weightScaleLayout = layout;
    Result<std::vector<uint16_t>> y =
        rotateQuantGemm(problem, x.data(), size_t(m), nullptr, weights.codes.data(), scales.data());
    EXPECT_TRUE(y.ok()) << y.error();
    std::vector<uint8_t> bytes(y.ok() ? y.value().size() * 2 : 0);
    if (y.ok())
      std::memcpy(bytes.data(), y.value().data(), bytes.size());
    return bytes;
  }

  const int m = 5;
  std::unique_ptr<runtime::Device> device;
  KernelSpec spec;
  CodeObject code;
  std::vector<uint16_t> x;
  QuantizedRows weights;
};

TEST_P(RotateQuantGemmContract, WrongSizedWeightsAndStridesAreRefused) {
  ASSERT_TRUE(launch(m, inputs()).ok());

  runtime::HostArrays given = inputs();
  given["w_q"].resize(given["w_q"].size() - 16);
  Result<runtime::SpecLaunch> run = launch(m, given);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("'w_q' has"), std::string::npos) << run.error();

  // The other GEMM's weights: fp4 codes [N, K/2] for W6A16's [N, 3K/4], and
  // the other way round.
  given = inputs();
  const size_t otherRowBytes = spec.fmt == ElemFormat::E2M3 ? spec.K / 2 : spec.K * 3 / 4;
  given["w_q"].assign(size_t(spec.N) * otherRowBytes, 0);
  run = launch(m, given);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("'w_q' has"), std::string::npos) << run.error();

  // Scales in the plain layout's size where the spec says a4w4_shuffle
  // (rows padded to 256): the size names the difference.
  given = inputs();
  given["w_s"].resize(size_t(spec.N) * size_t(spec.K / 32));
  run = launch(m, given);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("'w_s' has"), std::string::npos) << run.error();

  runtime::SpecLaunchOptions narrow;
  narrow.rowStrides["y"] = spec.N - 16;
  run = launch(m, inputs(), narrow);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("row stride of 'y'"), std::string::npos) << run.error();

  runtime::SpecLaunchOptions denseWeights;
  denseWeights.rowStrides["w_q"] = spec.K;
  run = launch(m, inputs(), denseWeights);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("'w_q' takes no row stride"), std::string::npos) << run.error();

  for (int rows : {0, 9, 257}) {
    run = launch(rows, inputs());
    EXPECT_FALSE(run.ok()) << "m=" << rows;
  }
}

TEST(RotateQuantGemmRefusals, TheTemplateRefusesWhatItCannotGenerate) {
  EXPECT_NE(refusal("rotate_quant_gemm:K=4160,N=16").find("K must be a multiple of 128"),
            std::string::npos);
  EXPECT_NE(refusal("rotate_quant_gemm:K=4096,N=16,RS=32,rot=hadamard,round=sr").find("round=sr"),
            std::string::npos);
  EXPECT_NE(refusal("rotate_quant_gemm:K=4096,N=16,RS=256,rot=learned").find("rot=learned at RS=256"),
            std::string::npos);
  EXPECT_NE(refusal("rotate_quant_gemm:K=4096,N=16,RS=64,rot=hadamard_butterfly")
                .find("rot=hadamard_butterfly at RS=64"),
            std::string::npos);
  EXPECT_TRUE(checkCompilable(parseSpec("rotate_quant_gemm:K=4096,N=16,RS=256,rot=learned_per_block")
                                  .value())
                  .ok());
  // W6A16: K in whole 128-channel chunks as A4W4; round=sr is accepted
  // (its activations are not quantized, codeSpec sets round=rne).
  EXPECT_NE(refusal("rotate_quant_gemm:K=4160,N=16,fmt=fp6_e2m3").find("K must be a multiple of 128"),
            std::string::npos);
  EXPECT_NE(refusal("rotate_quant_gemm:K=4096,N=16,RS=64,rot=hadamard_butterfly,fmt=fp6_e2m3")
                .find("rot=hadamard_butterfly at RS=64"),
            std::string::npos);
  EXPECT_TRUE(checkCompilable(parseSpec("rotate_quant_gemm:K=4096,N=16,RS=32,rot=hadamard,"
                                        "fmt=fp6_e2m3,round=sr")
                                  .value())
                  .ok());
}

// The launcher sizes every buffer from the ABI; a caller that launches
// itself can get it wrong. The emulator then refuses the read past the
// weights instead of reading whatever lies there.
TEST_P(RotateQuantGemmContract, TheEmulatorCatchesAReadPastTheWeights) {
  Result<runtime::Module> module = device->loadCodeObject(code.hsaco, {code.kernel});
  ASSERT_TRUE(module.ok()) << module.error();
  Result<runtime::Kernel> kernel = device->getKernel(module.value(), code.kernel.name);
  ASSERT_TRUE(kernel.ok()) << kernel.error();
  const runtime::HostArrays given = inputs();
  std::vector<runtime::KernelArg> operands;
  for (const KernelOperand &operand : kernelOperands(spec, m)) {
    uint64_t bytes = uint64_t(operandSpanBytes(operand, operand.rowElements())) *
                     elementBytes(operand.element);
    if (std::string(operand.name) == "w_q")
      bytes -= 256; // the last row tile's last block column
    Result<runtime::DeviceBuffer> buffer = device->allocate(bytes);
    ASSERT_TRUE(buffer.ok()) << buffer.error();
    if (auto input = given.find(operand.name); input != given.end()) {
      ASSERT_TRUE(device->copyIn(buffer.value(), 0, input->second.data(),
                                 std::min<uint64_t>(bytes, input->second.size()))
                      .ok());
    }
    // A raw address: what an engine passes for memory it allocated itself
    // (KernelArg::buffer would let the launcher see the short size).
    operands.push_back(runtime::KernelArg::pointer(buffer.value().address));
  }
  Result<runtime::SpecLaunchArgs> args = runtime::specLaunchArgs(spec, code.launch, m, operands);
  ASSERT_TRUE(args.ok()) << args.error();
  Status launched = device->launch(kernel.value(), args.value().config, args.value().args);
  ASSERT_FALSE(launched.ok());
  std::printf("[ caught   ] %s\n", launched.message().c_str());
  EXPECT_NE(launched.message().find("outside every registered buffer"), std::string::npos)
      << launched.message();
}

// Negative controls: the kernel's y equals the reference, and differs from
// the reference of a kernel that read the scales in the other layout, one
// that read a scale byte one binade off, and one that did not rotate.
TEST_P(RotateQuantGemmContract, NegativeControlsAreCaught) {
  Result<runtime::SpecLaunch> run = launch(m, inputs());
  ASSERT_TRUE(run.ok()) << run.error();
  const std::vector<uint8_t> &y = run.value().outputs.at("y");
  EXPECT_EQ(y, reference(weights.scales, spec.layout, spec.RS));

  const std::vector<uint8_t> plainScales =
      unshuffleScalesA4W4(weights.scales.data(), size_t(spec.N), size_t(spec.K / 32),
                          kA4W4RowPadding);
  std::vector<uint8_t> asPlain(plainScales.size());
  std::memcpy(asPlain.data(), weights.scales.data(), asPlain.size()); // shuffled bytes read as plain
  EXPECT_NE(y, reference(asPlain, ScaleLayout::Plain, spec.RS));
  EXPECT_EQ(y, reference(plainScales, ScaleLayout::Plain, spec.RS)); // the same scales, plain

  std::vector<uint8_t> bumped = weights.scales;
  bumped[0] = uint8_t(bumped[0] + 1);
  EXPECT_NE(y, reference(bumped, spec.layout, spec.RS));

  EXPECT_NE(y, reference(weights.scales, spec.layout, 0));

  if (spec.wlayout == WeightLayout::W6A16Tile16x128) { // the tiles read as plain rows
    EXPECT_NE(y, reference(weights.scales, spec.layout, spec.RS, WeightLayout::Plain));
  }
}

// The W6A16 kernel sums in numerics' MFMA groups, not in another order
// that random data would rarely tell apart: one 128-channel chunk whose
// products are 2^24 (channel 0, group t=0), 1 (channel 8, t=1), 1
// (channel 16, t=2) and -2^24 (channel 24, t=3) gives 0 (each 1 is lost
// to a rounding of its own); with the ones at channels 25 and 26, inside
// t=3, it gives 2. One exact sum per chunk would give 2 both times.
TEST(RotateQuantGemmW6A16Order, TheKernelRoundsOncePerMfmaGroup) {
  Result<KernelSpec> parsed =
      parseSpec("rotate_quant_gemm:K=128,N=16,M=1,fmt=fp6_e2m3,scale=even126,wlayout=plain");
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  const KernelSpec spec = parsed.value();
  Result<CodeObject> code = compileSpec(spec, CompileOptions());
  ASSERT_TRUE(code.ok()) << code.error();
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice({});
  ASSERT_TRUE(device.ok()) << device.error();
  std::vector<uint8_t> codes(128, 0x08), row(96), weights; // e2m3 1.0 everywhere
  packCodes(ElemFormat::E2M3, codes.data(), 128, row.data());
  for (int j = 0; j < spec.N; ++j)
    weights.insert(weights.end(), row.begin(), row.end());
  auto runWithOnesAt = [&](size_t first, size_t second) {
    std::vector<uint16_t> x(128, f32ToBf16(0.0f));
    x[0] = f32ToBf16(16777216.0f);
    x[24] = f32ToBf16(-16777216.0f);
    x[first] = x[second] = f32ToBf16(1.0f);
    runtime::HostArrays given;
    given["x"].resize(256);
    std::memcpy(given["x"].data(), x.data(), 256);
    given["w_q"] = weights;
    given["w_s"].assign(size_t(spec.N) * 4, 127);
    runtime::SpecLaunchOptions options;
    options.poison = kPoison;
    Result<runtime::SpecLaunch> run =
        runtime::launchSpec(*device.value(), code.value().hsaco, code.value().kernel,
                            code.value().launch, spec, 1, given, options);
    EXPECT_TRUE(run.ok()) << run.error();
    std::vector<float> y;
    if (run.ok())
      for (size_t j = 0; j < size_t(spec.N); ++j) {
        uint16_t bits;
        std::memcpy(&bits, run.value().outputs.at("y").data() + 2 * j, 2);
        y.push_back(bf16ToF32(bits));
      }
    return y;
  };
  EXPECT_EQ(runWithOnesAt(8, 16), std::vector<float>(16, 0.0f));
  EXPECT_EQ(runWithOnesAt(25, 26), std::vector<float>(16, 2.0f));
}

INSTANTIATE_TEST_SUITE_P(
    Gemm, RotateQuantGemmContract,
    ::testing::Values("rotate_quant_gemm:K=512,N=80,RS=64,rot=hadamard,M=8,scale=rceil,"
                      "layout=a4w4_shuffle,wlayout=preshuffle_16x16",
                      "rotate_quant_gemm:K=512,N=80,RS=64,rot=hadamard,M=8,fmt=fp6_e2m3,"
                      "scale=even126,layout=a4w4_shuffle,wlayout=w6a16_16x128"),
    [](const ::testing::TestParamInfo<const char *> &info) {
      return std::string(info.index == 0 ? "A4W4" : "W6A16");
    });

} // namespace
} // namespace mxf::e2e
