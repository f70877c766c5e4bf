//===- rmsnorm_case.cpp - One rmsnorm_rotate_quant run ---------------------===//

#include "tests/e2e/rmsnorm_case.h"

#include "tests/e2e/e2e_runner.h"

#include "abi/operands.h"
#include "numerics/formats.h"
#include "runtime/emu_device.h"

#include <fmt/format.h>

#include <cstring>
#include <iterator>
#include <variant>

namespace mxf::e2e {
namespace {

std::vector<uint8_t> rawBytes(const arrays::NpyArray &array) {
  return std::visit(
      [](const auto &values) {
        std::vector<uint8_t> bytes(values.size() * sizeof(values[0]));
        std::memcpy(bytes.data(), values.data(), bytes.size());
        return bytes;
      },
      array.values);
}

template <typename T> std::vector<uint8_t> bytesOf(const std::vector<T> &values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

} // namespace

NormInputs drawNormInputs(const KernelSpec &spec, int m, size_t base, bool rotate,
                          std::mt19937_64 &rng) {
  NormInputs in;
  in.m = m;
  const size_t k = size_t(spec.K);
  auto rowsFrom = [&](size_t shift) {
    std::vector<uint16_t> rows;
    for (int row = 0; row < m; ++row) {
      // The finite distributions only: a NaN or Inf in a row makes its
      // whole normalized row NaN, which says nothing about the order.
      auto distribution =
          Distribution((base + shift + size_t(row)) % kNumFiniteDistributions);
      std::vector<uint16_t> values = activationRow(spec, distribution, rng);
      rows.insert(rows.end(), values.begin(), values.end());
    }
    return rows;
  };
  in.x = rowsFrom(0);
  if (spec.add)
    in.residual = rowsFrom(1);
  // A trained gain: mostly near 1, some small, a few negative.
  std::uniform_real_distribution<float> gain(-0.25f, 1.75f);
  for (size_t i = 0; i < k; ++i)
    in.gamma.push_back(f32ToBf16(gain(rng)));
  in.r = learnedRotation(spec, matrixKindFor(base), rng);
  in.srSeed = uint32_t(rng());
  in.selection = drawSelection(spec, rotate, rng);
  const double epsilons[] = {1e-6, 1e-5, 1e-12, 0.25};
  in.eps = epsilons[rng() % std::size(epsilons)];
  // Row strides a quarter of the time each: views into wider tensors.
  if (rng() % 4 == 0)
    in.xStride = int64_t(k + 8 * (1 + rng() % 4));
  if (spec.add && rng() % 4 == 0)
    in.residualStride = int64_t(k + 8 * (1 + rng() % 4));
  return in;
}

namespace {

/// `rows` dense rows of `k` at `stride` (0: dense), the gaps holding bf16 NaNs.
std::vector<uint8_t> stridedRows(const std::vector<uint16_t> &dense, size_t k, int64_t stride) {
  if (stride == 0)
    return bytesOf(dense);
  const size_t rows = dense.size() / k;
  std::vector<uint16_t> out((rows - 1) * size_t(stride) + k);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = uint16_t(0x7FC1 + i % 7);
  for (size_t row = 0; row < rows; ++row)
    std::copy_n(dense.begin() + long(row * k), k, out.begin() + long(row * size_t(stride)));
  return bytesOf(out);
}

} // namespace

Result<arrays::ReferenceRun> normReference(const KernelSpec &spec, const NormInputs &in) {
  const size_t m = size_t(in.m), k = size_t(spec.K);
  arrays::NpyArrays given;
  given.emplace("x", arrays::NpyArray::of({m, k}, in.x));
  if (spec.add)
    given.emplace("residual", arrays::NpyArray::of({m, k}, in.residual));
  given.emplace("gamma", arrays::NpyArray::of({k}, in.gamma));
  if (!in.r.empty()) {
    const size_t rs = size_t(spec.RS);
    given.emplace("r", spec.rot == RotationKind::LearnedPerBlock
                           ? arrays::NpyArray::of({k / rs, rs, rs}, in.r)
                           : arrays::NpyArray::of({rs, rs}, in.r));
  }
  if (kernelHasSeedOperand(spec))
    given.emplace("seed", arrays::NpyArray::of({1}, std::vector<int32_t>{int32_t(in.srSeed)}));
  if (!in.selection.layerMask.empty())
    given.emplace("layer_mask",
                  arrays::NpyArray::of({in.selection.layerMask.size()}, in.selection.layerMask));
  return arrays::runReference(spec, in.m, given, /*seed=*/0, in.selection.selection,
                              {{"eps", in.eps}});
}

Result<runtime::SpecLaunch> launchNorm(const CodeObject &code, const KernelSpec &spec,
                                       const NormInputs &in,
                                       const arrays::ReferenceRun &expected,
                                       emu::WorkgroupOrder order, uint64_t orderSeed,
                                       uint8_t poison, const LaunchValues *launchValues) {
  runtime::EmuDeviceOptions options = caseDeviceOptions();
  options.workgroupOrder = order;
  options.workgroupOrderSeed = orderSeed;
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice(options);
  if (!device.ok())
    return device.status();
  runtime::HostArrays given;
  for (const auto &[name, array] : expected.inputs)
    given[name] = rawBytes(array);
  const size_t k = size_t(spec.K);
  given["x"] = stridedRows(in.x, k, in.xStride);
  runtime::SpecLaunchOptions launchOptions;
  launchOptions.poison = poison;
  launchOptions.selection = in.selection.selection;
  launchOptions.values = launchValues ? *launchValues : LaunchValues{{"eps", in.eps}};
  if (in.xStride)
    launchOptions.rowStrides["x"] = in.xStride;
  if (spec.add) {
    given["residual"] = stridedRows(in.residual, k, in.residualStride);
    if (in.residualStride)
      launchOptions.rowStrides["residual"] = in.residualStride;
  }
  return runtime::launchSpec(*device.value(), code.hsaco, code.kernel, code.launch, spec, in.m,
                             given, launchOptions);
}

std::string compareNormOutputs(const arrays::ReferenceRun &expected,
                           const runtime::SpecLaunch &launched) {
  std::string report;
  for (const auto &[name, array] : expected.outputs) {
    const std::vector<uint8_t> want = rawBytes(array);
    auto got = launched.outputs.find(name);
    if (got == launched.outputs.end()) {
      report += "\n  " + name + ": not returned";
      continue;
    }
    if (got->second.size() != want.size()) {
      report += "\n  " + name + ": " + std::to_string(got->second.size()) + " bytes, expected " +
                std::to_string(want.size());
      continue;
    }
    size_t differing = 0, first = 0;
    for (size_t i = 0; i < want.size(); ++i)
      if (got->second[i] != want[i] && differing++ == 0)
        first = i;
    if (differing)
      report += "\n  " + name + ": " + std::to_string(differing) + " of " +
                std::to_string(want.size()) + " bytes differ, the first at byte " +
                std::to_string(first) + " (got 0x" + fmt::format("{:02x}", got->second[first]) +
                ", expected 0x" + fmt::format("{:02x}", want[first]) + ")";
  }
  return report;
}


} // namespace mxf::e2e
