//===- test_bundle_damage.cpp - Each kind of damage, its own message ------===//
//
// The loader's checks run in an order chosen so that each kind of damage is
// named for what it is (bundle.cpp). These tests pin every message: damage
// in front of the checksum as it comes, damage behind it re-sealed (size
// field and trailer fixed up), as a buggy or foreign writer would produce.
//
//===----------------------------------------------------------------------===//

#include "runtime/bundle.h"
#include "runtime/bundle_format.h"
#include "runtime/bundle_writer.h"
#include "spec/kernel_spec.h"
#include "tests/unit/bundle/bundle_test_support.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>

namespace mxf {
namespace {

using namespace mxf::testing;
using namespace mxf::bundle_format;

std::string loadError(std::vector<uint8_t> bytes) {
  Result<Bundle> bundle = Bundle::fromBytes(std::move(bytes));
  return bundle.ok() ? "(loaded)" : bundle.error();
}

bool startsWith(const std::string &text, const std::string &prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

/// A small bundle of hand-picked specs: entries 0 and 1 differ only in M
/// (16 vs 32, the same length) and their code objects have equal sizes.
struct SmallBundle {
  std::vector<BundleInput> inputs;
  std::vector<uint8_t> bytes;
};

SmallBundle smallBundle(std::mt19937_64 &rng) {
  SmallBundle small;
  small.inputs = randomInputs(rng, 3, 300, 600);
  small.inputs[0].spec = printSpec(parseSpec("rotate_quant:K=4096,RS=64,M=16").value());
  small.inputs[1].spec = printSpec(parseSpec("rotate_quant:K=4096,RS=64,M=32").value());
  small.inputs[2].spec = printSpec(parseSpec("rotate_quant:K=8192,RS=128,M=64").value());
  small.inputs[1].hsaco.resize(small.inputs[0].hsaco.size());
  small.bytes = encodeOrDie(testHeader(), small.inputs);
  return small;
}

class BundleDamage : public ::testing::Test {
protected:
  void SetUp() override {
    rng_.seed(testSeed(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    small_ = smallBundle(rng_);
    good_ = small_.bytes;
    fields_ = manifestFields(good_);
    ASSERT_EQ(fields_.size(), 3u);
  }
  std::string entryName(size_t i) const {
    return "manifest entry " + std::to_string(i) + " ('" + small_.inputs[i].spec + "')";
  }
  std::mt19937_64 rng_;
  SmallBundle small_;
  std::vector<uint8_t> good_;
  std::vector<ManifestEntryFields> fields_;
};

TEST_F(BundleDamage, EmptyFile) {
  EXPECT_EQ(loadError({}), "truncated (the file is empty)");
  TempDir dir;
  std::string path = dir.file("empty.mxfb");
  std::ofstream(path).close();
  Result<Bundle> bundle = Bundle::load(path);
  ASSERT_FALSE(bundle.ok());
  EXPECT_EQ(bundle.error(), path + ": truncated (the file is empty)");
}

TEST_F(BundleDamage, TruncatedInsideTheHeader) {
  for (size_t length = 1; length < kBundleHeaderSize; ++length)
    EXPECT_EQ(loadError(std::vector<uint8_t>(good_.begin(), good_.begin() + length)),
              "truncated (" + std::to_string(length) +
                  " bytes, shorter than the 64-byte bundle header)");
}

TEST_F(BundleDamage, TruncatedAnywhereElse) {
  for (size_t length = kBundleHeaderSize; length < good_.size(); ++length)
    ASSERT_EQ(loadError(std::vector<uint8_t>(good_.begin(), good_.begin() + length)),
              "truncated (" + std::to_string(length) + " of " + std::to_string(good_.size()) +
                  " bytes)");
}

TEST_F(BundleDamage, TrailingBytes) {
  std::vector<uint8_t> bytes = good_;
  bytes.insert(bytes.end(), 5, 0);
  EXPECT_EQ(loadError(bytes), "trailing bytes (5 after the " + std::to_string(good_.size()) +
                                  " bytes the header declares)");
}

TEST_F(BundleDamage, NotABundle) {
  const std::string kNot = "not an mxforge bundle (it does not start with \"MXFBUNDL\")";
  std::vector<uint8_t> bytes = good_;
  bytes[3] ^= 0x20;
  EXPECT_EQ(loadError(bytes), kNot);
  std::string text = "rotate_quant:K=4096\n";
  EXPECT_EQ(loadError(std::vector<uint8_t>(text.begin(), text.end())), kNot);
  EXPECT_EQ(loadError({0x7f, 'E', 'L', 'F'}), kNot);
  EXPECT_EQ(loadError({'M', 'X'}), "truncated (2 bytes, shorter than the 64-byte bundle header)");
}

TEST_F(BundleDamage, OtherFormatVersion) {
  std::vector<uint8_t> bytes = good_;
  putU32(bytes, kFormatVersionOffset, 4);
  // Before the checksum: a newer format may checksum differently.
  EXPECT_EQ(loadError(bytes), "bundle format version 4, this runtime reads 2 to 3");
  // Format 1 (no launch records) is what earlier mxforge releases wrote.
  putU32(bytes, kFormatVersionOffset, 1);
  EXPECT_EQ(loadError(bytes), "written by an older mxforge (bundle format 1; this runtime reads "
                              "formats 2 to 3): rebuild it with `mxforge bundle`");
  putU32(bytes, kFormatVersionOffset, 0xffffffffu);
  bytes.resize(70); // even cut short, the version is what is reported
  EXPECT_EQ(loadError(bytes), "bundle format version 4294967295, this runtime reads 2 to 3");
}

TEST_F(BundleDamage, ChecksumMismatch) {
  std::vector<uint8_t> bytes = good_;
  bytes[fields_[2].checksum - 1] ^= 1;
  EXPECT_EQ(loadError(bytes), "corrupted (file checksum mismatch)");
  bytes = good_;
  bytes.back() ^= 0x80; // the trailer itself
  EXPECT_EQ(loadError(bytes), "corrupted (file checksum mismatch)");
}

// One random bit of every byte: the field it lands in decides the message.
TEST_F(BundleDamage, BitFlipsAnywhere) {
  for (size_t i = 0; i < good_.size(); ++i) {
    std::vector<uint8_t> bytes = good_;
    bytes[i] ^= uint8_t(1u << (rng_() % 8));
    std::string error = loadError(bytes);
    if (i < kFormatVersionOffset)
      EXPECT_EQ(error, "not an mxforge bundle (it does not start with \"MXFBUNDL\")") << i;
    else if (i < kFormatVersionOffset + 4)
      // Format 3 with bit 0 flipped is format 2, which this runtime still
      // reads: then the file checksum is what fails.
      EXPECT_TRUE(startsWith(error, "bundle format version ") ||
                  startsWith(error, "written by an older mxforge (bundle format ") ||
                  (i == kFormatVersionOffset && error == "corrupted (file checksum mismatch)"))
          << i << ": " << error;
    else if (i >= kFileSizeOffset && i < kFileSizeOffset + 8)
      EXPECT_TRUE(startsWith(error, "truncated (") || startsWith(error, "trailing bytes ("))
          << i << ": " << error;
    else
      EXPECT_EQ(error, "corrupted (file checksum mismatch)") << i;
  }
}

TEST_F(BundleDamage, OtherKernelAbi) {
  BundleHeaderInfo header = testHeader();
  header.kernelAbiVersion = 7;
  EXPECT_EQ(loadError(encodeOrDie(header, small_.inputs)),
            "built for kernel ABI 7, this runtime launches ABI 2");
}

TEST_F(BundleDamage, OtherTarget) {
  const char *gfx942 = "amdgcn-amd-amdhsa--gfx942";
  BundleHeaderInfo header = testHeader();
  header.target = gfx942;
  for (BundleInput &input : small_.inputs)
    input.kernel.target = gfx942;
  EXPECT_EQ(loadError(encodeOrDie(header, small_.inputs)),
            "built for amdgcn-amd-amdhsa--gfx942, this runtime loads amdgcn-amd-amdhsa--gfx950");
}

// Two code objects of the same size swapped in place and the file re-sealed:
// only the per-object checksums can tell.
TEST_F(BundleDamage, SwappedCodeObjects) {
  std::vector<uint8_t> bytes = good_;
  size_t a = size_t(getU64(bytes, fields_[0].dataOffset));
  size_t b = size_t(getU64(bytes, fields_[1].dataOffset));
  size_t size = size_t(getU64(bytes, fields_[0].dataSize));
  ASSERT_EQ(size, size_t(getU64(bytes, fields_[1].dataSize)));
  std::swap_ranges(bytes.begin() + a, bytes.begin() + a + size, bytes.begin() + b);
  reseal(bytes);
  EXPECT_EQ(loadError(bytes), "corrupted (" + entryName(0) + ": code object checksum mismatch)");
}

TEST_F(BundleDamage, CodeObjectOutOfBounds) {
  std::vector<uint8_t> bytes = good_;
  putU64(bytes, fields_[2].dataOffset, good_.size() - 16);
  reseal(bytes);
  std::string error = loadError(bytes);
  EXPECT_TRUE(startsWith(error, "corrupted (" + entryName(2) + ": the code object [")) << error;
  EXPECT_NE(error.find("lies outside the code object region"), std::string::npos) << error;

  // Offsets and sizes whose sum wraps around.
  bytes = good_;
  putU64(bytes, fields_[1].dataSize, ~uint64_t(0) - 8);
  reseal(bytes);
  EXPECT_NE(loadError(bytes).find(entryName(1) + ": the code object ["), std::string::npos);
  bytes = good_;
  putU64(bytes, fields_[1].dataOffset, ~uint64_t(0) - 15);
  reseal(bytes);
  EXPECT_NE(loadError(bytes).find("lies outside the code object region"), std::string::npos);
}

TEST_F(BundleDamage, OverlappingCodeObjects) {
  std::vector<uint8_t> bytes = good_;
  putU64(bytes, fields_[1].dataOffset, getU64(bytes, fields_[0].dataOffset));
  reseal(bytes);
  std::string error = loadError(bytes);
  EXPECT_TRUE(startsWith(error, "corrupted (" + entryName(1) + ": the code object [")) << error;
  EXPECT_NE(error.find("starts where an earlier entry's starts but is not the same"),
            std::string::npos)
      << error;
  // Inside an earlier code object without being it.
  bytes = good_;
  putU64(bytes, fields_[1].dataOffset, getU64(bytes, fields_[0].dataOffset) + 16);
  reseal(bytes);
  error = loadError(bytes);
  EXPECT_NE(error.find("overlaps an earlier entry's"), std::string::npos) << error;
}

TEST_F(BundleDamage, LaunchRecordsAreChecked) {
  // One that disagrees with the entry's KernelInfo, one of another ABI.
  std::vector<uint8_t> bytes = good_;
  putU32(bytes, fields_[1].launchRecord + 20, getU32(bytes, fields_[1].launchRecord + 20) + 16);
  reseal(bytes);
  std::string error = loadError(bytes);
  EXPECT_TRUE(startsWith(error, "corrupted (" + entryName(1) + ": ")) << error;
  EXPECT_NE(error.find("the launch record says"), std::string::npos) << error;
  bytes = good_;
  putU32(bytes, fields_[1].launchRecord, 1);
  reseal(bytes);
  error = loadError(bytes);
  EXPECT_NE(error.find("launch record: kernel ABI 1, this runtime launches ABI 2"),
            std::string::npos)
      << error;
}

TEST_F(BundleDamage, EqualCodeObjectsAreStoredOnceAndShared) {
  std::vector<BundleInput> inputs = small_.inputs;
  ASSERT_GE(inputs.size(), 3u);
  inputs[2].hsaco = inputs[0].hsaco; // one tiling class
  inputs[2].kernel = inputs[0].kernel;
  inputs[2].launch = inputs[0].launch;
  const std::vector<uint8_t> shared = encodeOrDie(testHeader(), inputs);
  const std::vector<uint8_t> separate = encodeOrDie(testHeader(), small_.inputs);
  EXPECT_LT(shared.size(), separate.size());
  Result<Bundle> bundle = Bundle::fromBytes(shared);
  ASSERT_TRUE(bundle.ok()) << bundle.error();
  const Bundle::Kernel *a = bundle.value().find(inputs[0].spec);
  const Bundle::Kernel *b = bundle.value().find(inputs[2].spec);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->hsaco, b->hsaco);
  EXPECT_TRUE(std::equal(a->hsaco, a->hsaco + a->hsacoSize, inputs[0].hsaco.begin(),
                         inputs[0].hsaco.end()));
  EXPECT_EQ(a->launch, b->launch);
}

TEST_F(BundleDamage, MisalignedAndEmptyCodeObjects) {
  std::vector<uint8_t> bytes = good_;
  putU64(bytes, fields_[1].dataOffset, getU64(bytes, fields_[1].dataOffset) + 4);
  reseal(bytes);
  EXPECT_NE(loadError(bytes).find(entryName(1) + ": the code object starts at byte"),
            std::string::npos);
  bytes = good_;
  putU64(bytes, fields_[2].dataSize, 0);
  reseal(bytes);
  EXPECT_EQ(loadError(bytes), "corrupted (" + entryName(2) + ": the code object is empty)");
}

TEST_F(BundleDamage, DuplicateAndUnorderedSpecs) {
  // Entry 1 (M=32) becomes M=16: the same spec as entry 0.
  std::vector<uint8_t> bytes = good_;
  std::string spec1 = small_.inputs[1].spec;
  size_t at = fields_[1].spec + 4 + spec1.find("M=32");
  bytes[at + 2] = '1';
  bytes[at + 3] = '6';
  reseal(bytes);
  std::string duplicate = small_.inputs[0].spec;
  EXPECT_EQ(loadError(bytes),
            "corrupted (manifest entry 1 ('" + duplicate + "'): repeats the spec of entry 0)");
  // Entry 0 (M=16) becomes M=64: after entry 1 (M=32).
  bytes = good_;
  at = fields_[0].spec + 4 + small_.inputs[0].spec.find("M=16");
  bytes[at + 2] = '6';
  bytes[at + 3] = '4';
  reseal(bytes);
  EXPECT_EQ(loadError(bytes), "corrupted (manifest entry 1 ('" + small_.inputs[1].spec +
                                  "'): out of order (entries are sorted by spec))");
}

TEST_F(BundleDamage, InvalidAndNonCanonicalSpecs) {
  // ",round=rne" and ",inter=f32" have the same length: swapped, the spec
  // still parses but is no longer canonical.
  std::vector<uint8_t> bytes = good_;
  std::string spec = small_.inputs[2].spec;
  size_t round = spec.find(",round=rne"), inter = spec.find(",inter=f32");
  ASSERT_NE(round, std::string::npos);
  ASSERT_NE(inter, std::string::npos);
  std::string swapped = spec;
  swapped.replace(round, 10, ",inter=f32");
  swapped.replace(inter, 10, ",round=rne");
  std::copy(swapped.begin(), swapped.end(), bytes.begin() + fields_[2].spec + 4);
  reseal(bytes);
  EXPECT_EQ(loadError(bytes),
            "corrupted (manifest entry 2 ('" + swapped + "'): the spec is not canonical)");

  bytes = good_;
  bytes[fields_[2].spec + 4] = 'x'; // "xotate_quant:..."
  reseal(bytes);
  std::string error = loadError(bytes);
  EXPECT_TRUE(startsWith(error, "corrupted (manifest entry 2 ('xotate_quant:")) << error;
  EXPECT_NE(error.find("'): not a valid spec: "), std::string::npos) << error;

  bytes = good_;
  bytes[fields_[2].spec + 5] = 0x01; // escaped in the message
  reseal(bytes);
  EXPECT_TRUE(startsWith(loadError(bytes), "corrupted (manifest entry 2 ('r\\x01tate_quant:"))
      << loadError(bytes);
}

TEST_F(BundleDamage, KernelInfoDamage) {
  std::vector<uint8_t> bytes = good_;
  // The wavefront size is the 12th u32 after the KernelInfo's two strings.
  size_t name = fields_[1].kernelInfo;
  size_t target = fields_[1].kernelTarget;
  size_t afterTarget = target + 4 + std::strlen(kBundleTarget);
  ASSERT_GT(target, name);
  putU32(bytes, afterTarget + 11 * 4, 48);
  reseal(bytes);
  EXPECT_EQ(loadError(bytes),
            "corrupted (manifest entry 1: wavefront size 48 is neither 32 nor 64)");

  // kernarg alignment, the 3rd u32 after the target: 2^31 once made every
  // launch allocate 2 GiB.
  bytes = good_;
  putU32(bytes, afterTarget + 2 * 4, 0x80000000u);
  reseal(bytes);
  EXPECT_EQ(loadError(bytes), "corrupted (manifest entry 1: kernarg alignment "
                              "2147483648 is not a power of two in 1..256)");

  bytes = good_;
  putU32(bytes, fields_[0].kernelTarget, 100000); // the target string's length
  reseal(bytes);
  EXPECT_EQ(loadError(bytes),
            "corrupted (manifest entry 0: kernel target: length 100000 exceeds the limit of 1024)");

  // One kernel's target differs from the bundle's.
  bytes = good_;
  std::memcpy(bytes.data() + afterTarget - 3, "942", 3);
  reseal(bytes);
  EXPECT_EQ(loadError(bytes), "corrupted (" + entryName(1) + ": kernel '" +
                                  small_.inputs[1].kernel.name +
                                  "' is for amdgcn-amd-amdhsa--gfx942, the bundle for "
                                  "amdgcn-amd-amdhsa--gfx950)");
}

TEST_F(BundleDamage, HeaderFieldsBehindTheChecksum) {
  std::vector<uint8_t> bytes = good_;
  putU32(bytes, kKernelCountOffset, 1000000);
  reseal(bytes);
  EXPECT_TRUE(startsWith(loadError(bytes), "corrupted (header: 1000000 kernels cannot fit a "))
      << loadError(bytes);

  bytes = good_;
  putU32(bytes, kKernelCountOffset, 2);
  reseal(bytes);
  EXPECT_TRUE(startsWith(loadError(bytes), "corrupted (manifest: ")) << loadError(bytes);
  EXPECT_NE(loadError(bytes).find(" bytes after the last of its 2 entries)"), std::string::npos);

  bytes = good_;
  putU32(bytes, kKernelCountOffset, 4);
  reseal(bytes);
  EXPECT_TRUE(
      startsWith(loadError(bytes), "corrupted (manifest entry 3: spec: needs 4 bytes at offset"))
      << loadError(bytes);

  bytes = good_;
  putU64(bytes, kManifestOffsetOffset, getU64(bytes, kManifestOffsetOffset) + 1);
  reseal(bytes);
  EXPECT_TRUE(startsWith(loadError(bytes), "corrupted (header: the manifest starts at byte "))
      << loadError(bytes);

  bytes = good_;
  putU64(bytes, kManifestSizeOffset, ~uint64_t(0));
  reseal(bytes);
  EXPECT_TRUE(startsWith(loadError(bytes), "corrupted (header: the manifest ["))
      << loadError(bytes);

  bytes = good_;
  putU64(bytes, kDataSizeOffset, getU64(bytes, kDataSizeOffset) - 16);
  reseal(bytes);
  EXPECT_TRUE(startsWith(loadError(bytes), "corrupted (header: the code objects ["))
      << loadError(bytes);

  bytes = good_;
  putU64(bytes, kDataOffsetOffset, getU64(bytes, kDataOffsetOffset) + 8);
  putU64(bytes, kDataSizeOffset, getU64(bytes, kDataSizeOffset) - 8);
  reseal(bytes);
  EXPECT_TRUE(startsWith(loadError(bytes), "corrupted (header: the code objects start at byte "))
      << loadError(bytes);

  // The header strings (LLVM version's length).
  bytes = good_;
  size_t llvmLength = kBundleHeaderSize + 4 + testHeader().mxforgeVersion.size();
  putU32(bytes, llvmLength, 5000);
  reseal(bytes);
  EXPECT_EQ(loadError(bytes),
            "corrupted (header strings: LLVM version: length 5000 exceeds the limit of 256)");

  // A declared size too small for the trailer, on a file that small.
  bytes.assign(good_.begin(), good_.begin() + 80);
  putU64(bytes, kFileSizeOffset, 80);
  EXPECT_EQ(loadError(bytes),
            "corrupted (header: a file of 80 bytes has no room for the header and the checksum "
            "trailer)");
}

TEST_F(BundleDamage, FileErrorsNameThePath) {
  TempDir dir;
  Result<Bundle> bundle = Bundle::load(dir.path());
  ASSERT_FALSE(bundle.ok());
  EXPECT_EQ(bundle.error(), dir.path() + ": not a regular file");
  bundle = Bundle::load(dir.file("missing.mxfb"));
  ASSERT_FALSE(bundle.ok());
  EXPECT_EQ(bundle.error(), dir.file("missing.mxfb") + ": cannot open: No such file or directory");

  std::string path = dir.file("cut.mxfb");
  std::vector<uint8_t> cut(good_.begin(), good_.begin() + 100);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char *>(cut.data()), 100);
  bundle = Bundle::load(path);
  ASSERT_FALSE(bundle.ok());
  EXPECT_EQ(bundle.error(),
            path + ": truncated (100 of " + std::to_string(good_.size()) + " bytes)");
}

} // namespace
} // namespace mxf
