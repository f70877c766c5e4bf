//===- test_disk_cache.cpp - load, store, damaged entries, degrading ------===//

#include "runtime/cache/disk_cache.h"

#include "runtime/cache/cache_entry.h"
#include "tests/unit/cache/cache_test_support.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace mxf {
namespace {

using namespace cachetest;

class DiskCacheTest : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    rng_.seed(testing::testSeed(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    dir_ = root_ + "/cache";
  }

  /// Plants `bytes` as the entry of `object`, then checks the whole story:
  /// the load is Rejected with `problem` (and returns no object), it warns
  /// once however often it is repeated, a store replaces the entry and the
  /// next load hits.
  void expectRejectedThenReplaced(const CodeObject &object, const std::vector<uint8_t> &bytes,
                                  const std::string &problem) {
    WarningLog log;
    DiskCache cache(dir_, log.handler());
    const Sha256Digest key = fakeKey(object);
    ASSERT_TRUE(createDirectories(dir_).ok());
    writeBytes(cache.entryPath(key), bytes);
    for (int i = 0; i < 3; ++i) {
      CacheLoad load = cache.load(key, object.spec);
      EXPECT_EQ(load.outcome, CacheLoadOutcome::Rejected);
      EXPECT_FALSE(load.object.has_value());
      EXPECT_EQ(load.problem, problem);
    }
    ASSERT_EQ(log.count(), 1u);
    EXPECT_EQ(log.lines()[0], "cache entry " + cache.entryPath(key) + " is damaged (" + problem +
                                  "); recompiling and replacing it");
    ASSERT_TRUE(cache.store(key, object).ok());
    CacheLoad again = cache.load(key, object.spec);
    ASSERT_EQ(again.outcome, CacheLoadOutcome::Hit) << again.problem;
    EXPECT_TRUE(sameObject(*again.object, object));
    EXPECT_EQ(log.count(), 1u);
  }

  std::mt19937_64 rng_;
  std::string dir_;
};

TEST_F(DiskCacheTest, MissStoreHit) {
  WarningLog log;
  DiskCache cache(dir_, log.handler());
  CodeObject object = fakeCodeObject(0, rng_);
  Sha256Digest key = fakeKey(object);
  EXPECT_EQ(cache.entryPath(key), dir_ + "/" + key.hex() + ".mxfc");

  CacheLoad miss = cache.load(key, object.spec);
  EXPECT_EQ(miss.outcome, CacheLoadOutcome::Miss);
  EXPECT_FALSE(miss.object.has_value());
  EXPECT_FALSE(pathExists(dir_)) << "a load must not create the directory";

  ASSERT_TRUE(cache.store(key, object).ok());
  EXPECT_EQ(namesIn(dir_), std::vector<std::string>{key.hex() + ".mxfc"});
  CacheLoad hit = cache.load(key, object.spec);
  ASSERT_EQ(hit.outcome, CacheLoadOutcome::Hit) << hit.problem;
  EXPECT_TRUE(sameObject(*hit.object, object));
  EXPECT_TRUE(hit.problem.empty());

  // Another DiskCache on the same directory (another process, later) hits too.
  DiskCache later(dir_, log.handler());
  EXPECT_EQ(later.load(key, object.spec).outcome, CacheLoadOutcome::Hit);
  EXPECT_EQ(log.count(), 0u);
  EXPECT_TRUE(cache.writable());
}

TEST_F(DiskCacheTest, StoreReplacesAnExistingEntry) {
  // The log outlives the cache: a handler into a destroyed temporary hung
  // this test once, when an entry was rejected and the cache warned.
  WarningLog log;
  DiskCache cache(dir_, log.handler());
  CodeObject first = fakeCodeObject(0, rng_), second = fakeCodeObject(0, rng_);
  Sha256Digest key = fakeKey(first);
  ASSERT_TRUE(cache.store(key, first).ok());
  ASSERT_TRUE(cache.store(key, second).ok());
  CacheLoad hit = cache.load(key, second.spec);
  ASSERT_EQ(hit.outcome, CacheLoadOutcome::Hit);
  EXPECT_TRUE(sameObject(*hit.object, second));
  EXPECT_EQ(namesIn(dir_).size(), 1u);
  EXPECT_TRUE(log.lines().empty());
}

TEST_F(DiskCacheTest, TruncatedEntriesAreRejectedAndReplaced) {
  CodeObject object = fakeCodeObject(1, rng_);
  std::vector<uint8_t> bytes = encodeCacheEntry(fakeKey(object), object);
  const size_t payload = bytes.size() - kCacheEntryHeaderSize;
  std::vector<size_t> cuts = {1, 7, 8, 43, 83, kCacheEntryHeaderSize, bytes.size() - 1};
  for (int i = 0; i < 8; ++i)
    cuts.push_back(rng_() % bytes.size());
  for (size_t cut : cuts) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    std::string problem =
        cut == 0 ? "empty file"
        : cut < kCacheEntryHeaderSize
            ? "truncated (" + std::to_string(cut) + " of 84 header bytes)"
            : "truncated (" + std::to_string(cut - kCacheEntryHeaderSize) + " of " +
                  std::to_string(payload) + " payload bytes)";
    expectRejectedThenReplaced(object, std::vector<uint8_t>(bytes.begin(), bytes.begin() + cut),
                               problem);
  }
}

