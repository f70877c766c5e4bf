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
//  - every output is within the bound docs/templates.md derives of the
//    float64 product of the dequantized operands.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_inputs.h"
#include "tests/e2e/e2e_runner.h"
#include "tests/support/spec_matrix.h"
#include "tests/unit/test_seed.h"

#include "abi/operands.h"
#include "compiler/compiler.h"
#include "numerics/formats.h"
#include "numerics/reference.h"
#include "runtime/emu_device.h"
#include "runtime/spec_launcher.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace mxf::e2e {
namespace {

const std::vector<KernelSpec> &matrix() {
  static const std::vector<KernelSpec> specs = testing::rotateQuantGemmSpecMatrix();
  return specs;
}

template <typename T> std::vector<uint8_t> bytesOf(const std::vector<T> &values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// One run's inputs: m rows of x (dense), the learned R if any, the weight
/// matrix W (N rows drawn like activations) prepared in the spec's layouts
/// and in plain ones (for the float64 check), and the row strides.
struct GemmInputs {
  int m = 0;
  std::vector<uint16_t> x, r, w;
  QuantizedRows weights, plainWeights;
  int64_t xStride = 0, yStride = 0; // elements; 0 = dense
};

GemmInputs drawInputs(const KernelSpec &spec, size_t specIndex, uint64_t seed) {
  std::mt19937_64 rng(seed ^ (specIndex * 0x9E3779B97F4A7C15ull));
  GemmInputs in;
  in.m = 1 + int(rng() % uint64_t(spec.M));
  for (int row = 0; row < in.m; ++row) {
    std::vector<uint16_t> values = activationRow(spec, distributionFor(specIndex, size_t(row)), rng);
    in.x.insert(in.x.end(), values.begin(), values.end());
  }
  in.r = learnedRotation(spec, matrixKindFor(specIndex), rng);
  // Weights: normal rows (a weight matrix has no activation outliers), so the
  // products and the float64 bound are meaningful at every N.
  std::normal_distribution<float> normal(0.0f, 0.05f);
  in.w.resize(size_t(spec.N) * size_t(spec.K));
  for (uint16_t &v : in.w)
    v = f32ToBf16(normal(rng));
  if (specIndex % 2 == 1)
    in.xStride = spec.K + 8 * int64_t(1 + rng() % 8);
  if (specIndex % 3 == 1)
    in.yStride = spec.N + 4 * int64_t(1 + rng() % 8);
  RotateQuantProblem problem = problemFor(spec, spec.layout);
  problem.quant.rounding = Rounding::Rne;
  const uint16_t *r = in.r.empty() ? nullptr : in.r.data();
  Result<QuantizedRows> weights =
      quantWeight(problem, spec.wlayout, in.w.data(), size_t(spec.N), r);
  problem.scaleLayout = ScaleLayout::Plain;
  Result<QuantizedRows> plain =
      quantWeight(problem, WeightLayout::Plain, in.w.data(), size_t(spec.N), r);
  if (weights.ok() && plain.ok()) {
    in.weights = std::move(weights.value());
    in.plainWeights = std::move(plain.value());
  }
  return in;
}

/// x as the kernel sees it: rows `stride` apart, the gaps bf16 NaNs that
/// would reach y if the kernel ever read them.
std::vector<uint16_t> stridedRows(const std::vector<uint16_t> &dense, size_t rows, size_t cols,
                                  size_t stride) {
  std::vector<uint16_t> out((rows - 1) * stride + cols);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = uint16_t(0x7FC1 + i % 7);
  for (size_t row = 0; row < rows; ++row)
    std::copy_n(dense.begin() + row * cols, cols, out.begin() + row * stride);
  return out;
}

Result<runtime::SpecLaunch> launchOn(const CodeObject &code, const KernelSpec &spec,
                                     const GemmInputs &in, emu::WorkgroupOrder order,
                                     uint64_t orderSeed, uint8_t poison) {
  runtime::EmuDeviceOptions options;
  options.threads = 1; // ctest -j runs one spec per core
  options.workgroupOrder = order;
  options.workgroupOrderSeed = orderSeed;
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice(options);
  if (!device.ok())
    return device.status();
  const size_t k = size_t(spec.K);
  runtime::HostArrays given;
  given["x"] = bytesOf(stridedRows(in.x, size_t(in.m), k, in.xStride ? size_t(in.xStride) : k));
  if (!in.r.empty())
    given["r"] = bytesOf(in.r);
  given["w_q"] = in.weights.codes;
  given["w_s"] = in.weights.scales;
  runtime::SpecLaunchOptions launchOptions;
  launchOptions.poison = poison;
  if (in.xStride)
    launchOptions.rowStrides["x"] = in.xStride;
  if (in.yStride)
    launchOptions.rowStrides["y"] = in.yStride;
  return runtime::launchSpec(*device.value(), code.hsaco, code.kernel, code.launch, spec, in.m,
                             given, launchOptions);
}

/// y's bytes as the kernel must leave them: the reference's rows at the
/// stride, the gaps still the poison.
std::vector<uint8_t> expectedY(const KernelSpec &spec, const GemmInputs &in,
                               const std::vector<uint16_t> &y, uint8_t poison) {
  const size_t n = size_t(spec.N), stride = in.yStride ? size_t(in.yStride) : n;
  std::vector<uint8_t> out(((size_t(in.m) - 1) * stride + n) * 2, poison);
  for (size_t row = 0; row < size_t(in.m); ++row)
    std::memcpy(out.data() + row * stride * 2, y.data() + row * n, n * 2);
  return out;
}

std::string compareY(const std::vector<uint8_t> &got, const std::vector<uint8_t> &expected,
                     size_t rowElements) {
  if (got.size() != expected.size())
    return "y: " + std::to_string(got.size()) + " bytes, expected " +
           std::to_string(expected.size());
  size_t mismatches = 0;
  std::string first;
  for (size_t i = 0; i + 1 < got.size(); i += 2)
    if ((got[i] != expected[i] || got[i + 1] != expected[i + 1]) && ++mismatches <= 4) {
      char line[160];
      std::snprintf(line, sizeof line,
                    "\n    y element %zu (row %zu, column %zu at the stride): got 0x%02x%02x, "
                    "expected 0x%02x%02x",
                    i / 2, i / 2 / rowElements, i / 2 % rowElements, got[i + 1], got[i],
                    expected[i + 1], expected[i]);
      first += line;
    }
  if (mismatches == 0)
    return "";
  return "y: " + std::to_string(mismatches) + " of " + std::to_string(got.size() / 2) +
         " elements differ" + first;
}

/// docs/templates.md, "The error bound": with C = K/128 chunk roundings to
/// f32 (u = 2^-24) and one to bf16 (2^-8),
///   |y - exact| <= 2^-8 |exact| + (1 + 2^-8) * 1.01 * C * u * sum|a_k w_k| + 2^-133.
/// Returns the number of outputs outside it (and describes the first).
size_t countOutsideBound(const KernelSpec &spec, const GemmInputs &in,
                         const std::vector<uint16_t> &y, std::string &first) {
  RotateQuantProblem problem = problemFor(spec, ScaleLayout::Plain);
  Result<QuantizedRows> act = rotateQuant(problem, in.x.data(), size_t(in.m),
                                          in.r.empty() ? nullptr : in.r.data());
  if (!act.ok()) {
    first = act.error();
    return 1;
  }
  const std::vector<float> a = dequantizeRows(act.value());
  const std::vector<float> w = dequantizeRows(in.plainWeights);
  const size_t k = size_t(spec.K), n = size_t(spec.N);
  const double u = std::ldexp(1.0, -24), chunks = double(k / 128);
  size_t outside = 0;
  for (size_t i = 0; i < size_t(in.m); ++i)
    for (size_t j = 0; j < n; ++j) {
      double exact = 0, magnitude = 0;
      for (size_t c = 0; c < k; ++c) {
        const double p = double(a[i * k + c]) * double(w[j * k + c]);
        exact += p;
        magnitude += std::fabs(p);
      }
      const double bound = std::ldexp(std::fabs(exact), -8) +
                           (1 + std::ldexp(1.0, -8)) * 1.01 * chunks * u * magnitude +
                           std::ldexp(1.0, -133);
      const double got = double(bf16ToF32(y[i * n + j]));
      if (!(std::fabs(got - exact) <= bound) && ++outside == 1) {
        char line[200];
        std::snprintf(line, sizeof line, "y[%zu][%zu] = %.9g, float64 %.9g, bound %.3g", i, j,
                      got, exact, bound);
        first = line;
      }
    }
  return outside;
}

class RotateQuantGemmMatrix : public ::testing::TestWithParam<size_t> {};

TEST_P(RotateQuantGemmMatrix, MatchesReferenceBitForBitInEveryWorkgroupOrder) {
  const size_t index = GetParam();
  const KernelSpec &spec = matrix()[index];
  const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string testName = std::string(info->test_suite_name()) + "." + info->name();
  const uint64_t seed = testing::testSeed(testName.c_str());
  std::printf("[ spec     ] %s\n", printSpec(spec).c_str());

  Result<CodeObject> code = compileSpec(spec, CompileOptions());
  ASSERT_TRUE(code.ok()) << printSpec(spec) << ": " << code.error();
  EXPECT_EQ(code.value().kernel.scratchBytes, 0u) << printSpec(spec);

  const GemmInputs in = drawInputs(spec, index, seed);
  ASSERT_FALSE(in.weights.codes.empty()) << printSpec(spec) << ": weight preparation failed";
  GemmProblem problem;
  problem.activation = problemFor(spec, ScaleLayout::Plain);
  problem.n = size_t(spec.N);
  problem.weightLayout = spec.wlayout;
  problem.weightScaleLayout = spec.layout;
  Result<std::vector<uint16_t>> expected =
      rotateQuantGemm(problem, in.x.data(), size_t(in.m), in.r.empty() ? nullptr : in.r.data(),
                      in.weights.codes.data(), in.weights.scales.data());
  ASSERT_TRUE(expected.ok()) << expected.error();
  std::printf("[ run      ] m = %d, x stride %lld, y stride %lld, seed %llu\n", in.m,
              (long long)in.xStride, (long long)in.yStride, (unsigned long long)seed);

  struct Order {
    emu::WorkgroupOrder order;
    const char *name;
    uint8_t poison;
  };
  const Order orders[] = {{emu::WorkgroupOrder::Forward, "forward", 0xA5},
                          {emu::WorkgroupOrder::Shuffled, "shuffled", 0x3C}};
  // Both orders are held to the same reference bytes: the sum's order does
  // not depend on which workgroup runs first. The decode layers of real
  // models (more than 2^24 weights; 10-60 s an emulation) run forward only:
  // the small shapes prove the order independence of the same code.
  const bool large = int64_t(spec.N) * spec.K > (int64_t(1) << 24);
  std::printf("[ orders   ] %s\n", large ? "forward only (a decode layer of more than 2^24 weights)"
                                         : "forward, shuffled");
  for (const Order &order : orders) {
    if (large && order.order != emu::WorkgroupOrder::Forward)
      continue;
    const auto start = std::chrono::steady_clock::now();
    Result<runtime::SpecLaunch> run = launchOn(code.value(), spec, in, order.order, seed, order.poison);
    ASSERT_TRUE(run.ok()) << printSpec(spec) << " (" << order.name << "): " << run.error();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const std::vector<uint8_t> &y = run.value().outputs.at("y");
    std::printf("[ %-8s ] grid (%u, %u), %.0f ms emulated\n", order.name, run.value().grid.x,
                run.value().grid.y, ms);
    const std::string diff =
        compareY(y, expectedY(spec, in, expected.value(), order.poison),
                 in.yStride ? size_t(in.yStride) : size_t(spec.N));
    EXPECT_TRUE(diff.empty()) << printSpec(spec) << ", m " << in.m << ", workgroups "
                              << order.name << ", seed " << seed << "\n  " << diff;
  }
  std::string outsideFirst;
  const size_t outside = countOutsideBound(spec, in, expected.value(), outsideFirst);
  EXPECT_EQ(outside, 0u) << printSpec(spec) << ": outputs outside the float64 error bound, first "
                         << outsideFirst;
}

std::string specTestName(const ::testing::TestParamInfo<size_t> &info) {
  std::string name = kernelName(matrix()[info.param]);
  const std::string prefix = "mxf_rotate_quant_gemm_", suffix = "_gfx950";
  if (name.rfind(prefix, 0) == 0)
    name = name.substr(prefix.size());
  if (name.size() > suffix.size() &&
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
    name.resize(name.size() - suffix.size());
  char number[8];
  std::snprintf(number, sizeof number, "%03zu_", info.param);
  return number + name;
}

INSTANTIATE_TEST_SUITE_P(Spec, RotateQuantGemmMatrix, ::testing::Range<size_t>(0, matrix().size()),
                         specTestName);

} // namespace
} // namespace mxf::e2e
