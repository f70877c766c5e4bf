//===- test_bundle_fuzz.cpp - 100 000 damaged bundles, no crash ------------===//
//
// Mutates small bundles (bit flips, byte and field overwrites with boundary
// values, truncation, extension, chunks duplicated or deleted) and loads
// each. About half are re-sealed (trailer checksum recomputed, and mostly the
// size field fixed) so that the damage reaches the manifest parser instead
// of stopping at the checksum. Every load must either fail with one line in
// one of the documented forms, or succeed with every kernel inside the file,
// matching its checksum, with a valid KernelInfo and a canonical spec that
// find() returns. Bundles are small and owned by vectors of their exact
// size, so AddressSanitizer (the MXFORGE_SANITIZE build) catches any
// over-read.
//
//===----------------------------------------------------------------------===//

#include "runtime/bundle.h"
#include "runtime/bundle_format.h"
#include "runtime/bundle_writer.h"
#include "spec/kernel_spec.h"
#include "tests/unit/bundle/bundle_test_support.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>

namespace mxf {
namespace {

using namespace mxf::testing;
using namespace mxf::bundle_format;

constexpr int kCases = 100000;

struct Base {
  std::vector<uint8_t> bytes;
  std::vector<size_t> fieldOffsets; // header and manifest fields worth hitting
};

Base makeBase(std::mt19937_64 &rng) {
  Base base;
  base.bytes = encodeOrDie(testHeader(), randomInputs(rng, 3 + rng() % 3, 32, 400));
  for (size_t offset : {kFormatVersionOffset, kKernelAbiOffset, kTemplateRevisionOffset,
                        kKernelCountOffset, kFileSizeOffset, kManifestOffsetOffset,
                        kManifestSizeOffset, kDataOffsetOffset, kDataSizeOffset, kBundleHeaderSize})
    base.fieldOffsets.push_back(offset);
  for (const ManifestEntryFields &entry : manifestFields(base.bytes))
    for (size_t offset : {entry.spec, entry.kernelInfo, entry.kernelTarget, entry.dataOffset,
                          entry.dataSize, entry.checksum})
      base.fieldOffsets.push_back(offset);
  return base;
}

uint64_t boundaryValue(std::mt19937_64 &rng, size_t fileSize) {
  switch (rng() % 10) {
  case 0:
    return 0;
  case 1:
    return 1;
  case 2:
    return 0xffffffffu;
  case 3:
    return ~uint64_t(0);
  case 4:
    return 0x7fffffffu;
  case 5:
    return fileSize;
  case 6:
    return fileSize - 1 - rng() % 64;
  case 7:
    return fileSize + 1 + rng() % 64;
  case 8:
    return 0x8000000000000000ull + rng() % 16;
  default:
    return rng() % 4096;
  }
}

void mutate(std::mt19937_64 &rng, const Base &base, std::vector<uint8_t> &bytes) {
  if (bytes.empty()) {
    bytes.push_back(uint8_t(rng()));
    return;
  }
  size_t at = rng() % bytes.size();
  switch (rng() % 8) {
  case 0: // bit flip
    bytes[at] ^= uint8_t(1u << (rng() % 8));
    break;
  case 1: { // byte overwrite
    static const uint8_t kBytes[] = {0, 1, 0x7f, 0x80, 0xff};
    bytes[at] = rng() % 2 ? uint8_t(rng()) : kBytes[rng() % 5];
    break;
  }
  case 2:
  case 3: { // a u32 or u64 boundary value at a field or anywhere
    size_t width = rng() % 2 ? 4 : 8;
    if (rng() % 4)
      at = base.fieldOffsets[rng() % base.fieldOffsets.size()] + (rng() % 3 == 0 ? 4 : 0);
    uint64_t value = boundaryValue(rng, bytes.size());
    for (size_t i = 0; i < width && at + i < bytes.size(); ++i)
      bytes[at + i] = uint8_t(value >> (8 * i));
    break;
  }
  case 4: // truncation
    bytes.resize(at);
    break;
  case 5: // extension
    for (size_t n = 1 + rng() % 64; n > 0; --n)
      bytes.push_back(uint8_t(rng()));
    break;
  case 6: { // chunk duplication
    size_t length = 1 + rng() % std::min<size_t>(128, bytes.size() - at);
    std::vector<uint8_t> chunk(bytes.begin() + at, bytes.begin() + at + length);
    size_t to = rng() % (bytes.size() + 1);
    bytes.insert(bytes.begin() + to, chunk.begin(), chunk.end());
    break;
  }
  default: { // chunk deletion
    size_t length = 1 + rng() % std::min<size_t>(128, bytes.size() - at);
    bytes.erase(bytes.begin() + at, bytes.begin() + at + length);
    break;
  }
  }
}

/// "truncated", "corrupted", ...: the documented forms, for the histogram.
std::string errorKind(const std::string &error) {
  static const char *const kKinds[] = {"truncated (",
                                       "not an mxforge bundle (",
                                       "bundle format version ",
                                       "written by an older mxforge (bundle format ",
                                       "trailing bytes (",
                                       "corrupted (file checksum mismatch)",
                                       "corrupted (header",
                                       "corrupted (manifest",
                                       "built for kernel ABI ",
                                       "built for "};
  for (const char *kind : kKinds)
    if (error.rfind(kind, 0) == 0)
      return kind;
  return "";
}

void checkLoaded(const Bundle &bundle, const std::vector<uint8_t> &input) {
  const std::vector<uint8_t> &file = bundle.bytes();
  ASSERT_EQ(file, input);
  EXPECT_EQ(bundle.header().kernelAbiVersion, uint32_t(kKernelAbiVersion));
  EXPECT_EQ(bundle.header().target, kBundleTarget);
  const uint8_t *begin = file.data() + kBundleHeaderSize;
  const uint8_t *end = file.data() + file.size() - kBundleTrailerSize;
  for (const Bundle::Kernel &kernel : bundle.kernels()) {
    ASSERT_GT(kernel.hsacoSize, 0u);
    ASSERT_GE(kernel.hsaco, begin);
    ASSERT_LE(kernel.hsacoSize, size_t(end - kernel.hsaco));
    ASSERT_EQ(sha256(kernel.hsaco, kernel.hsacoSize), kernel.checksum);
    ASSERT_TRUE(kernelInfoDecodes(kernel.kernel)) << kernel.spec;
    ASSERT_EQ(kernel.kernel.target, kBundleTarget);
    Result<KernelSpec> spec = parseSpec(kernel.spec);
    ASSERT_TRUE(spec.ok()) << kernel.spec;
    ASSERT_EQ(printSpec(spec.value()), kernel.spec);
    ASSERT_EQ(bundle.find(kernel.spec), &kernel);
  }
}

TEST(BundleFuzz, DamagedBundlesFailCleanlyOrLoadSafely) {
  std::mt19937_64 rng(testSeed("BundleFuzz.DamagedBundlesFailCleanlyOrLoadSafely"));
  std::vector<Base> bases;
  for (int i = 0; i < 6; ++i)
    bases.push_back(makeBase(rng));

  std::map<std::string, int> outcomes;
  int resealed = 0;
  auto start = std::chrono::steady_clock::now();
  for (int trial = 0; trial < kCases; ++trial) {
    const Base &base = bases[rng() % bases.size()];
    std::vector<uint8_t> bytes = base.bytes;
    for (int mutations = 1 + int(rng() % 3); mutations > 0; --mutations)
      mutate(rng, base, bytes);
    if (rng() % 2) {
      reseal(bytes, /*fixSize=*/rng() % 8 != 0);
      ++resealed;
    }
    std::vector<uint8_t> copy = bytes;
    Result<Bundle> bundle = Bundle::fromBytes(std::move(copy));
    if (bundle.ok()) {
      ++outcomes["(loaded)"];
      checkLoaded(bundle.value(), bytes);
      if (::testing::Test::HasFatalFailure()) {
        ADD_FAILURE() << "trial " << trial;
        return;
      }
      continue;
    }
    const std::string &error = bundle.error();
    std::string kind = errorKind(error);
    ASSERT_FALSE(kind.empty()) << "trial " << trial << ": unexpected message: " << error;
    ASSERT_EQ(error.find('\n'), std::string::npos) << "trial " << trial << ": " << error;
    ++outcomes[kind];
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ fuzz     ] %d bundles (%d re-sealed) in %.2f s:\n", kCases, resealed, seconds);
  for (const auto &[kind, count] : outcomes)
    std::printf("[ fuzz     ]   %7d  %s\n", count, kind.c_str());
  // The manifest checks and the success path were both exercised.
  EXPECT_GT(outcomes["corrupted (manifest"], kCases / 50);
  EXPECT_GT(outcomes["(loaded)"], kCases / 200);
}

} // namespace
} // namespace mxf
