//===- bundle.cpp - Loading and verifying AOT bundles ---------------------===//
//
// The checks run in the order that names each kind of damage correctly: a
// file cut short must say "truncated", not "checksum mismatch", and a bundle
// from a newer mxforge must say which format it is, not that its manifest is
// garbage. So: length and magic, format version, declared size, the
// whole-file checksum, then what the (now trusted) header says (kernel ABI,
// target), and last the manifest entry by entry. The manifest checks matter
// even after the checksum passed: the checksum proves the file is what some
// writer wrote, not that the writer was ours or correct.
//
//===----------------------------------------------------------------------===//

#include "runtime/bundle.h"

#include "runtime/bundle_format.h"
#include "runtime/elf_symbols.h"
#include "abi/kernel_info_codec.h"
#include "support/byte_io.h"
#include "support/file_io.h"
#include "support/printable.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace mxf {
namespace {

using namespace bundle_format;

uint32_t readU32(const uint8_t *p) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i)
    value |= uint32_t(p[i]) << (8 * i);
  return value;
}

uint64_t readU64(const uint8_t *p) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value |= uint64_t(p[i]) << (8 * i);
  return value;
}

Status corrupted(const std::string &what) { return Status::failure("corrupted (" + what + ")"); }

std::string range(uint64_t begin, uint64_t size) {
  return "[" + std::to_string(begin) + ", " + std::to_string(begin + size) + ")";
}

/// Checks of the fixed header and of the file as a whole, up to and
/// including the checksum; nothing after this trusts an unchecked byte.
Status checkFile(const std::vector<uint8_t> &bytes) {
  const size_t size = bytes.size();
  if (size == 0)
    return Status::failure("truncated (the file is empty)");
  // A short file is only "truncated" if what it has is a bundle's start.
  if (std::memcmp(bytes.data(), kBundleMagic, std::min(size, sizeof kBundleMagic)) != 0)
    return Status::failure("not an mxforge bundle (it does not start with \"MXFBUNDL\")");
  if (size < kBundleHeaderSize)
    return Status::failure("truncated (" + std::to_string(size) + " bytes, shorter than the " +
                           std::to_string(kBundleHeaderSize) + "-byte bundle header)");
  const uint8_t *data = bytes.data();
  uint32_t format = readU32(data + kFormatVersionOffset);
  const std::string readable = std::to_string(kOldestBundleFormatVersion) + " to " +
                               std::to_string(kBundleFormatVersion);
  if (format < kOldestBundleFormatVersion)
    return Status::failure("written by an older mxforge (bundle format " +
                           std::to_string(format) + "; this runtime reads formats " + readable +
                           "): rebuild it with `mxforge bundle`");
  if (format > kBundleFormatVersion)
    return Status::failure("bundle format version " + std::to_string(format) +
                           ", this runtime reads " + readable);
  uint64_t declared = readU64(data + kFileSizeOffset);
  if (declared > size)
    return Status::failure("truncated (" + std::to_string(size) + " of " +
                           std::to_string(declared) + " bytes)");
  if (declared < size)
    return Status::failure("trailing bytes (" + std::to_string(size - declared) + " after the " +
                           std::to_string(declared) + " bytes the header declares)");
  if (size < kBundleHeaderSize + kBundleTrailerSize)
    return corrupted("header: a file of " + std::to_string(declared) +
                     " bytes has no room for the header and the checksum trailer");
  const size_t sealed = size - kBundleTrailerSize;
  Sha256Digest actual = sha256(data, sealed);
  if (std::memcmp(actual.bytes.data(), data + sealed, kBundleTrailerSize) != 0)
    return corrupted("file checksum mismatch");
  return Status::success();
}

} // namespace