TEST_F(DiskCacheTest, BitFlippedEntriesAreRejectedAndReplaced) {
  CodeObject object = fakeCodeObject(2, rng_);
  std::vector<uint8_t> bytes = encodeCacheEntry(fakeKey(object), object);
  for (int i = 0; i < 10; ++i) {
    size_t at = kCacheEntryHeaderSize + 32 + rng_() % (bytes.size() - kCacheEntryHeaderSize - 32);
    std::vector<uint8_t> flipped = bytes;
    flipped[at] ^= uint8_t(1u << (rng_() % 8));
    SCOPED_TRACE("flip at " + std::to_string(at));
    expectRejectedThenReplaced(object, flipped, "payload checksum mismatch");
  }
  std::vector<uint8_t> magic = bytes;
  magic[3] ^= 0x40;
  expectRejectedThenReplaced(object, magic, "not an mxforge cache entry (bad magic)");
}

TEST_F(DiskCacheTest, EmptyForeignAndOtherVersionFilesAreRejectedAndReplaced) {
  CodeObject object = fakeCodeObject(3, rng_);
  expectRejectedThenReplaced(object, {}, "empty file");
  std::string text = "{\"not\": \"a cache entry\"}\n";
  expectRejectedThenReplaced(object, std::vector<uint8_t>(text.begin(), text.end()),
                             "not an mxforge cache entry (bad magic)");
  std::vector<uint8_t> bytes = encodeCacheEntry(fakeKey(object), object);
  bytes[8] = 3;
  expectRejectedThenReplaced(object, bytes, "cache entry format version 3, expected 2");
  bytes[8] = 1;
  expectRejectedThenReplaced(object, bytes,
                             "written by an older mxforge (cache entry format 1, this one reads "
                             "format 2)");
}

TEST_F(DiskCacheTest, SwappedEntriesAreRejectedAndReplaced) {
  WarningLog log;
  DiskCache cache(dir_, log.handler());
  CodeObject a = fakeCodeObject(4, rng_), b = fakeCodeObject(5, rng_);
  Sha256Digest keyA = fakeKey(a), keyB = fakeKey(b);
  ASSERT_TRUE(cache.store(keyA, a).ok());
  ASSERT_TRUE(cache.store(keyB, b).ok());
  std::string pathA = cache.entryPath(keyA), pathB = cache.entryPath(keyB);
  ASSERT_EQ(::rename(pathA.c_str(), (dir_ + "/swap").c_str()), 0);
  ASSERT_EQ(::rename(pathB.c_str(), pathA.c_str()), 0);
  ASSERT_EQ(::rename((dir_ + "/swap").c_str(), pathB.c_str()), 0);

  for (int i = 0; i < 4; ++i) {
    CacheLoad loadA = cache.load(keyA, a.spec), loadB = cache.load(keyB, b.spec);
    EXPECT_EQ(loadA.outcome, CacheLoadOutcome::Rejected);
    EXPECT_EQ(loadB.outcome, CacheLoadOutcome::Rejected);
    EXPECT_FALSE(loadA.object || loadB.object);
    EXPECT_EQ(loadA.problem, "entry belongs to another key");
    EXPECT_EQ(loadB.problem, "entry belongs to another key");
  }
  EXPECT_EQ(log.count(), 2u) << "one warning per key";
  ASSERT_TRUE(cache.store(keyA, a).ok());
  ASSERT_TRUE(cache.store(keyB, b).ok());
  CacheLoad loadA = cache.load(keyA, a.spec), loadB = cache.load(keyB, b.spec);
  ASSERT_EQ(loadA.outcome, CacheLoadOutcome::Hit);
  ASSERT_EQ(loadB.outcome, CacheLoadOutcome::Hit);
  EXPECT_TRUE(sameObject(*loadA.object, a));
  EXPECT_TRUE(sameObject(*loadB.object, b));
}

