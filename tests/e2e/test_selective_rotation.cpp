//===- test_selective_rotation.cpp - select=flag|mask at the launch -------===//
//
// What an engine relies on with selective rotation (docs/templates.md): the
// launch's value decides the path and nothing else does (a changed mask in
// device memory changes the result of the very same arguments, as a
// captured graph replays them); bad values are refused by name before
// anything runs; a raw launch with an index outside the mask reads inside
// it (the kernel clamps; the emulator's bounds check would catch a read
// past layer_mask). The matrix (tests/support/spec_matrix.h) checks both
// paths of 26 specs bit for bit; this file checks the contract around them.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_case.h"
#include "tests/unit/test_seed.h"

#include "abi/operands.h"
#include "runtime/emu_device.h"
#include "runtime/kernel_args.h"
#include "runtime/spec_launcher.h"
#include "spec/reference_problem.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace mxf::e2e {
namespace {

constexpr int kLayers = 5;
constexpr uint8_t kPoison = 0xA5;

class SelectiveRotation : public ::testing::Test {
protected:
  void SetUp() override {
    Result<std::unique_ptr<runtime::Device>> opened = runtime::openEmuDevice({});
    ASSERT_TRUE(opened.ok()) << opened.error();
    device = std::move(opened.value());
    seed = mxf::testing::testSeed(currentTestName().c_str());
  }

  LoadedKernel load(const std::string &text) {
    Result<KernelSpec> spec = parseSpec(text);
    EXPECT_TRUE(spec.ok()) << spec.error();
    Result<LoadedKernel> loaded = compileAndLoad(*device, spec.value());
    EXPECT_TRUE(loaded.ok()) << loaded.error();
    return loaded.ok() ? std::move(loaded.value()) : LoadedKernel{};
  }

  /// x and a learned R drawn as the matrix draws them (run 0 of spec 0).
  RunInputs inputsFor(const KernelSpec &spec, int m) {
    RunContext context;
    context.seed = seed;
    context.testName = currentTestName();
    RunInputs inputs = drawInputs(spec, m, context);
    inputs.xStride = inputs.qStride = 0;
    return inputs;
  }

  std::unique_ptr<runtime::Device> device;
  uint64_t seed = 0;
};

/// The codes and plain scales the reference gives for `spec` rotated or not.
QuantizedRows expected(const KernelSpec &spec, const RunInputs &inputs, bool rotates) {
  RunInputs chosen = inputs;
  chosen.selection = spec.select == RotationSelect::Flag ? int64_t(rotates) : int64_t(0);
  if (spec.select == RotationSelect::Mask) {
    chosen.layerMask.assign(size_t(spec.layers), rotates ? 1 : 0);
  }
  Result<QuantizedRows> ref = referenceFor(spec, chosen);
  EXPECT_TRUE(ref.ok()) << ref.error();
  return ref.ok() ? ref.value() : QuantizedRows{};
}

TEST_F(SelectiveRotation, TheMaskInDeviceMemoryDecidesAndTheArgumentsStayTheSame) {
  // One set of kernel arguments (the same buffers, the same layer), launched
  // three times while only layer_mask's contents change: what a captured
  // graph does when calibration rewrites the mask between replays.
  LoadedKernel kernel = load(
      "rotate_quant:K=1024,RS=128,rot=learned,select=mask,layers=5,M=16,layout=a4w4_shuffle");
  ASSERT_FALSE(kernel.code.hsaco.empty());
  const KernelSpec &spec = kernel.spec;
  const int m = 7, layer = 3;
  RunInputs inputs = inputsFor(spec, m);
  const QuantizedRows rotated = expected(spec, inputs, true);
  const QuantizedRows plain = expected(spec, inputs, false);
  ASSERT_NE(rotated.codes, plain.codes) << "the two paths must differ for the test to mean much";

  const OutputShape shape = outputShapeAt(spec, m);
  auto bytesOf = [](const auto &values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(values[0]));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  };
  auto buffer = [&](const std::vector<uint8_t> &contents) {
    runtime::ScopedBuffer b = std::move(runtime::ScopedBuffer::allocate(*device, contents.size()).value());
    EXPECT_TRUE(device->copyIn(b, 0, contents.data(), contents.size()).ok());
    return b;
  };
  runtime::ScopedBuffer x = buffer(bytesOf(inputs.x)), r = buffer(bytesOf(inputs.r));
  runtime::ScopedBuffer mask = buffer(std::vector<uint8_t>(kLayers * 4, 0));
  runtime::ScopedBuffer q = buffer(std::vector<uint8_t>(size_t(m) * shape.qCols, kPoison));
  runtime::ScopedBuffer s = buffer(std::vector<uint8_t>(shape.sRows * shape.sCols, kPoison));
  const std::vector<runtime::KernelArg> args = {
      runtime::KernelArg::buffer(x.get()), runtime::KernelArg::buffer(r.get()),
      runtime::KernelArg::buffer(mask.get()), runtime::KernelArg::buffer(q.get()),
      runtime::KernelArg::buffer(s.get())};