Result<Bundle> Bundle::fromBytes(std::vector<uint8_t> bytes, const BundleLoadOptions &options) {
  if (Status status = checkFile(bytes); !status.ok())
    return status;
  const uint8_t *data = bytes.data();
  const uint64_t fileSize = bytes.size();

  BundleHeaderInfo header;
  header.formatVersion = readU32(data + kFormatVersionOffset);
  header.kernelAbiVersion = readU32(data + kKernelAbiOffset);
  header.templateRevision = readU32(data + kTemplateRevisionOffset);
  if (header.kernelAbiVersion != uint32_t(kKernelAbiVersion))
    return Result<Bundle>::failure(
        "built for kernel ABI " + std::to_string(header.kernelAbiVersion) +
        ", this runtime launches ABI " + std::to_string(kKernelAbiVersion));

  // The header strings, read only up to the end of the fixed regions.
  ByteReader reader(data, fileSize - kBundleTrailerSize);
  reader.skip("fixed header", kBundleHeaderSize);
  header.mxforgeVersion = reader.string("mxforge version", kMaxBundleHeaderString);
  header.llvmVersion = reader.string("LLVM version", kMaxBundleHeaderString);
  header.target = reader.string("target", kMaxBundleHeaderString);
  if (!reader.ok())
    return corrupted("header strings: " + reader.error());
  if (header.target != options.expectedTarget)
    return Result<Bundle>::failure("built for " + printable(header.target) +
                                   ", this runtime loads " + options.expectedTarget);

  // Regions: header, strings, manifest, padding, code objects, trailer, in
  // this order. Each check bounds the values the next one subtracts or adds,
  // so none of the arithmetic can wrap (only the ranges quoted in messages
  // may).
  const uint32_t count = readU32(data + kKernelCountOffset);
  const uint64_t manifestOffset = readU64(data + kManifestOffsetOffset);
  const uint64_t manifestSize = readU64(data + kManifestSizeOffset);
  const uint64_t dataOffset = readU64(data + kDataOffsetOffset);
  const uint64_t dataSize = readU64(data + kDataSizeOffset);
  const uint64_t dataEnd = fileSize - kBundleTrailerSize;
  if (manifestOffset != reader.offset())
    return corrupted("header: the manifest starts at byte " + std::to_string(manifestOffset) +
                     ", the header strings end at byte " + std::to_string(reader.offset()));
  if (dataOffset > dataEnd || dataSize != dataEnd - dataOffset)
    return corrupted("header: the code objects " + range(dataOffset, dataSize) +
                     " do not end where the trailer starts, at byte " + std::to_string(dataEnd));
  if (dataOffset % kBundleDataAlignment)
    return corrupted("header: the code objects start at byte " + std::to_string(dataOffset) +
                     ", not a multiple of " + std::to_string(kBundleDataAlignment));
  if (dataOffset < manifestOffset || manifestSize > dataOffset - manifestOffset)
    return corrupted("header: the manifest " + range(manifestOffset, manifestSize) +
                     " runs into the code objects at byte " + std::to_string(dataOffset));
  if (count > manifestSize / kMinManifestEntrySize)
    return corrupted("header: " + std::to_string(count) + " kernels cannot fit a " +
                     std::to_string(manifestSize) + "-byte manifest");

  Bundle bundle;
  bundle.kernels_.reserve(count);
  ByteReader manifest(data, manifestOffset + manifestSize);
  manifest.skip("header", manifestOffset);
  uint64_t previousEnd = dataOffset;
  struct StoredCopy {
    uint64_t size;
    Sha256Digest checksum;
    std::set<std::string> symbols; // those it defines, when it is an ELF64 file
  };
  std::map<uint64_t, StoredCopy> storedCopies; // by offset: verified once
  for (uint32_t i = 0; i < count; ++i) {
    const std::string entry = "manifest entry " + std::to_string(i);
    Kernel kernel;
    kernel.spec = manifest.string("spec", kMaxSpecLength);
    kernel.kernel = decodeKernelInfo(manifest);
    kernel.launch = decodeLaunchRecord(manifest);
    const uint64_t offset = manifest.u64("code object offset");
    const uint64_t size = manifest.u64("code object size");
    manifest.raw("code object checksum", kernel.checksum.bytes.data(),
                 kernel.checksum.bytes.size());
    const uint32_t origin = header.formatVersion >= 3 ? manifest.u32("code origin") : 0;
    if (!manifest.ok())
      return corrupted(entry + ": " + manifest.error());
    const std::string named = entry + " ('" + printable(kernel.spec) + "')";
    if (origin > uint32_t(BundleCodeOrigin::Compiler))
      return corrupted(named + ": code origin " + std::to_string(origin) +
                       " is neither 0 (unknown) nor 1 (compiler)");
    kernel.origin = BundleCodeOrigin(origin);

    Result<KernelSpec> spec = parseSpec(kernel.spec);
    if (!spec.ok())
      return corrupted(named + ": not a valid spec: " + spec.error());
    if (printSpec(spec.value()) != kernel.spec)
      return corrupted(named + ": the spec is not canonical");
    if (!bundle.kernels_.empty()) {
      const std::string &previous = bundle.kernels_.back().spec;
      if (kernel.spec == previous)
        return corrupted(named + ": repeats the spec of entry " + std::to_string(i - 1));
      if (kernel.spec < previous)
        return corrupted(named + ": out of order (entries are sorted by spec)");
    }
    if (kernel.kernel.target != header.target)
      return corrupted(named + ": kernel '" + printable(kernel.kernel.name) + "' is for " +
                       printable(kernel.kernel.target) + ", the bundle for " +
                       printable(header.target));

    if (Status agrees = kernel.launch.checkAgainst(kernel.kernel); !agrees.ok())
      return corrupted(named + ": " + agrees.message());
    if (size == 0)
      return corrupted(named + ": the code object is empty");
    if (offset < dataOffset || offset > dataEnd || size > dataEnd - offset)
      return corrupted(named + ": the code object " + range(offset, size) +
                       " lies outside the code object region " + range(dataOffset, dataSize));
    if (offset % kBundleDataAlignment)
      return corrupted(named + ": the code object starts at byte " + std::to_string(offset) +
                       ", not a multiple of " + std::to_string(kBundleDataAlignment));
    // An entry either shares an earlier entry's code object exactly (specs
    // of one tiling class) or has the next one, after every earlier one.
    auto shared = storedCopies.find(offset);
    const bool reuses = shared != storedCopies.end();
    if (reuses && (shared->second.size != size || shared->second.checksum != kernel.checksum))
      return corrupted(named + ": the code object " + range(offset, size) +
                       " starts where an earlier entry's starts but is not the same");
    if (!reuses && offset < previousEnd)
      return corrupted(named + ": the code object " + range(offset, size) +
                       " overlaps an earlier entry's, which ends at byte " +
                       std::to_string(previousEnd));
    kernel.hsaco = data + offset;
    kernel.hsacoSize = size_t(size);
    if (!reuses) {
      previousEnd = offset + size;
      if (sha256(kernel.hsaco, kernel.hsacoSize) != kernel.checksum)
        return corrupted(named + ": code object checksum mismatch");
      StoredCopy copy{size, kernel.checksum, {}};
      if (looksLikeElf64(kernel.hsaco, kernel.hsacoSize)) {
        Result<std::vector<std::string>> symbols =
            definedElfSymbols(kernel.hsaco, kernel.hsacoSize);
        if (!symbols.ok())
          return corrupted(named + ": the code object's ELF is damaged: " + symbols.error());
        copy.symbols.insert(symbols.value().begin(), symbols.value().end());
      }
      shared = storedCopies.emplace(offset, std::move(copy)).first;
    }
    // The checksums seal bytes, not meaning: a bundle re-sealed with code
    // objects swapped between entries, and the manifest's names changed to
    // match each entry's spec, passes them. So the code must define the
    // kernel the entry names (the kernel table checks that name against the
    // spec). Bytes that are not an ELF64 file load on no device at all.
    if (looksLikeElf64(kernel.hsaco, kernel.hsacoSize) &&
        !shared->second.symbols.count(kernel.kernel.name + ".kd"))
      return corrupted(named + ": the code object does not define kernel '" +
                       printable(kernel.kernel.name) + "' (no symbol '" +
                       printable(kernel.kernel.name) +
                       ".kd'): it holds another kernel's code");
    bundle.kernels_.push_back(std::move(kernel));
  }
  if (manifest.offset() != manifestOffset + manifestSize)
    return corrupted(
        "manifest: " + std::to_string(manifestOffset + manifestSize - manifest.offset()) +
        " bytes after the last of its " + std::to_string(count) + " entries");

  bundle.header_ = std::move(header);
  // Moving a vector keeps its buffer, so the hsaco pointers stay valid.
  bundle.bytes_ = std::move(bytes);
  return Result<Bundle>(std::move(bundle));
}

Result<Bundle> Bundle::load(const std::string &path, const BundleLoadOptions &options) {
  Result<std::vector<uint8_t>> bytes = readFileBytes(path);
  if (!bytes.ok())
    return Result<Bundle>::failure(bytes.error()); // already starts with the path
  Result<Bundle> bundle = fromBytes(std::move(bytes.value()), options);
  if (!bundle.ok())
    return Result<Bundle>::failure(path + ": " + bundle.error());
  return bundle;
}

const Bundle::Kernel *Bundle::find(std::string_view canonicalSpec) const {
  auto it = std::lower_bound(kernels_.begin(), kernels_.end(), canonicalSpec,
                             [](const Kernel &kernel, std::string_view spec) {
                               return std::string_view(kernel.spec) < spec;
                             });
  return it != kernels_.end() && it->spec == canonicalSpec ? &*it : nullptr;
}

const Bundle::Kernel *Bundle::find(const KernelSpec &spec) const { return find(printSpec(spec)); }

const char *bundleCodeOriginName(BundleCodeOrigin origin) {
  switch (origin) {
  case BundleCodeOrigin::Unknown: return "unknown";
  case BundleCodeOrigin::Compiler: return "compiler";
  }
  return "invalid";
}

} // namespace mxf
