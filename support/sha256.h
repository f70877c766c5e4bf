//===- sha256.h - SHA-256 (FIPS 180-4) for cache keys and checksums -*- C++ -*-===//
//
// One hash for everything mxforge must not get wrong: the cache key, the
// checksum of a cache entry's payload and the per-kernel and whole-file
// checksums of a bundle. SHA-256 rather than a faster non-cryptographic hash
// because keys must not collide across specs and toolchains, and a code
// object (~7 KiB) hashes in ~25 us, far below everything around it.
//
// Plain C++ (the runtime, which links no LLVM, verifies bundles with it).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SUPPORT_SHA256_H
#define MXFORGE_SUPPORT_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mxf {

struct Sha256Digest {
  std::array<uint8_t, 32> bytes{};

  /// 64 lowercase hex digits.
  std::string hex() const;
  /// Parses 64 hex digits (either case); nullopt for anything else.
  static std::optional<Sha256Digest> fromHex(std::string_view hex);

  bool operator==(const Sha256Digest &other) const { return bytes == other.bytes; }
  bool operator!=(const Sha256Digest &other) const { return bytes != other.bytes; }
};

/// Incremental hasher: update() any number of times, then finish() once.
class Sha256 {
public:
  Sha256();
  void update(const void *data, size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  Sha256Digest finish();

private:
  void compressBlock(const uint8_t *block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> pending_{};
  size_t pendingSize_ = 0;
  uint64_t totalBytes_ = 0;
};

Sha256Digest sha256(const void *data, size_t size);
inline Sha256Digest sha256(std::string_view text) { return sha256(text.data(), text.size()); }

} // namespace mxf

#endif // MXFORGE_SUPPORT_SHA256_H