TEST_F(DiskCacheTest, AnEntryOfAnotherSpecIsRejected) {
  // Cannot happen with real keys (the spec is part of them); guards against a
  // caller that computes keys wrongly.
  WarningLog log;
  DiskCache cache(dir_, log.handler());
  CodeObject object = fakeCodeObject(6, rng_);
  Sha256Digest key = fakeKey(object);
  ASSERT_TRUE(cache.store(key, object).ok());
  CacheLoad load = cache.load(key, "rotate_quant:K=64");
  EXPECT_EQ(load.outcome, CacheLoadOutcome::Rejected);
  EXPECT_EQ(load.problem, "entry is for spec " + object.spec + ", not rotate_quant:K=64");
  EXPECT_EQ(log.count(), 1u);
}

TEST_F(DiskCacheTest, AnEmptyDirectoryInTheEntrysPlaceIsRemoved) {
  WarningLog log;
  DiskCache cache(dir_, log.handler());
  CodeObject object = fakeCodeObject(7, rng_);
  Sha256Digest key = fakeKey(object);
  ASSERT_TRUE(createDirectories(cache.entryPath(key)).ok());
  CacheLoad load = cache.load(key, object.spec);
  EXPECT_EQ(load.outcome, CacheLoadOutcome::Rejected);
  EXPECT_FALSE(load.object.has_value());
  EXPECT_EQ(load.problem, "an empty directory was in its place; removed it");
  EXPECT_FALSE(pathExists(cache.entryPath(key)));
  ASSERT_EQ(log.count(), 1u);
  EXPECT_EQ(log.lines()[0], "cache entry " + cache.entryPath(key) +
                                " is damaged (an empty directory was in its place; removed "
                                "it); recompiling and replacing it");
  ASSERT_TRUE(cache.store(key, object).ok());
  EXPECT_EQ(cache.load(key, object.spec).outcome, CacheLoadOutcome::Hit);

  // store() removes one that appeared after the load, too.
  CodeObject other = fakeCodeObject(8, rng_);
  ASSERT_TRUE(createDirectories(cache.entryPath(fakeKey(other))).ok());
  ASSERT_TRUE(cache.store(fakeKey(other), other).ok());
  EXPECT_EQ(cache.load(fakeKey(other), other.spec).outcome, CacheLoadOutcome::Hit);
  EXPECT_EQ(log.count(), 1u);
}

