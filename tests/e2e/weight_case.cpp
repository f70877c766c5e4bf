//===- weight_case.cpp - One quant_weight run: weights, launch, checks ----===//

#include "tests/e2e/weight_case.h"

#include "tests/e2e/e2e_inputs.h"

#include <chrono>
#include <cstdio>
#include <cstring>

namespace mxf::e2e {
namespace {

std::vector<uint8_t> bytesOf(const std::vector<uint16_t> &values) {
  std::vector<uint8_t> bytes(values.size() * 2);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
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

} // namespace

WeightInputs drawWeights(const KernelSpec &spec, size_t specIndex, uint64_t seed) {
  std::mt19937_64 rng(seed ^ (specIndex * 0x9E3779B97F4A7C15ull));
  WeightInputs inputs;
  inputs.w.reserve(size_t(spec.N) * size_t(spec.K));
  for (int row = 0; row < spec.N; ++row) {
    std::vector<uint16_t> values =
        activationRow(spec, distributionFor(specIndex, size_t(row)), rng);
    inputs.w.insert(inputs.w.end(), values.begin(), values.end());
  }
  inputs.r = learnedRotation(spec, matrixKindFor(specIndex), rng);
  if (specIndex % 2 == 1)
    inputs.stride = spec.K + 8 * int64_t(1 + rng() % 8);
  return inputs;
}

Result<WeightRun> launchWeights(const CodeObject &code, const KernelSpec &spec,
                                const WeightInputs &inputs, emu::WorkgroupOrder order,
                                uint64_t orderSeed, uint8_t poison,
                                const runtime::EmuDeviceOptions &deviceOptions) {
  runtime::EmuDeviceOptions options = deviceOptions;
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
  Result<runtime::SpecLaunch> launched = runtime::launchSpec(
      *device.value(), code.hsaco, code.kernel, code.launch, spec, spec.N, given, launchOptions);
  if (!launched.ok())
    return launched.status();
  WeightRun out;
  out.launch = std::move(launched.value());
  out.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

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
      std::snprintf(
          line, sizeof line,
          "\n    %s offset %zu (row %zu byte %zu of the buffer): got 0x%02x, expected 0x%02x", name,
          i, i / rowBytes, i % rowBytes, got[i], expected[i]);
      first += line;
    }
  if (mismatches == 0)
    return "";
  return std::string(name) + ": " + std::to_string(mismatches) + " of " +
         std::to_string(got.size()) + " bytes differ" + first;
}

} // namespace mxf::e2e