  for (int step = 0; step < 3; ++step) {
    const bool rotates = step != 1; // on, off, on again
    std::vector<int32_t> entries(kLayers);
    std::mt19937_64 rng(seed + uint64_t(step));
    for (int32_t &entry : entries)
      entry = int32_t(rng() % 3); // the other layers' entries must not matter
    entries[layer] = rotates ? int32_t(rng() | 1) : 0;
    ASSERT_TRUE(device->copyIn(mask, 0, entries.data(), entries.size() * 4).ok());
    ASSERT_TRUE(runtime::launchSpecKernel(*device, kernel.kernel, spec, kernel.code.launch, m,
                                          args, {}, nullptr, nullptr, layer)
                    .ok());
    std::vector<uint8_t> codes(size_t(m) * shape.qCols);
    ASSERT_TRUE(device->copyOut(q, 0, codes.data(), codes.size()).ok());
    EXPECT_EQ(codes, (rotates ? rotated : plain).codes)
        << "step " << step << ": layer_mask[" << layer << "] = " << entries[layer]
        << ", seed " << seed;
  }
}

TEST_F(SelectiveRotation, BadSelectionValuesAreRefusedByNameAndNothingRuns) {
  LoadedKernel flag = load("rotate_quant:K=512,RS=64,select=flag,M=4");
  LoadedKernel mask = load("rotate_quant:K=512,RS=64,select=mask,layers=5,M=4");
  LoadedKernel off = load("rotate_quant:K=512,RS=64,M=4");
  ASSERT_FALSE(flag.code.hsaco.empty() || mask.code.hsaco.empty() || off.code.hsaco.empty());
  const int m = 2;
  const RunInputs inputs = inputsFor(mask.spec, m);
  runtime::HostArrays arrays;
  arrays["x"].resize(inputs.x.size() * 2);
  std::memcpy(arrays["x"].data(), inputs.x.data(), arrays["x"].size());
  runtime::HostArrays masked = arrays;
  masked["layer_mask"].assign(kLayers * 4, 0);

  auto refusal = [&](const LoadedKernel &k, const runtime::HostArrays &in,
                     std::optional<int64_t> selection) {
    runtime::SpecLaunchOptions options;
    options.poison = kPoison;
    options.selection = selection;
    Result<runtime::SpecLaunch> launched = runtime::launchSpec(
        *device, k.code.hsaco, k.code.kernel, k.code.launch, k.spec, m, in, options);
    EXPECT_FALSE(launched.ok()) << printSpec(k.spec);
    return launched.ok() ? std::string() : launched.error();
  };
  auto mentions = [](const std::string &message, std::initializer_list<const char *> parts) {
    for (const char *part : parts)
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
  };
  mentions(refusal(flag, arrays, std::nullopt), {"select=flag", "'rotate'"});
  mentions(refusal(mask, masked, std::nullopt), {"select=mask", "'layer'", "0..4"});
  mentions(refusal(mask, masked, 5), {"layer=5", "outside 0..4", "layers=5"});
  mentions(refusal(mask, masked, -1), {"layer=-1", "outside 0..4"});
  mentions(refusal(flag, arrays, int64_t(1) << 40), {"rotate=", "i32"});
  mentions(refusal(off, arrays, 1), {"select=off", "no rotate or layer"});
  mentions(refusal(mask, arrays, 0), {"layer_mask", "missing"});
  runtime::HostArrays shortMask = arrays;
  shortMask["layer_mask"].assign(4 * 4, 0);
  mentions(refusal(mask, shortMask, 0), {"layer_mask", "16 bytes", "20"});

  // A launch an engine packs itself, with an index outside the mask: the
  // kernel clamps it (an unsigned minimum, as numerics' selectionRotates),
  // so it reads layer_mask[4], never past it (the emulator would refuse).
  const OutputShape shape = outputShapeAt(mask.spec, m);
  std::vector<int32_t> entries = {0, 0, 0, 0, 1}; // only the last layer rotates
  auto make = [&](const void *data, size_t bytes) {
    runtime::ScopedBuffer b = std::move(runtime::ScopedBuffer::allocate(*device, bytes).value());
    EXPECT_TRUE(device->copyIn(b, 0, data, bytes).ok());
    return b;
  };
  runtime::ScopedBuffer x = make(inputs.x.data(), inputs.x.size() * 2);
  runtime::ScopedBuffer layerMask = make(entries.data(), entries.size() * 4);
  std::vector<uint8_t> poison(size_t(m) * shape.qCols, kPoison);
  runtime::ScopedBuffer q = make(poison.data(), poison.size());
  runtime::ScopedBuffer s = make(poison.data(), shape.sRows * shape.sCols);
  const QuantizedRows rotated = expected(mask.spec, inputs, true);
  for (int32_t layer : {-1, 5, 1 << 30}) {
    runtime::KernelArgs raw;
    raw.buffer(x.get()).buffer(layerMask.get()).buffer(q.get()).buffer(s.get());
    raw.value(int32_t(m)).value(int32_t(512)).value(int32_t(shape.qCols)).value(layer);
    ASSERT_TRUE(device->launch(mask.kernel, runtime::launchConfigFor(mask.code.launch, m), raw).ok())
        << "layer " << layer;
    std::vector<uint8_t> codes(poison.size());
    ASSERT_TRUE(device->copyOut(q, 0, codes.data(), codes.size()).ok());
    EXPECT_EQ(codes, rotated.codes) << "layer " << layer << " should read layer_mask[4] = 1";
    EXPECT_TRUE(selectionRotates(mask.spec, layer, entries.data()));
  }
  entries[4] = 0;
  EXPECT_FALSE(selectionRotates(mask.spec, -1, entries.data()));
}

} // namespace
} // namespace mxf::e2e
