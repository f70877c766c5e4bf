//===- cache_entry.cpp - The bytes of one cache entry ---------------------===//

#include "runtime/cache/cache_entry.h"

#include "abi/kernel_info_codec.h"
#include "support/byte_io.h"

#include <cstring>

namespace mxf {
namespace {

constexpr char kMagic[8] = {'M', 'X', 'F', 'C', 'A', 'C', 'H', 'E'};
constexpr size_t kVersionOffset = 8;
constexpr size_t kKeyOffset = 12;
constexpr size_t kPayloadLengthOffset = 44;
constexpr size_t kChecksumOffset = 52;
static_assert(kChecksumOffset + 32 == kCacheEntryHeaderSize, "header layout");

uint64_t readLE(const uint8_t *p, int width) {
  uint64_t value = 0;
  for (int i = 0; i < width; ++i)
    value |= uint64_t(p[i]) << (8 * i);
  return value;
}

std::string headerTruncated(size_t size) {
  return "truncated (" + std::to_string(size) + " of " + std::to_string(kCacheEntryHeaderSize) +
         " header bytes)";
}

} // namespace

std::vector<uint8_t> encodeCacheEntry(const Sha256Digest &key, const CodeObject &object) {
  ByteWriter payload;
  payload.string(object.spec);
  encodeKernelInfo(payload, object.kernel);
  encodeLaunchRecord(payload, object.launch);
  payload.u64(object.hsaco.size());
  payload.raw(object.hsaco);
  Sha256Digest checksum = sha256(payload.bytes().data(), payload.size());

  ByteWriter out;
  out.raw(kMagic, sizeof(kMagic));
  out.u32(kCacheEntryFormatVersion);
  out.raw(key.bytes.data(), key.bytes.size());
  out.u64(payload.size());
  out.raw(checksum.bytes.data(), checksum.bytes.size());
  out.raw(payload.bytes());
  return out.take();
}

Result<CodeObject> decodeCacheEntry(const uint8_t *data, size_t size,
                                    const Sha256Digest &expectedKey,
                                    const std::string &expectedSpec) {
  using R = Result<CodeObject>;
  if (size == 0)
    return R::failure("empty file");
  // A file shorter than the magic is a torn entry if it starts like one, and
  // a foreign file otherwise.
  size_t magicBytes = size < sizeof(kMagic) ? size : sizeof(kMagic);
  if (std::memcmp(data, kMagic, magicBytes) != 0)
    return R::failure("not an mxforge cache entry (bad magic)");
  if (size < kKeyOffset)
    return R::failure(headerTruncated(size));
  uint32_t version = uint32_t(readLE(data + kVersionOffset, 4));
  if (version < kCacheEntryFormatVersion)
    return R::failure("written by an older mxforge (cache entry format " +
                      std::to_string(version) + ", this one reads format " +
                      std::to_string(kCacheEntryFormatVersion) + ")");
  if (version != kCacheEntryFormatVersion)
    return R::failure("cache entry format version " + std::to_string(version) + ", expected " +
                      std::to_string(kCacheEntryFormatVersion));
  if (size < kPayloadLengthOffset)
    return R::failure(headerTruncated(size));
  if (std::memcmp(data + kKeyOffset, expectedKey.bytes.data(), expectedKey.bytes.size()) != 0)
    return R::failure("entry belongs to another key");
  if (size < kCacheEntryHeaderSize)
    return R::failure(headerTruncated(size));
  if (size > kMaxCacheEntryBytes)
    return R::failure("entry of " + std::to_string(size) + " bytes exceeds the limit of " +
                      std::to_string(kMaxCacheEntryBytes));
  const uint64_t payloadLength = readLE(data + kPayloadLengthOffset, 8);
  const uint64_t payloadPresent = size - kCacheEntryHeaderSize;
  if (payloadPresent < payloadLength)
    return R::failure("truncated (" + std::to_string(payloadPresent) + " of " +
                      std::to_string(payloadLength) + " payload bytes)");
  if (payloadPresent > payloadLength)
    return R::failure("trailing bytes after the payload (" +
                      std::to_string(payloadPresent - payloadLength) + ")");
  const uint8_t *payload = data + kCacheEntryHeaderSize;
  Sha256Digest checksum = sha256(payload, payloadLength);
  if (std::memcmp(checksum.bytes.data(), data + kChecksumOffset, checksum.bytes.size()) != 0)
    return R::failure("payload checksum mismatch");

  // The checksum held, so what follows can only fail for an entry that a
  // different (buggy or newer) writer produced with this format version.
  ByteReader in(payload, payloadLength);
  CodeObject object;
  object.spec = in.string("spec", kMaxCacheEntryBytes);
  object.kernel = decodeKernelInfo(in);
  object.launch = decodeLaunchRecord(in);
  if (in.ok())
    if (Status agrees = object.launch.checkAgainst(object.kernel); !agrees.ok())
      in.fail(agrees.message());
  uint64_t hsacoLength = in.u64("code object length");
  if (in.ok() && hsacoLength != in.remaining())
    in.fail("code object length " + std::to_string(hsacoLength) + " does not match the " +
            std::to_string(in.remaining()) + " bytes left in the payload");
  else if (in.ok() && hsacoLength == 0)
    in.fail("code object is empty");
  if (const uint8_t *bytes = in.view("code object", in.ok() ? hsacoLength : 0))
    object.hsaco.assign(bytes, bytes + hsacoLength);
  if (!in.ok())
    return R::failure("payload does not decode: " + in.error());
  if (!expectedSpec.empty() && object.spec != expectedSpec)
    return R::failure("entry is for spec " + object.spec + ", not " + expectedSpec);
  return object;
}

} // namespace mxf
