//===- bundle_writer.cpp - Writing AOT bundles ----------------------------===//

#include "runtime/bundle_writer.h"

#include "runtime/bundle_format.h"
#include "abi/kernel_info_codec.h"
#include "spec/kernel_spec.h"
#include "support/byte_io.h"
#include "support/file_io.h"
#include "support/sha256.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace mxf {
namespace {

using namespace bundle_format;

std::string describeInput(size_t index, const BundleInput &input) {
  return "bundle kernel " + std::to_string(index) + " ('" + input.spec + "')";
}

Status checkHeader(const BundleHeaderInfo &header) {
  if (header.formatVersion != kBundleFormatVersion)
    return Status::failure("cannot write bundle format version " +
                           std::to_string(header.formatVersion) + ", this writer writes " +
                           std::to_string(kBundleFormatVersion));
  const std::pair<const char *, const std::string *> strings[] = {
      {"mxforge version", &header.mxforgeVersion},
      {"LLVM version", &header.llvmVersion},
      {"target", &header.target}};
  for (const auto &[name, text] : strings)
    if (text->size() > kMaxBundleHeaderString)
      return Status::failure(std::string("bundle header: the ") + name + " is " +
                             std::to_string(text->size()) + " bytes, more than the limit of " +
                             std::to_string(kMaxBundleHeaderString));
  if (header.target.empty())
    return Status::failure("bundle header: the target is empty");
  return Status::success();
}

/// What the loader checks of each entry, checked before writing it.
Status checkInput(size_t index, const BundleInput &input, const std::string &target) {
  Result<KernelSpec> parsed = parseSpec(input.spec);
  if (!parsed.ok())
    return Status::failure(describeInput(index, input) + ": not a valid spec: " + parsed.error());
  std::string canonical = printSpec(parsed.value());
  if (canonical != input.spec)
    return Status::failure(describeInput(index, input) + ": the spec is not canonical; write '" +
                           canonical + "'");
  if (input.hsaco.empty())
    return Status::failure(describeInput(index, input) + ": the code object is empty");
  if (input.kernel.target != target)
    return Status::failure(describeInput(index, input) + ": kernel '" + input.kernel.name +
                           "' is for target '" + input.kernel.target + "', the bundle's is '" +
                           target + "'");
  if (Status agrees = input.launch.checkAgainst(input.kernel); !agrees.ok())
    return Status::failure(describeInput(index, input) + ": " + agrees.message());
  // Round-trip the KernelInfo through the loader's decoder, so a value it
  // rejects (an argument outside the kernarg segment, ...) fails here.
  ByteWriter encoded;
  encodeKernelInfo(encoded, input.kernel);
  ByteReader reader(encoded.bytes());
  (void)decodeKernelInfo(reader);
  if (!reader.ok())
    return Status::failure(describeInput(index, input) + ": kernel '" + input.kernel.name +
                           "' has a KernelInfo the loader would reject: " + reader.error());
  return Status::success();
}

void padTo(ByteWriter &out, uint64_t alignment) {
  while (out.size() % alignment)
    out.u8(0);
}

} // namespace

