//===- test_a6w6_rounding.cpp - round=rna where it differs from RNE -------===//
//
// Random activations almost never land on an E2M3 tie, so the matrix's rna
// specs would pass with the hardware's round-to-nearest-even as well. Here
// every row is built of exact ties (level midpoints at scale 1) and -0.0:
// the emulated kernel must give numerics' half-away codes byte for byte, and
// those codes must differ from the round-to-nearest-even spec's on most
// elements (the negative control: a kernel that rounded to even would fail).
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_runner.h"
#include "tests/unit/test_seed.h"

#include "runtime/emu_device.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace mxf::e2e {
namespace {

uint16_t bf16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return uint16_t(bits >> 16); // exact: every value below is a bf16
}

TEST(A6W6Rounding, TiesGoAwayFromZeroInTheKernel) {
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice({});
  ASSERT_TRUE(device.ok()) << device.error();
  // No rotation, so the ties reach the quantizer as they are.
  Result<KernelSpec> spec = parseSpec("rotate_quant:K=512,M=4,fmt=fp6_e2m3,scale=a6w6,round=rna");
  ASSERT_TRUE(spec.ok()) << spec.error();
  Result<LoadedKernel> kernel = compileAndLoad(*device.value(), spec.value());
  ASSERT_TRUE(kernel.ok()) << kernel.error();

  std::mt19937_64 rng(mxf::testing::testSeed("A6W6Rounding.TiesGoAwayFromZeroInTheKernel"));
  RunInputs inputs;
  inputs.m = 3;
  inputs.x.resize(size_t(inputs.m) * 512);
  for (size_t i = 0; i < inputs.x.size(); ++i) {
    // Each block's first element is 7 (amax in [4, 8): scale byte 127, so
    // values are their own scaled magnitudes); the others are midpoints of
    // the level grid of their binade: (j + 1/2) / 8 below 2, (j + 1/2) / 4
    // in [2, 4), (j + 1/2) / 2 in [4, 7.5), with random signs and -0.0.
    float value;
    if (i % 32 == 0) {
      value = 7.0f;
    } else if (i % 32 == 31) {
      value = -0.0f;
    } else {
      const int binade = int(rng() % 3);
      const float base[] = {0.0f, 2.0f, 4.0f}, spacing[] = {0.125f, 0.25f, 0.5f};
      const int levels[] = {16, 8, 7}; // midpoints below 2, 4 and 7.5
      const int j = int(rng() % uint64_t(levels[binade]));
      value = (base[binade] + (float(j) + 0.5f) * spacing[binade]) * (rng() % 2 ? -1.0f : 1.0f);
    }
    inputs.x[i] = bf16Bits(value);
  }
  Result<RunOutputs> run = runKernel(*device.value(), kernel.value(), inputs);
  ASSERT_TRUE(run.ok()) << run.error();
  Result<QuantizedRows> halfAway = referenceFor(spec.value(), inputs);
  ASSERT_TRUE(halfAway.ok()) << halfAway.error();
  EXPECT_EQ(run.value().q, halfAway.value().codes)
      << "the kernel's codes are not AITER A6W6's half-away rounding";

  KernelSpec nearestEven = spec.value();
  nearestEven.round = Rounding::Rne;
  Result<QuantizedRows> even = referenceFor(nearestEven, inputs);
  ASSERT_TRUE(even.ok()) << even.error();
  size_t differing = 0;
  for (size_t i = 0; i < even.value().codes.size(); ++i)
    differing += even.value().codes[i] != halfAway.value().codes[i];
  EXPECT_GT(differing, even.value().codes.size() / 4)
      << "the ties must separate the two rules for this test to mean anything";
}

} // namespace
} // namespace mxf::e2e
