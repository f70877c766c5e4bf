//===- bundle_test_support.cpp - Random bundle inputs and damage helpers --===//

#include "tests/unit/bundle/bundle_test_support.h"

#include "runtime/bundle_format.h"
#include "abi/kernel_info_codec.h"
#include "spec/kernel_spec.h"
#include "support/byte_io.h"
#include "support/sha256.h"
#include "support/version.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <unistd.h>

namespace mxf::testing {

std::vector<std::string> randomSpecs(std::mt19937_64 &rng, size_t count) {
  static const char *const kRs[] = {"0", "32", "64", "128", "256"};
  static const char *const kM[] = {"1", "2", "4", "8", "16", "32", "64", "128", "256"};
  static const char *const kFmt[] = {"fp4", "fp6_e2m3", "fp6_e3m2", "fp8_e4m3", "fp8_e5m2"};
  static const char *const kScale[] = {"floor", "even", "rceil", "rceil_recip", "ceil", "even126"};
  std::set<std::string> seen;
  std::vector<std::string> specs;
  while (specs.size() < count) {
    // K a multiple of 256 is a multiple of every RS.
    std::string text = "rotate_quant:K=" + std::to_string(256 * (1 + rng() % 256)) +
                       ",RS=" + kRs[rng() % 5] + ",M=" + kM[rng() % 9] + ",fmt=" + kFmt[rng() % 5] +
                       ",scale=" + kScale[rng() % 6] + (rng() % 2 ? ",round=sr" : "");
    Result<KernelSpec> spec = parseSpec(text);
    EXPECT_TRUE(spec.ok()) << text << ": " << spec.error();
    if (!spec.ok())
      continue;
    std::string canonical = printSpec(spec.value());
    if (seen.insert(canonical).second)
      specs.push_back(canonical);
  }
  return specs;
}

KernelInfo randomKernelInfo(std::mt19937_64 &rng, const std::string &name) {
  KernelInfo info;
  info.name = name;
  info.target = kBundleTarget;
  info.codeObjectVersion = rng() % 2 ? 5 : 6;
  uint32_t offset = 0;
  const int buffers = 2 + int(rng() % 4);
  static const char *const kNames[] = {"x", "r", "q", "s", "ids", "out"};
  for (int i = 0; i < buffers; ++i, offset += 8)
    info.args.push_back({kNames[i], "global_buffer", "global", offset, 8});
  info.args.push_back({"rows", "by_value", "", offset, 4});
  offset += 4;
  offset = (offset + 7) / 8 * 8;
  if (rng() % 2) { // v5 hidden arguments
    info.args.push_back({"", "hidden_block_count_x", "", offset, 4});
    info.args.push_back({"", "hidden_group_size_x", "", offset + 12, 2});
    offset += 256;
  }
  info.kernargSize = offset;
  info.kernargAlign = 8;
  info.agprCount = uint32_t(rng() % 3) * 4;
  info.vgprCount = 8 + uint32_t(rng() % 120) + info.agprCount;
  info.sgprCount = 10 + uint32_t(rng() % 90);
  info.vgprSpillCount = rng() % 8 == 0 ? 2 : 0;
  info.ldsBytes = uint32_t(rng() % 5) * 8192;
  info.scratchBytes = rng() % 8 == 0 ? 16 : 0;
  info.maxWorkgroupSize = rng() % 2 ? 256 : 1024;
  info.wavefrontSize = 64;
  return info;
}

LaunchRecord launchRecordFor(const KernelInfo &info, std::mt19937_64 &rng) {
  LaunchRecord record;
  record.workgroupSize = 64 * (1 + uint32_t(rng() % (info.maxWorkgroupSize / 64)));
  record.gridX = 1 + uint32_t(rng() % 64);
  record.rowsPerWorkgroup = 16;
  record.rowPadding = rng() % 2 ? 256 : 1;
  record.ldsBytes = info.ldsBytes;
  record.maxRows = 256;
  return record;
}

std::vector<BundleInput> randomInputs(std::mt19937_64 &rng, size_t count, size_t minBytes,
                                      size_t maxBytes) {
  std::vector<BundleInput> inputs;
  std::vector<std::string> specs = randomSpecs(rng, count);
  for (size_t i = 0; i < count; ++i) {
    BundleInput input;
    input.spec = specs[i];
    input.kernel = randomKernelInfo(rng, "mxf_kernel_" + std::to_string(i));
    input.launch = launchRecordFor(input.kernel, rng);
    input.hsaco.resize(minBytes + rng() % (maxBytes - minBytes + 1));
    for (uint8_t &byte : input.hsaco)
      byte = uint8_t(rng());
    inputs.push_back(std::move(input));
  }
  return inputs;
}

BundleHeaderInfo testHeader() {
  BundleHeaderInfo header;
  header.mxforgeVersion = mxforgeVersion();
  header.llvmVersion = "22.1.0";
  return header;
}

std::vector<uint8_t> encodeOrDie(const BundleHeaderInfo &header,
                                 const std::vector<BundleInput> &kernels) {
  Result<std::vector<uint8_t>> bytes = encodeBundle(header, kernels);
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  return bytes.ok() ? bytes.value() : std::vector<uint8_t>();
}

void putU32(std::vector<uint8_t> &bytes, size_t offset, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes.at(offset + i) = uint8_t(value >> (8 * i));
}

void putU64(std::vector<uint8_t> &bytes, size_t offset, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    bytes.at(offset + i) = uint8_t(value >> (8 * i));
}

uint32_t getU32(const std::vector<uint8_t> &bytes, size_t offset) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i)
    value |= uint32_t(bytes.at(offset + i)) << (8 * i);
  return value;
}