Result<std::vector<uint8_t>> encodeBundle(const BundleHeaderInfo &header,
                                          const std::vector<BundleInput> &kernels) {
  if (Status status = checkHeader(header); !status.ok())
    return status;
  for (size_t i = 0; i < kernels.size(); ++i)
    if (Status status = checkInput(i, kernels[i], header.target); !status.ok())
      return status;
  if (kernels.size() > UINT32_MAX)
    return Result<std::vector<uint8_t>>::failure("a bundle holds at most 2^32-1 kernels");

  // File order is spec order: reproducible bytes, and binary search at load.
  std::vector<size_t> order(kernels.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return kernels[a].spec < kernels[b].spec; });
  for (size_t i = 1; i < order.size(); ++i)
    if (kernels[order[i]].spec == kernels[order[i - 1]].spec) {
      size_t first = std::min(order[i], order[i - 1]), second = std::max(order[i], order[i - 1]);
      return Result<std::vector<uint8_t>>::failure(describeInput(second, kernels[second]) +
                                                   ": the spec repeats bundle kernel " +
                                                   std::to_string(first) + "'s");
    }

  // Manifest offsets depend on the manifest's own size, so it is built
  // first with the data offsets patched in afterwards.
  ByteWriter strings;
  strings.string(header.mxforgeVersion);
  strings.string(header.llvmVersion);
  strings.string(header.target);
  const uint64_t manifestOffset = kBundleHeaderSize + strings.size();

  // Equal code objects (specs of one tiling class) are stored once, in the
  // order of their first entry; `stored[i]` is entry i's copy.
  ByteWriter manifest;
  std::vector<size_t> offsetFields; // where each entry's data offset goes
  std::vector<size_t> stored(order.size());
  std::vector<size_t> copies;       // entry (in file order) whose bytes each copy holds
  std::map<std::string, size_t> copyOf; // SHA-256 hex -> copy
  for (size_t i = 0; i < order.size(); ++i) {
    const BundleInput &input = kernels[order[i]];
    const Sha256Digest digest = sha256(input.hsaco.data(), input.hsaco.size());
    auto [it, added] = copyOf.emplace(digest.hex(), copies.size());
    if (added)
      copies.push_back(i);
    else if (kernels[order[copies[it->second]]].hsaco != input.hsaco)
      return Result<std::vector<uint8_t>>::failure(describeInput(order[i], input) +
                                                   ": a SHA-256 collision between code objects");
    stored[i] = it->second;
    manifest.string(input.spec);
    encodeKernelInfo(manifest, input.kernel);
    encodeLaunchRecord(manifest, input.launch);
    offsetFields.push_back(manifest.size());
    manifest.u64(0);
    manifest.u64(input.hsaco.size());
    manifest.raw(digest.bytes.data(), 32);
    manifest.u32(uint32_t(input.origin));
  }
  const uint64_t dataOffset = alignUp(manifestOffset + manifest.size(), kBundleDataAlignment);
  std::vector<uint64_t> copyOffsets;
  uint64_t cursor = dataOffset;
  for (size_t entry : copies) {
    copyOffsets.push_back(cursor);
    cursor = alignUp(cursor + kernels[order[entry]].hsaco.size(), kBundleDataAlignment);
  }
  for (size_t i = 0; i < order.size(); ++i)
    manifest.patchU64(offsetFields[i], copyOffsets[stored[i]]);
  const uint64_t dataSize = cursor - dataOffset;
  const uint64_t fileSize = cursor + kBundleTrailerSize;

  ByteWriter out;
  out.raw(kBundleMagic, sizeof kBundleMagic);
  out.u32(kBundleFormatVersion);
  out.u32(header.kernelAbiVersion);
  out.u32(header.templateRevision);
  out.u32(uint32_t(kernels.size()));
  out.u64(fileSize);
  out.u64(manifestOffset);
  out.u64(manifest.size());
  out.u64(dataOffset);
  out.u64(dataSize);
  out.raw(strings.bytes());
  out.raw(manifest.bytes());
  padTo(out, kBundleDataAlignment);
  for (size_t entry : copies) {
    out.raw(kernels[order[entry]].hsaco);
    padTo(out, kBundleDataAlignment);
  }
  Sha256Digest checksum = sha256(out.bytes().data(), out.size());
  out.raw(checksum.bytes.data(), checksum.bytes.size());
  return out.take();
}

Status writeBundleFile(const std::string &path, const BundleHeaderInfo &header,
                       const std::vector<BundleInput> &kernels) {
  Result<std::vector<uint8_t>> bytes = encodeBundle(header, kernels);
  if (!bytes.ok())
    return Status::failure(path + ": " + bytes.error());
  return writeFileAtomically(path, bytes.value());
}

} // namespace mxf