TEST_F(DiskCacheTest, ANonEmptyDirectoryInTheEntrysPlaceBlocksOnlyThatKey) {
  WarningLog log;
  DiskCache cache(dir_, log.handler());
  CodeObject object = fakeCodeObject(9, rng_), other = fakeCodeObject(10, rng_);
  Sha256Digest key = fakeKey(object);
  const std::string path = cache.entryPath(key);
  ASSERT_TRUE(createDirectories(path).ok());
  writeText(path + "/somebody's file", "keep me");

  for (int i = 0; i < 3; ++i) {
    CacheLoad load = cache.load(key, object.spec);
    EXPECT_EQ(load.outcome, CacheLoadOutcome::Rejected);
    EXPECT_FALSE(load.object.has_value());
    EXPECT_EQ(load.problem, "a directory that is not empty is in its place");
    Status stored = cache.store(key, object);
    EXPECT_FALSE(stored.ok());
    EXPECT_EQ(stored.message(), "cache entry " + path + " is a directory that is not empty");
  }
  ASSERT_EQ(log.count(), 1u);
  EXPECT_TRUE(contains(log.lines()[0], "cache entry " + path + " is a directory that is not empty"))
      << log.lines()[0];
  EXPECT_TRUE(pathExists(path + "/somebody's file"));
  // The rest of the cache works.
  EXPECT_TRUE(cache.writable());
  ASSERT_TRUE(cache.store(fakeKey(other), other).ok());
  EXPECT_EQ(cache.load(fakeKey(other), other.spec).outcome, CacheLoadOutcome::Hit);
  // Once the user removes the directory, the key is cached again.
  ASSERT_EQ(std::system(("rm -rf '" + path + "'").c_str()), 0);
  ASSERT_TRUE(cache.store(key, object).ok());
  EXPECT_EQ(cache.load(key, object.spec).outcome, CacheLoadOutcome::Hit);
  EXPECT_EQ(log.count(), 1u);
}

TEST_F(DiskCacheTest, AFifoInTheEntrysPlaceIsRejectedWithoutBlocking) {
  WarningLog log;
  DiskCache cache(dir_, log.handler());
  CodeObject object = fakeCodeObject(11, rng_);
  Sha256Digest key = fakeKey(object);
  ASSERT_TRUE(createDirectories(dir_).ok());
  ASSERT_EQ(::mkfifo(cache.entryPath(key).c_str(), 0644), 0);
  CacheLoad load = cache.load(key, object.spec);
  EXPECT_EQ(load.outcome, CacheLoadOutcome::Rejected);
  EXPECT_EQ(load.problem, "not a regular file");
  ASSERT_TRUE(cache.store(key, object).ok());
  EXPECT_EQ(cache.load(key, object.spec).outcome, CacheLoadOutcome::Hit);
}

TEST_F(DiskCacheTest, WarningsComeOncePerKeyAndGoToTheHandler) {
  WarningLog log;
  DiskCache cache(dir_, log.handler());
  ASSERT_TRUE(createDirectories(dir_).ok());
  std::vector<CodeObject> objects;
  for (int i = 0; i < 5; ++i) {
    objects.push_back(fakeCodeObject(20 + i, rng_));
    writeText(cache.entryPath(fakeKey(objects.back())), "garbage " + std::to_string(i));
  }
  for (int round = 0; round < 4; ++round)
    for (const CodeObject &object : objects)
      EXPECT_EQ(cache.load(fakeKey(object), object.spec).outcome, CacheLoadOutcome::Rejected);
  std::vector<std::string> lines = log.lines();
  ASSERT_EQ(lines.size(), objects.size());
  for (size_t i = 0; i < objects.size(); ++i)
    EXPECT_EQ(lines[i], "cache entry " + cache.entryPath(fakeKey(objects[i])) +
                            " is damaged (not an mxforge cache entry (bad magic)); recompiling "
                            "and replacing it");
  // Each DiskCache warns for itself (one per process in practice).
  WarningLog otherLog;
  DiskCache other(dir_, otherLog.handler());
  EXPECT_EQ(other.load(fakeKey(objects[0]), objects[0].spec).outcome,
            CacheLoadOutcome::Rejected);
  EXPECT_EQ(otherLog.count(), 1u);
}

