//===- test_bundle_roundtrip.cpp - Write, load, find, and how fast --------===//

#include "runtime/bundle.h"
#include "runtime/bundle_writer.h"
#include "spec/kernel_spec.h"
#include "tests/unit/bundle/bundle_test_support.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace mxf {
namespace {

using namespace mxf::testing;

void expectHolds(const Bundle &bundle, const std::vector<BundleInput> &inputs) {
  ASSERT_EQ(bundle.size(), inputs.size());
  for (const BundleInput &input : inputs) {
    const Bundle::Kernel *byText = bundle.find(input.spec);
    ASSERT_NE(byText, nullptr) << input.spec;
    Result<KernelSpec> spec = parseSpec(input.spec);
    ASSERT_TRUE(spec.ok()) << spec.error();
    EXPECT_EQ(bundle.find(spec.value()), byText) << input.spec;
    EXPECT_EQ(byText->spec, input.spec);
    EXPECT_EQ(byText->kernel, input.kernel) << input.spec;
    ASSERT_EQ(byText->hsacoSize, input.hsaco.size());
    EXPECT_EQ(std::memcmp(byText->hsaco, input.hsaco.data(), input.hsaco.size()), 0);
    EXPECT_EQ(byText->checksum, sha256(input.hsaco.data(), input.hsaco.size()));
    // Code objects are aligned inside the file (and so in memory).
    EXPECT_EQ((byText->hsaco - bundle.bytes().data()) % kBundleDataAlignment, 0);
  }
}

TEST(Bundle, RoundTripsManyKernels) {
  std::mt19937_64 rng(testSeed("Bundle.RoundTripsManyKernels"));
  std::vector<BundleInput> inputs = randomInputs(rng, 60, 200, 4096);
  BundleHeaderInfo header = testHeader();
  header.templateRevision = 7;
  Result<Bundle> bundle = Bundle::fromBytes(encodeOrDie(header, inputs));
  ASSERT_TRUE(bundle.ok()) << bundle.error();
  const BundleHeaderInfo &back = bundle.value().header();
  EXPECT_EQ(back.formatVersion, kBundleFormatVersion);
  EXPECT_EQ(back.kernelAbiVersion, uint32_t(kKernelAbiVersion));
  EXPECT_EQ(back.templateRevision, 7u); // recorded, not checked: the ABI is what matters
  EXPECT_EQ(back.mxforgeVersion, header.mxforgeVersion);
  EXPECT_EQ(back.llvmVersion, "22.1.0");
  EXPECT_EQ(back.target, kBundleTarget);
  expectHolds(bundle.value(), inputs);

  // File order is spec order.
  const std::vector<Bundle::Kernel> &kernels = bundle.value().kernels();
  EXPECT_TRUE(std::is_sorted(
      kernels.begin(), kernels.end(),
      [](const Bundle::Kernel &a, const Bundle::Kernel &b) { return a.spec < b.spec; }));
}

TEST(Bundle, FindMissesWhatIsNotThere) {
  std::mt19937_64 rng(testSeed("Bundle.FindMissesWhatIsNotThere"));
  std::vector<BundleInput> inputs = randomInputs(rng, 5, 100, 300);
  Result<Bundle> bundle = Bundle::fromBytes(encodeOrDie(testHeader(), inputs));
  ASSERT_TRUE(bundle.ok()) << bundle.error();
  // A spec text that is not canonical never matches, even for a kernel that is there.
  Result<KernelSpec> spec = parseSpec(inputs[0].spec);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(bundle.value().find(inputs[0].spec + " "), nullptr);
  EXPECT_EQ(bundle.value().find(""), nullptr);
  EXPECT_EQ(bundle.value().find("zzz"), nullptr);
  KernelSpec other = spec.value();
  other.K = 65536 + 32; // outside the generated range
  EXPECT_EQ(bundle.value().find(other), nullptr);
}

TEST(Bundle, InputOrderDoesNotChangeTheBytes) {
  std::mt19937_64 rng(testSeed("Bundle.InputOrderDoesNotChangeTheBytes"));
  std::vector<BundleInput> inputs = randomInputs(rng, 12, 50, 500);
  std::vector<uint8_t> first = encodeOrDie(testHeader(), inputs);
  std::shuffle(inputs.begin(), inputs.end(), rng);
  EXPECT_EQ(encodeOrDie(testHeader(), inputs), first);
}

TEST(Bundle, EmptyBundleLoads) {
  Result<Bundle> bundle = Bundle::fromBytes(encodeOrDie(testHeader(), {}));
  ASSERT_TRUE(bundle.ok()) << bundle.error();
  EXPECT_EQ(bundle.value().size(), 0u);
  EXPECT_EQ(bundle.value().find("rotate_quant:K=4096"), nullptr);
}

TEST(Bundle, WritesAndLoadsFiles) {
  std::mt19937_64 rng(testSeed("Bundle.WritesAndLoadsFiles"));
  std::vector<BundleInput> inputs = randomInputs(rng, 8, 100, 2000);
  TempDir dir;
  std::string path = dir.file("kernels.mxfb");
  ASSERT_TRUE(writeBundleFile(path, testHeader(), inputs).ok());
  Result<Bundle> bundle = Bundle::load(path);
  ASSERT_TRUE(bundle.ok()) << bundle.error();
  expectHolds(bundle.value(), inputs);
  // Rewriting replaces the file.
  inputs.pop_back();
  ASSERT_TRUE(writeBundleFile(path, testHeader(), inputs).ok());
  bundle = Bundle::load(path);
  ASSERT_TRUE(bundle.ok()) << bundle.error();
  expectHolds(bundle.value(), inputs);
}

TEST(Bundle, MovingKeepsTheKernelsValid) {
  std::mt19937_64 rng(testSeed("Bundle.MovingKeepsTheKernelsValid"));
  std::vector<BundleInput> inputs = randomInputs(rng, 4, 100, 300);
  Result<Bundle> loaded = Bundle::fromBytes(encodeOrDie(testHeader(), inputs));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  Bundle moved = std::move(loaded.value());
  expectHolds(moved, inputs);
  std::vector<Bundle> many;
  many.push_back(std::move(moved));
  many.reserve(100); // reallocates: each Bundle moves again
  expectHolds(many[0], inputs);
}

TEST(Bundle, OtherTargetsLoadWhenAskedFor) {
  std::mt19937_64 rng(testSeed("Bundle.OtherTargetsLoadWhenAskedFor"));
  std::vector<BundleInput> inputs = randomInputs(rng, 3, 100, 300);
  const char *gfx942 = "amdgcn-amd-amdhsa--gfx942";
  BundleHeaderInfo header = testHeader();
  header.target = gfx942;
  for (BundleInput &input : inputs)
    input.kernel.target = gfx942;
  BundleLoadOptions options;
  options.expectedTarget = gfx942;
  Result<Bundle> bundle = Bundle::fromBytes(encodeOrDie(header, inputs), options);
  ASSERT_TRUE(bundle.ok()) << bundle.error();
  expectHolds(bundle.value(), inputs);
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// The engine loads its bundle at start-up: 100 kernels of ~7 KiB (a typical
// rotate_quant code object) must take well under 20 ms, file read, both
// checksums and every manifest check included.
TEST(Bundle, LoadsAHundredKernelsQuickly) {
  std::mt19937_64 rng(testSeed("Bundle.LoadsAHundredKernelsQuickly"));
  std::vector<BundleInput> inputs = randomInputs(rng, 100, 6 * 1024, 8 * 1024);
  TempDir dir;
  std::string path = dir.file("hundred.mxfb");
  ASSERT_TRUE(writeBundleFile(path, testHeader(), inputs).ok());
  double best = 1e9;
  for (int round = 0; round < 7; ++round) {
    auto start = std::chrono::steady_clock::now();
    Result<Bundle> bundle = Bundle::load(path);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(bundle.ok()) << bundle.error();
    ASSERT_EQ(bundle.value().size(), 100u);
    best = std::min(best, ms);
  }
  Result<Bundle> bundle = Bundle::load(path);
  std::printf("[ timing   ] Bundle::load of 100 kernels (%zu bytes): %.2f ms (best of 7)\n",
              bundle.value().bytes().size(), best);
#ifdef NDEBUG
  if (!kSanitized) {
    EXPECT_LT(best, 20.0);
  }
#endif
}

} // namespace
} // namespace mxf