uint64_t getU64(const std::vector<uint8_t> &bytes, size_t offset) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value |= uint64_t(bytes.at(offset + i)) << (8 * i);
  return value;
}

void reseal(std::vector<uint8_t> &bytes, bool fixSize) {
  if (bytes.size() < kBundleHeaderSize + kBundleTrailerSize)
    return;
  if (fixSize)
    putU64(bytes, bundle_format::kFileSizeOffset, bytes.size());
  const size_t sealed = bytes.size() - kBundleTrailerSize;
  Sha256Digest digest = sha256(bytes.data(), sealed);
  std::copy(digest.bytes.begin(), digest.bytes.end(), bytes.begin() + sealed);
}

std::vector<ManifestEntryFields> manifestFields(const std::vector<uint8_t> &bundle) {
  using namespace bundle_format;
  std::vector<ManifestEntryFields> entries;
  ByteReader in(bundle);
  in.skip("header", size_t(getU64(bundle, kManifestOffsetOffset)));
  uint32_t count = getU32(bundle, kKernelCountOffset);
  for (uint32_t i = 0; i < count && in.ok(); ++i) {
    ManifestEntryFields fields;
    fields.spec = in.offset();
    (void)in.string("spec", kMaxSpecLength);
    fields.kernelInfo = in.offset();
    std::string name = in.string("name", kMaxKernelInfoString);
    fields.kernelTarget = in.offset();
    ByteReader info(bundle);
    info.skip("to the KernelInfo", fields.kernelInfo);
    (void)decodeKernelInfo(info);
    in.skip("KernelInfo", info.offset() - in.offset());
    fields.launchRecord = in.offset();
    in.skip("launch record", kLaunchRecordBytes);
    fields.dataOffset = in.offset();
    fields.dataSize = fields.dataOffset + 8;
    fields.checksum = fields.dataSize + 8;
    fields.origin = fields.checksum + 32;
    in.skip("offset, size, checksum, origin", 52);
    entries.push_back(fields);
  }
  EXPECT_TRUE(in.ok()) << in.error();
  return entries;
}

bool kernelInfoDecodes(const KernelInfo &info) {
  ByteWriter out;
  encodeKernelInfo(out, info);
  ByteReader in(out.bytes());
  KernelInfo back = decodeKernelInfo(in);
  return in.ok() && in.remaining() == 0 && back == info;
}

TempDir::TempDir() {
  char pattern[] = "/tmp/mxforge-bundle-XXXXXX";
  if (::mkdtemp(pattern))
    path_ = pattern;
  EXPECT_FALSE(path_.empty()) << "mkdtemp failed";
}

TempDir::~TempDir() {
  if (!path_.empty())
    (void)std::system(("rm -rf '" + path_ + "'").c_str());
}

} // namespace mxf::testing
