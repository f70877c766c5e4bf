//===- test_bundle_origin.cpp - Each entry records where its code came from -===//
//
// Format 3 (issue 34): a u32 after each manifest entry's checksum says where
// the code came from (`mxforge bundle`: the compiler, never an override).
// Format 2 bundles, which lack it, still load (origin unknown); a value
// outside the enum is corruption.
//
//===----------------------------------------------------------------------===//

#include "runtime/bundle.h"
#include "runtime/bundle_format.h"
#include "runtime/bundle_writer.h"
#include "tests/unit/bundle/bundle_test_support.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

namespace mxf {
namespace {

using namespace mxf::testing;

std::vector<BundleInput> inputsWithOrigins(std::mt19937_64 &rng) {
  std::vector<BundleInput> inputs = randomInputs(rng, 3, 64, 512);
  inputs[0].origin = BundleCodeOrigin::Compiler;
  inputs[1].origin = BundleCodeOrigin::Unknown;
  inputs[2].origin = BundleCodeOrigin::Compiler;
  return inputs;
}

TEST(BundleOrigin, EachEntryKeepsItsOrigin) {
  std::mt19937_64 rng(testSeed("BundleOrigin.EachEntryKeepsItsOrigin"));
  std::vector<BundleInput> inputs = inputsWithOrigins(rng);
  Result<Bundle> bundle = Bundle::fromBytes(encodeOrDie(testHeader(), inputs));
  ASSERT_TRUE(bundle.ok()) << bundle.error();
  EXPECT_EQ(bundle.value().header().formatVersion, 3u);
  for (const BundleInput &input : inputs) {
    const Bundle::Kernel *kernel = bundle.value().find(input.spec);
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->origin, input.origin) << input.spec;
  }
  EXPECT_STREQ(bundleCodeOriginName(BundleCodeOrigin::Compiler), "compiler");
  EXPECT_STREQ(bundleCodeOriginName(BundleCodeOrigin::Unknown), "unknown");
  EXPECT_STREQ(bundleCodeOriginName(BundleCodeOrigin(7)), "invalid");
}

TEST(BundleOrigin, AnOriginOutsideTheEnumIsCorruption) {
  std::mt19937_64 rng(testSeed("BundleOrigin.AnOriginOutsideTheEnumIsCorruption"));
  std::vector<uint8_t> bytes = encodeOrDie(testHeader(), inputsWithOrigins(rng));
  const std::vector<ManifestEntryFields> fields = manifestFields(bytes);
  putU32(bytes, fields[1].origin, 2);
  reseal(bytes);
  Result<Bundle> bundle = Bundle::fromBytes(bytes);
  ASSERT_FALSE(bundle.ok());
  EXPECT_NE(bundle.error().find("corrupted (manifest entry 1 ('"), std::string::npos)
      << bundle.error();
  EXPECT_NE(bundle.error().find("'): code origin 2 is neither 0 (unknown) nor 1 (compiler))"),
            std::string::npos)
      << bundle.error();
}

// A format 2 bundle is this format without the origin fields: it loads, its
// entries' origin unknown. Built by cutting the fields out of a format 3
// bundle and fixing every offset they moved.
TEST(BundleOrigin, Format2BundlesStillLoadWithOriginUnknown) {
  using namespace bundle_format;
  std::mt19937_64 rng(testSeed("BundleOrigin.Format2BundlesStillLoadWithOriginUnknown"));
  std::vector<BundleInput> inputs = inputsWithOrigins(rng);
  std::vector<uint8_t> v3 = encodeOrDie(testHeader(), inputs);
  const std::vector<ManifestEntryFields> fields = manifestFields(v3);
  const uint64_t manifestOffset = getU64(v3, kManifestOffsetOffset);
  const uint64_t manifestEnd = manifestOffset + getU64(v3, kManifestSizeOffset);
  const uint64_t dataOffset = getU64(v3, kDataOffsetOffset);
  // The manifest without the origins, padded to the same alignment.
  std::vector<uint8_t> v2(v3.begin(), v3.begin() + manifestOffset);
  size_t from = manifestOffset;
  for (const ManifestEntryFields &entry : fields) {
    v2.insert(v2.end(), v3.begin() + from, v3.begin() + entry.origin);
    from = entry.origin + 4;
  }
  v2.insert(v2.end(), v3.begin() + from, v3.begin() + manifestEnd);
  const uint64_t newManifestSize = v2.size() - manifestOffset;
  const uint64_t newDataOffset = alignUp(v2.size(), kBundleDataAlignment);
  v2.resize(newDataOffset, 0);
  v2.insert(v2.end(), v3.begin() + dataOffset, v3.end());
  putU32(v2, kFormatVersionOffset, 2);
  putU64(v2, kManifestSizeOffset, newManifestSize);
  putU64(v2, kDataOffsetOffset, newDataOffset);
  putU64(v2, kDataSizeOffset, v2.size() - kBundleTrailerSize - newDataOffset);
  // Each code object moved by as much as the region did.
  const int64_t shift = int64_t(newDataOffset) - int64_t(dataOffset);
  for (size_t i = 0; i < fields.size(); ++i) {
    const size_t offsetField = fields[i].dataOffset - (4 * i); // earlier origins are gone
    putU64(v2, offsetField, uint64_t(int64_t(getU64(v2, offsetField)) + shift));
  }
  reseal(v2);
  Result<Bundle> bundle = Bundle::fromBytes(v2);
  ASSERT_TRUE(bundle.ok()) << bundle.error();
  EXPECT_EQ(bundle.value().header().formatVersion, 2u);
  for (const BundleInput &input : inputs) {
    const Bundle::Kernel *kernel = bundle.value().find(input.spec);
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->origin, BundleCodeOrigin::Unknown);
    ASSERT_EQ(kernel->hsacoSize, input.hsaco.size());
    EXPECT_TRUE(std::equal(input.hsaco.begin(), input.hsaco.end(), kernel->hsaco));
  }
}

} // namespace
} // namespace mxf
