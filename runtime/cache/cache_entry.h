//===- cache_entry.h - The bytes of one cache entry ---------------*- C++ -*-===//
//
// One file per code object:
//
//   offset  size  field
//   0       8     magic "MXFCACHE"
//   8       4     format version (kCacheEntryFormatVersion), little-endian
//   12      32    key (SHA-256, cache_key.h)
//   44      8     payload length in bytes
//   52      32    SHA-256 of the payload
//   84      ...   payload: canonical code spec (u32 length + bytes), KernelInfo,
//                 launch record (abi/launch_record.h)
//                 (abi/kernel_info_codec.h), HSACO (u64 length + bytes)
//
// decodeCacheEntry verifies all of it on every load and says which check
// failed, in words a user can act on.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_CACHE_CACHE_ENTRY_H
#define MXFORGE_RUNTIME_CACHE_CACHE_ENTRY_H

#include "abi/code_object.h"
#include "support/status.h"
#include "support/sha256.h"

#include <cstdint>
#include <vector>

namespace mxf {

/// 1: no launch record. 2: the launch record follows the KernelInfo.
constexpr uint32_t kCacheEntryFormatVersion = 2;
constexpr size_t kCacheEntryHeaderSize = 84;
/// Largest entry file decodeCacheEntry accepts (a code object is ~10 KiB).
constexpr uint64_t kMaxCacheEntryBytes = uint64_t(64) << 20;

std::vector<uint8_t> encodeCacheEntry(const Sha256Digest &key, const CodeObject &object);

/// Checks, in this order, and fails with the first that does not hold:
/// "empty file", "not an mxforge cache entry (bad magic)", "cache entry
/// format version N, expected 1", "entry belongs to another key", "truncated
/// (N of 84 header bytes)" (also for a file cut inside the magic, version or
/// key), "entry of N bytes exceeds the limit of M", "truncated (N of M payload
/// bytes)", "trailing bytes after the payload (N)", "payload checksum
/// mismatch", "payload does not decode: <field>: ...", "entry is for spec X,
/// not Y". An empty `expectedSpec` skips the last check (`mxforge cache
/// verify` knows the key from the file name, not the spec).
Result<CodeObject> decodeCacheEntry(const uint8_t *data, size_t size,
                                    const Sha256Digest &expectedKey,
                                    const std::string &expectedSpec);

} // namespace mxf

#endif // MXFORGE_RUNTIME_CACHE_CACHE_ENTRY_H