/// Stores into `directory` fail once, warn once, and never touch the disk
/// again; loads stay clean misses.
void expectDegrades(const std::string &directory, std::mt19937_64 &rng,
                    const std::string &reasonPart, const std::function<void()> &unblock) {
  WarningLog log;
  DiskCache cache(directory, log.handler());
  std::vector<CodeObject> objects;
  std::string firstFailure;
  for (int i = 0; i < 20; ++i) {
    objects.push_back(fakeCodeObject(i, rng, 100));
    Status stored = cache.store(fakeKey(objects.back()), objects.back());
    ASSERT_FALSE(stored.ok());
    if (i == 0)
      firstFailure = stored.message();
    EXPECT_EQ(stored.message(), firstFailure) << "later stores return the first failure";
    EXPECT_FALSE(cache.writable());
  }
  EXPECT_TRUE(contains(firstFailure, "cache directory " + directory + " is not writable ("))
      << firstFailure;
  EXPECT_TRUE(contains(firstFailure, reasonPart)) << firstFailure;
  EXPECT_TRUE(contains(firstFailure, "); compiling without the cache")) << firstFailure;
  ASSERT_EQ(log.count(), 1u);
  EXPECT_EQ(log.lines()[0], firstFailure);
  for (const CodeObject &object : objects) {
    CacheLoad load = cache.load(fakeKey(object), object.spec);
    EXPECT_EQ(load.outcome, CacheLoadOutcome::Miss);
    EXPECT_FALSE(load.object.has_value());
  }
  EXPECT_EQ(log.count(), 1u);
  // Skipped means skipped: even once the directory could be made, this
  // DiskCache does not try again.
  if (unblock) {
    unblock();
    EXPECT_FALSE(cache.store(fakeKey(objects[0]), objects[0]).ok());
    EXPECT_FALSE(pathExists(directory));
  }
}

// A store that fails in a writable directory (here a full disk, through the
// atomic writer's fault seam) costs that key one miss: the cache stays on,
// and the next store of any key, this one included, succeeds.
TEST_F(DiskCacheTest, OneFailedStoreIsAMissNotADisabledCache) {
  WarningLog log;
  DiskCache cache(dir_, log.handler());
  CodeObject first = fakeCodeObject(0, rng_), second = fakeCodeObject(1, rng_);
  ASSERT_TRUE(cache.store(fakeKey(second), second).ok()); // creates the directory
  injectWriteFailureForTesting(0, ENOSPC);
  Status failed = cache.store(fakeKey(first), first);
  injectWriteFailureForTesting(-1, 0);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.message(), "could not store cache entry " + cache.entryPath(fakeKey(first)) +
                                  " (write failed: No space left on device); this kernel stays "
                                  "uncached");
  EXPECT_TRUE(cache.writable());
  ASSERT_EQ(log.count(), 1u);
  EXPECT_EQ(log.lines()[0], failed.message());
  EXPECT_EQ(cache.load(fakeKey(first), first.spec).outcome, CacheLoadOutcome::Miss);
  ASSERT_TRUE(cache.store(fakeKey(first), first).ok());
  EXPECT_EQ(cache.load(fakeKey(first), first.spec).outcome, CacheLoadOutcome::Hit);
  EXPECT_EQ(namesIn(dir_).size(), 2u); // no temporary left by the failed store
}

TEST_F(DiskCacheTest, ADirectoryUnderARegularFileDegradesToUncached) {
  const std::string file = root_ + "/a-file";
  writeText(file, "x");
  expectDegrades(file + "/cache", rng_, file + ": exists and is not a directory", [&] {
    ASSERT_EQ(::unlink(file.c_str()), 0);
  });
}

TEST_F(DiskCacheTest, ARegularFileAsTheDirectoryDegradesToUncached) {
  const std::string file = root_ + "/cache";
  writeText(file, "x");
  expectDegrades(file, rng_, file + ": exists and is not a directory", nullptr);
}

TEST_F(DiskCacheTest, AnUnwritableDirectoryDegradesToUncached) {
  // /proc refuses new directories even to root.
  expectDegrades("/proc/mxforge-cache-test/cache", rng_, "cannot create the directory",
                 nullptr);
}

TEST_F(DiskCacheTest, TheDefaultHandlerPrintsAWarningLine) {
  const std::string file = root_ + "/a-file";
  writeText(file, "x");
  DiskCache cache(file + "/cache");
  CodeObject object = fakeCodeObject(0, rng_, 100);
  ::testing::internal::CaptureStderr();
  (void)cache.store(fakeKey(object), object);
  (void)cache.store(fakeKey(object), object);
  std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(printed.rfind("mxforge: warning: cache directory " + file + "/cache is not writable (",
                          0),
            0u)
      << printed;
  EXPECT_EQ(std::count(printed.begin(), printed.end(), '\n'), 1) << printed;
}

} // namespace
} // namespace mxf
