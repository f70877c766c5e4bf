//===- test_cache_entry.cpp - Encoding and verifying one entry ------------===//
//
// decodeCacheEntry against every kind of damage: each must be detected, with
// the message of the check that catches it (cache_entry.h lists them).
//
//===----------------------------------------------------------------------===//

#include "runtime/cache/cache_entry.h"

#include "abi/kernel_info_codec.h"
#include "support/byte_io.h"
#include "tests/unit/cache/cache_test_support.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

namespace mxf {
namespace {

using namespace cachetest;

std::string decodeError(const std::vector<uint8_t> &bytes, size_t size, const Sha256Digest &key,
                        const std::string &spec) {
  Result<CodeObject> decoded = decodeCacheEntry(bytes.data(), size, key, spec);
  return decoded.ok() ? std::string("<decoded>") : decoded.error();
}

/// An entry with a valid header and checksum around `payload`: what a buggy
/// writer of this format version could produce.
std::vector<uint8_t> entryAround(const Sha256Digest &key, const std::vector<uint8_t> &payload) {
  ByteWriter out;
  out.raw("MXFCACHE", 8);
  out.u32(kCacheEntryFormatVersion);
  out.raw(key.bytes.data(), 32);
  out.u64(payload.size());
  Sha256Digest checksum = sha256(payload.data(), payload.size());
  out.raw(checksum.bytes.data(), 32);
  out.raw(payload);
  return out.take();
}

class CacheEntry : public ::testing::Test {
protected:
  void SetUp() override {
    rng_.seed(testing::testSeed(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    object_ = fakeCodeObject(3, rng_);
    key_ = fakeKey(object_);
    bytes_ = encodeCacheEntry(key_, object_);
  }
  std::string error(const std::vector<uint8_t> &bytes) {
    return decodeError(bytes, bytes.size(), key_, object_.spec);
  }
  std::mt19937_64 rng_;
  CodeObject object_;
  Sha256Digest key_;
  std::vector<uint8_t> bytes_;
};

TEST_F(CacheEntry, RoundTripsAndHasTheDocumentedHeader) {
  Result<CodeObject> back = decodeCacheEntry(bytes_.data(), bytes_.size(), key_, object_.spec);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_TRUE(sameObject(back.value(), object_));
  // The empty expected spec skips only the spec check.
  EXPECT_TRUE(decodeCacheEntry(bytes_.data(), bytes_.size(), key_, "").ok());

  ASSERT_GT(bytes_.size(), kCacheEntryHeaderSize);
  EXPECT_EQ(std::string(bytes_.begin(), bytes_.begin() + 8), "MXFCACHE");
  ByteReader header(bytes_.data() + 8, kCacheEntryHeaderSize - 8);
  EXPECT_EQ(header.u32("version"), kCacheEntryFormatVersion);
  Sha256Digest key;
  header.raw("key", key.bytes.data(), 32);
  EXPECT_EQ(key, key_);
  EXPECT_EQ(header.u64("length"), bytes_.size() - kCacheEntryHeaderSize);
  Sha256Digest checksum;
  header.raw("checksum", checksum.bytes.data(), 32);
  EXPECT_EQ(checksum, sha256(bytes_.data() + kCacheEntryHeaderSize,
                             bytes_.size() - kCacheEntryHeaderSize));
  // The payload starts with the spec (u32 length + bytes).
  ByteReader payload(bytes_.data() + kCacheEntryHeaderSize, bytes_.size() - kCacheEntryHeaderSize);
  EXPECT_EQ(payload.string("spec", 1000), object_.spec);
}

TEST_F(CacheEntry, RoundTripsVariedObjects) {
  for (int i = 0; i < 50; ++i) {
    CodeObject object = fakeCodeObject(i, rng_, 1 + rng_() % 20000);
    object.kernel.args.resize(rng_() % (object.kernel.args.size() + 1));
    object.kernel.wavefrontSize = rng_() % 2 ? 32 : 64;
    object.kernel.ldsBytes = uint32_t(rng_() % (160 * 1024));
    object.launch.ldsBytes = object.kernel.ldsBytes;
    Sha256Digest key = fakeKey(object);
    std::vector<uint8_t> bytes = encodeCacheEntry(key, object);
    Result<CodeObject> back = decodeCacheEntry(bytes.data(), bytes.size(), key, object.spec);
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_TRUE(sameObject(back.value(), object)) << i;
  }
}

TEST_F(CacheEntry, EveryTruncationIsDetected) {
  const size_t payload = bytes_.size() - kCacheEntryHeaderSize;
  EXPECT_EQ(decodeError(bytes_, 0, key_, object_.spec), "empty file");
  // Every cut inside the header, including inside the magic.
  for (size_t size = 1; size < kCacheEntryHeaderSize; ++size)
    EXPECT_EQ(decodeError(bytes_, size, key_, object_.spec),
              "truncated (" + std::to_string(size) + " of 84 header bytes)");
  // Random cuts inside the payload, and the edges.
  std::vector<size_t> cuts = {kCacheEntryHeaderSize, kCacheEntryHeaderSize + 1, bytes_.size() - 1};
  for (int i = 0; i < 300; ++i)
    cuts.push_back(kCacheEntryHeaderSize + rng_() % payload);
  for (size_t size : cuts)
    EXPECT_EQ(decodeError(bytes_, size, key_, object_.spec),
              "truncated (" + std::to_string(size - kCacheEntryHeaderSize) + " of " +
                  std::to_string(payload) + " payload bytes)");
}

TEST_F(CacheEntry, EveryBitFlipIsDetectedByTheRightCheck) {
  // Which check catches a flipped bit depends only on the field it is in.
  const size_t payload = bytes_.size() - kCacheEntryHeaderSize;
  auto expectFlipCaught = [&](size_t byte, int bit) {
    std::vector<uint8_t> flipped = bytes_;
    flipped[byte] ^= uint8_t(1u << bit);
    std::string message = error(flipped);
    SCOPED_TRACE("byte " + std::to_string(byte) + " bit " + std::to_string(bit));
    if (byte < 8) {
      EXPECT_EQ(message, "not an mxforge cache entry (bad magic)");
    } else if (byte < 12) {
      uint32_t version = kCacheEntryFormatVersion ^ (uint32_t(1) << (8 * (byte - 8) + bit));
      EXPECT_EQ(message, version < kCacheEntryFormatVersion
                             ? "written by an older mxforge (cache entry format " +
                                   std::to_string(version) + ", this one reads format " +
                                   std::to_string(kCacheEntryFormatVersion) + ")"
                             : "cache entry format version " + std::to_string(version) +
                                   ", expected " + std::to_string(kCacheEntryFormatVersion));
    } else if (byte < 44) {
      EXPECT_EQ(message, "entry belongs to another key");
    } else if (byte < 52) {
      uint64_t length = payload ^ (uint64_t(1) << (8 * (byte - 44) + bit));
      EXPECT_EQ(message, length > payload
                             ? "truncated (" + std::to_string(payload) + " of " +
                                   std::to_string(length) + " payload bytes)"
                             : "trailing bytes after the payload (" +
                                   std::to_string(payload - length) + ")");
    } else {
      EXPECT_EQ(message, "payload checksum mismatch");
    }
  };
  for (size_t byte = 0; byte < kCacheEntryHeaderSize; ++byte)
    for (int bit = 0; bit < 8; ++bit)
      expectFlipCaught(byte, bit);
  for (int i = 0; i < 2000; ++i)
    expectFlipCaught(kCacheEntryHeaderSize + rng_() % payload, int(rng_() % 8));
}

TEST_F(CacheEntry, RandomMultiByteDamageIsNeverDecoded) {
  for (int i = 0; i < 500; ++i) {
    std::vector<uint8_t> damaged = bytes_;
    int changes = 1 + int(rng_() % 8);
    bool changed = false;
    for (int c = 0; c < changes; ++c) {
      size_t at = rng_() % damaged.size();
      uint8_t value = uint8_t(rng_());
      changed |= damaged[at] != value;
      damaged[at] = value;
    }
    if (changed) {
      EXPECT_NE(error(damaged), "<decoded>") << "damage went unnoticed (round " << i << ")";
    }
  }
}

TEST_F(CacheEntry, AnotherKeysEntryIsRejected) {
  CodeObject other = fakeCodeObject(4, rng_);
  std::vector<uint8_t> otherBytes = encodeCacheEntry(fakeKey(other), other);
  EXPECT_EQ(error(otherBytes), "entry belongs to another key");
}

TEST_F(CacheEntry, AnotherSpecUnderTheSameKeyIsRejected) {
  EXPECT_EQ(decodeError(bytes_, bytes_.size(), key_, "rotate_quant:K=64"),
            "entry is for spec " + object_.spec + ", not rotate_quant:K=64");
}

TEST_F(CacheEntry, OtherFormatVersionsAreRejected) {
  // Entries of older mxforge releases (format 1 had no launch record) say
  // so; unknown newer ones give the plain mismatch.
  for (uint32_t version : {0u, 1u}) {
    std::vector<uint8_t> bytes = bytes_;
    for (int i = 0; i < 4; ++i)
      bytes[8 + i] = uint8_t(version >> (8 * i));
    EXPECT_EQ(error(bytes), "written by an older mxforge (cache entry format " +
                                std::to_string(version) + ", this one reads format 2)");
  }
  for (uint32_t version : {3u, 0xffffffffu}) {
    std::vector<uint8_t> bytes = bytes_;
    for (int i = 0; i < 4; ++i)
      bytes[8 + i] = uint8_t(version >> (8 * i));
    EXPECT_EQ(error(bytes),
              "cache entry format version " + std::to_string(version) + ", expected 2");
  }
}

TEST_F(CacheEntry, ForeignFilesAreRejected) {
  std::string text = "#!/bin/sh\necho not a cache entry\n";
  EXPECT_EQ(error(std::vector<uint8_t>(text.begin(), text.end())),
            "not an mxforge cache entry (bad magic)");
  EXPECT_EQ(error(std::vector<uint8_t>(3, 0)), "not an mxforge cache entry (bad magic)");
  EXPECT_EQ(error(std::vector<uint8_t>{'M', 'X'}), "truncated (2 of 84 header bytes)");
  EXPECT_EQ(error(object_.hsaco), "not an mxforge cache entry (bad magic)");
}

TEST_F(CacheEntry, TrailingBytesAreRejected) {
  std::vector<uint8_t> bytes = bytes_;
  bytes.push_back(0);
  EXPECT_EQ(error(bytes), "trailing bytes after the payload (1)");
}

TEST_F(CacheEntry, OversizedEntriesAreRejected) {
  std::vector<uint8_t> bytes = bytes_;
  bytes.resize(kMaxCacheEntryBytes + 1);
  EXPECT_EQ(error(bytes), "entry of " + std::to_string(kMaxCacheEntryBytes + 1) +
                              " bytes exceeds the limit of " +
                              std::to_string(kMaxCacheEntryBytes));
}

TEST_F(CacheEntry, PayloadsThatDoNotDecodeAreRejectedWithTheField) {
  // Checksums are right; the payloads themselves are wrong.
  ByteWriter shortPayload;
  shortPayload.string(object_.spec);
  EXPECT_EQ(error(entryAround(key_, shortPayload.bytes())),
            "payload does not decode: kernel name: needs 4 bytes at offset " +
                std::to_string(4 + object_.spec.size()) + ", only 0 remain");

  ByteWriter badLength;
  badLength.string(object_.spec);
  encodeKernelInfo(badLength, object_.kernel);
  encodeLaunchRecord(badLength, object_.launch);
  badLength.u64(100);
  badLength.raw(object_.hsaco.data(), 10);
  EXPECT_EQ(error(entryAround(key_, badLength.bytes())),
            "payload does not decode: code object length 100 does not match the 10 bytes left "
            "in the payload");

  ByteWriter empty;
  empty.string(object_.spec);
  encodeKernelInfo(empty, object_.kernel);
  encodeLaunchRecord(empty, object_.launch);
  empty.u64(0);
  EXPECT_EQ(error(entryAround(key_, empty.bytes())),
            "payload does not decode: code object is empty");

  ByteWriter badInfo;
  badInfo.string(object_.spec);
  KernelInfo info = object_.kernel;
  info.wavefrontSize = 48;
  encodeKernelInfo(badInfo, info);
  encodeLaunchRecord(badInfo, object_.launch);
  badInfo.u64(object_.hsaco.size());
  badInfo.raw(object_.hsaco);
  EXPECT_EQ(error(entryAround(key_, badInfo.bytes())),
            "payload does not decode: wavefront size 48 is neither 32 nor 64");

  // A launch record that disagrees with the code object's metadata, and one
  // of an older kernel ABI: nothing may launch either.
  ByteWriter badRecord;
  badRecord.string(object_.spec);
  encodeKernelInfo(badRecord, object_.kernel);
  LaunchRecord record = object_.launch;
  record.ldsBytes = object_.kernel.ldsBytes + 1024;
  encodeLaunchRecord(badRecord, record);
  badRecord.u64(object_.hsaco.size());
  badRecord.raw(object_.hsaco);
  EXPECT_EQ(error(entryAround(key_, badRecord.bytes())),
            "payload does not decode: " + object_.kernel.name +
                ": the launch record says 1024 LDS bytes, the code object's metadata 0");
  ByteWriter oldAbi;
  oldAbi.string(object_.spec);
  encodeKernelInfo(oldAbi, object_.kernel);
  record = object_.launch;
  record.abiVersion = 1;
  encodeLaunchRecord(oldAbi, record);
  oldAbi.u64(object_.hsaco.size());
  oldAbi.raw(object_.hsaco);
  EXPECT_EQ(error(entryAround(key_, oldAbi.bytes())),
            "payload does not decode: launch record: kernel ABI 1, this runtime launches ABI 2");

  // The helper itself makes good entries: the failures above are the fields'.
  ByteWriter good;
  good.string(object_.spec);
  encodeKernelInfo(good, object_.kernel);
  encodeLaunchRecord(good, object_.launch);
  good.u64(object_.hsaco.size());
  good.raw(object_.hsaco);
  EXPECT_EQ(entryAround(key_, good.bytes()), bytes_);
}

} // namespace
} // namespace mxf
