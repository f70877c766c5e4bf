//===- test_quant_weight_matrix.cpp - The weight kernel, emulated ---------===//
//
// One test per spec of quantWeightSpecMatrix(): compile in process, launch on
// the emu device through runtime::launchSpec (buffers sized from the ABI, so
// the emulator's bounds checks catch any access past them), with w at a row
// stride on every other spec and the outputs poisoned, and compare every
// byte of q and s (codes in the weight layout, scales with their a4w4
// padding) with numerics' quantWeight. Then the same launch again with the
// workgroups dispatched in reverse and in a shuffled order, other poisons:
// the bytes must repeat exactly (no byte written by two workgroups, none
// left to chance).
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_inputs.h"
#include "tests/e2e/e2e_runner.h"
#include "tests/support/spec_matrix.h"
#include "tests/unit/test_seed.h"

#include "abi/operands.h"
#include "compiler/compiler.h"
#include "numerics/packing.h"
#include "numerics/reference.h"
#include "runtime/emu_device.h"
#include "runtime/spec_launcher.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>

namespace mxf::e2e {
namespace {

const std::vector<KernelSpec> &matrix() {
  static const std::vector<KernelSpec> specs = testing::quantWeightSpecMatrix();
  return specs;
}

std::vector<uint8_t> bytesOf(const std::vector<uint16_t> &values) {
  std::vector<uint8_t> bytes(values.size() * 2);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// The weights of one run: N rows drawn like activations (every
/// distribution, boundary values placed where the rotation keeps them),
/// a learned R if the spec takes one, and a row stride on odd specs.
struct WeightInputs {
  std::vector<uint16_t> w; // dense [N, K]
  std::vector<uint16_t> r;
  int64_t stride = 0; // elements; 0 = dense
};

WeightInputs drawWeights(const KernelSpec &spec, size_t specIndex, uint64_t seed) {
  std::mt19937_64 rng(seed ^ (specIndex * 0x9E3779B97F4A7C15ull));
  WeightInputs inputs;
  inputs.w.reserve(size_t(spec.N) * size_t(spec.K));
  for (int row = 0; row < spec.N; ++row) {
    std::vector<uint16_t> values = activationRow(spec, distributionFor(specIndex, size_t(row)), rng);
    inputs.w.insert(inputs.w.end(), values.begin(), values.end());
  }
  inputs.r = learnedRotation(spec, matrixKindFor(specIndex), rng);
  if (specIndex % 2 == 1)
    inputs.stride = spec.K + 8 * int64_t(1 + rng() % 8);
  return inputs;
}

/// w as the kernel sees it: rows `stride` apart, the gaps bf16 NaNs that
/// would show in the codes if the kernel ever read them.
std::vector<uint16_t> stridedWeights(const KernelSpec &spec, const WeightInputs &inputs) {
  const size_t k = size_t(spec.K), n = size_t(spec.N);
  const size_t stride = inputs.stride ? size_t(inputs.stride) : k;
  std::vector<uint16_t> out((n - 1) * stride + k);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = uint16_t(0x7FC1 + i % 7);
  for (size_t row = 0; row < n; ++row)
    std::copy_n(inputs.w.begin() + row * k, k, out.begin() + row * stride);
  return out;
}

struct Launched {
  runtime::SpecLaunch launch;
  double ms = 0;
};

Result<Launched> launchOn(const CodeObject &code, const KernelSpec &spec,
                          const WeightInputs &inputs, emu::WorkgroupOrder order, uint64_t orderSeed,
                          uint8_t poison) {
  runtime::EmuDeviceOptions options;
  options.threads = 1; // ctest -j runs one spec per core
  options.workgroupOrder = order;
  options.workgroupOrderSeed = orderSeed;
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice(options);
  if (!device.ok())
    return device.status();
  runtime::HostArrays given;
  given["w"] = bytesOf(stridedWeights(spec, inputs));
  if (!inputs.r.empty())
    given["r"] = bytesOf(inputs.r);
  runtime::SpecLaunchOptions launchOptions;
  launchOptions.poison = poison;
  if (inputs.stride)
    launchOptions.rowStrides["w"] = inputs.stride;
  const auto start = std::chrono::steady_clock::now();
  Result<runtime::SpecLaunch> launched =
      runtime::launchSpec(*device.value(), code.hsaco, code.kernel, code.launch, spec, spec.N,
                          given, launchOptions);
  if (!launched.ok())
    return launched.status();
  Launched out;
  out.launch = std::move(launched.value());
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
               .count();
  return out;
}

/// Mismatching bytes of `got` against `expected`, with the first few named.
std::string compareBytes(const char *name, const std::vector<uint8_t> &got,
                         const std::vector<uint8_t> &expected, size_t rowBytes) {
  if (got.size() != expected.size())
    return std::string(name) + ": " + std::to_string(got.size()) + " bytes, expected " +
           std::to_string(expected.size());
  size_t mismatches = 0;
  std::string first;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != expected[i] && ++mismatches <= 4) {
      char line[160];
      std::snprintf(line, sizeof line, "\n    %s offset %zu (row %zu byte %zu of the buffer): got 0x%02x, expected 0x%02x",
                    name, i, i / rowBytes, i % rowBytes, got[i], expected[i]);
      first += line;
    }
  if (mismatches == 0)
    return "";
  return std::string(name) + ": " + std::to_string(mismatches) + " of " +
         std::to_string(got.size()) + " bytes differ" + first;
}

class QuantWeightMatrix : public ::testing::TestWithParam<size_t> {};

TEST_P(QuantWeightMatrix, MatchesReferenceInEveryWorkgroupOrder) {
  const size_t index = GetParam();
  const KernelSpec &spec = matrix()[index];
  const uint64_t seed = testing::testSeed(currentTestName().c_str());
  std::printf("[ spec     ] %s\n", printSpec(spec).c_str());

  Result<CodeObject> code = compileSpec(spec, CompileOptions());
  ASSERT_TRUE(code.ok()) << printSpec(spec) << ": " << code.error();
  EXPECT_EQ(code.value().kernel.scratchBytes, 0u) << printSpec(spec);
  EXPECT_EQ(code.value().launch.maxRows, uint32_t(spec.N));

  const WeightInputs inputs = drawWeights(spec, index, seed);
  RotateQuantProblem problem = problemFor(spec, spec.layout);
  Result<QuantizedRows> expected = quantWeight(problem, spec.wlayout, inputs.w.data(),
                                               size_t(spec.N),
                                               inputs.r.empty() ? nullptr : inputs.r.data());
  ASSERT_TRUE(expected.ok()) << expected.error();
  const size_t rowBytes = packedBytes(spec.fmt, size_t(spec.K));

  struct Order {
    emu::WorkgroupOrder order;
    const char *name;
    uint8_t poison;
  };
  const Order orders[] = {{emu::WorkgroupOrder::Forward, "forward", 0xA5},
                          {emu::WorkgroupOrder::Reverse, "reverse", 0x5A},
                          {emu::WorkgroupOrder::Shuffled, "shuffled", 0xC3}};
  std::vector<uint8_t> firstQ, firstS;
  for (const Order &order : orders) {
    Result<Launched> run = launchOn(code.value(), spec, inputs, order.order, seed, order.poison);
    ASSERT_TRUE(run.ok()) << printSpec(spec) << " (" << order.name << "): " << run.error();
    const std::vector<uint8_t> &q = run.value().launch.outputs.at("q");
    const std::vector<uint8_t> &s = run.value().launch.outputs.at("s");
    std::printf("[ %-8s ] grid (%u, %u), %.0f ms emulated, w stride %lld\n", order.name,
                run.value().launch.grid.x, run.value().launch.grid.y, run.value().ms,
                (long long)inputs.stride);
    const std::string codes = compareBytes("q", q, expected.value().codes, rowBytes);
    const std::string scales =
        compareBytes("s", s, expected.value().scales, size_t(spec.K) / 32);
    EXPECT_TRUE(codes.empty() && scales.empty())
        << printSpec(spec) << ", workgroups " << order.name << ", seed " << seed << "\n  "
        << codes << "\n  " << scales;
    if (firstQ.empty()) {
      firstQ = q;
      firstS = s;
    } else {
      EXPECT_TRUE(q == firstQ && s == firstS)
          << printSpec(spec) << ": the " << order.name << " order wrote other bytes";
    }
  }
}

std::string specTestName(const ::testing::TestParamInfo<size_t> &info) {
  return matrixTestName(matrix()[info.param], info.param);
}

INSTANTIATE_TEST_SUITE_P(Spec, QuantWeightMatrix, ::testing::Range<size_t>(0, matrix().size()),
                         specTestName);

} // namespace
} // namespace mxf::e2e
