//===- test_cache_trust.cpp - A cache that trusts only its owner ----------===//
//
// Issue 34: a cache directory another user can write (pre-created in /tmp,
// group-writable, shared through MXFORGE_CACHE_DIR) let that user plant an
// entry the victim ran. The directory and every entry must now belong to the
// running user and not be writable by group or others, or the cache is off
// (one warning, compiles go on uncached); what the cache creates is 0700 and
// 0600 whatever the umask; verify reports foreign owners and modes; nothing
// of another user is removed.
//
// The owner variants need root (CI runs as root) to chown a planted file to
// uid 65534; without root they are skipped with the reason printed. The mode
// variants always run.
//
//===----------------------------------------------------------------------===//

#include "runtime/cache/disk_cache.h"

#include "tests/unit/cache/cache_test_support.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

namespace mxf {
namespace {

using namespace cachetest;

constexpr uid_t kNobody = 65534;

mode_t modeOf(const std::string &path) {
  struct stat info;
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

uid_t ownerOf(const std::string &path) {
  struct stat info;
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return info.st_uid;
}

/// Restores the umask a test changed.
class ScopedUmask {
public:
  explicit ScopedUmask(mode_t mask) : previous_(::umask(mask)) {}
  ~ScopedUmask() { ::umask(previous_); }

private:
  mode_t previous_;
};

class CacheTrustTest : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    rng_.seed(testing::testSeed(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    dir_ = root_ + "/cache";
    object_ = fakeCodeObject(0, rng_);
    key_ = fakeKey(object_);
    other_ = fakeCodeObject(1, rng_);
  }

  /// A directory holding one good entry, written by a cache of its own.
  void storeGoodEntry() {
    WarningLog log;
    DiskCache writer(dir_, log.handler());
    ASSERT_TRUE(writer.store(key_, object_).ok());
    ASSERT_EQ(log.count(), 0u);
  }

  /// A fresh cache on dir_ must not use it: the load misses (or is
  /// rejected), one warning names `path` and `reasonPart`, stores fail
  /// without touching the disk, and the planted entry is left as it was.
  void expectNotUsed(const std::string &path, const std::string &reasonPart) {
    const std::vector<uint8_t> planted = readBytes(cacheEntry());
    WarningLog log;
    DiskCache cache(dir_, log.handler());
    for (int i = 0; i < 3; ++i) {
      CacheLoad load = cache.load(key_, object_.spec);
      EXPECT_NE(load.outcome, CacheLoadOutcome::Hit) << "an untrusted entry was used";
      EXPECT_FALSE(load.object.has_value());
    }
    EXPECT_FALSE(cache.trusted());
    EXPECT_FALSE(cache.store(key_, object_).ok());
    EXPECT_FALSE(cache.store(fakeKey(other_), other_).ok());
    EXPECT_FALSE(pathExists(cache.entryPath(fakeKey(other_))));
    ASSERT_EQ(log.count(), 1u) << "one warning per process";
    const std::string line = log.lines()[0];
    EXPECT_TRUE(contains(line, "cache directory " + dir_ + " is not trusted (")) << line;
    EXPECT_TRUE(contains(line, path + " " + reasonPart)) << line;
    EXPECT_TRUE(contains(line, "compiling without the cache")) << line;
    EXPECT_EQ(readBytes(cacheEntry()), planted) << "the untrusted entry must stay as it was";
  }

  std::string cacheEntry() const { return DiskCache(dir_).entryPath(key_); }

  std::mt19937_64 rng_;
  std::string dir_;
  CodeObject object_, other_;
  Sha256Digest key_;
};

TEST_F(CacheTrustTest, CreatedDirectoriesAre0700AndEntries0600WhateverTheUmask) {
  for (mode_t mask : {mode_t(0), mode_t(022), mode_t(0277)}) {
    SCOPED_TRACE("umask " + std::to_string(mask));
    const std::string parent = root_ + "/u" + std::to_string(mask);
    dir_ = parent + "/nested/cache";
    {
      ScopedUmask umask(mask);
      WarningLog log;
      DiskCache cache(dir_, log.handler());
      ASSERT_TRUE(cache.store(key_, object_).ok());
      EXPECT_EQ(log.count(), 0u);
      EXPECT_EQ(cache.load(key_, object_.spec).outcome, CacheLoadOutcome::Hit);
    }
    EXPECT_EQ(modeOf(parent), mode_t(0700));
    EXPECT_EQ(modeOf(parent + "/nested"), mode_t(0700));
    EXPECT_EQ(modeOf(dir_), mode_t(0700));
    EXPECT_EQ(modeOf(cacheEntry()), mode_t(0600));
  }
}

TEST_F(CacheTrustTest, ADirectoryOthersOrTheGroupCanWriteIsNotUsed) {
  for (mode_t mode : {mode_t(0777), mode_t(0770), mode_t(0703)}) {
    SCOPED_TRACE(mode);
    storeGoodEntry();
    ASSERT_EQ(::chmod(dir_.c_str(), mode), 0);
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", unsigned(mode));
    expectNotUsed(dir_, std::string("has mode ") + octal);
    EXPECT_FALSE(DiskCache(dir_).checkDirectoryTrust().ok());
    ASSERT_EQ(::chmod(dir_.c_str(), 0700), 0);
    EXPECT_TRUE(DiskCache(dir_).checkDirectoryTrust().ok());
  }
}

TEST_F(CacheTrustTest, AnEntryTheGroupCanWriteIsNotUsed) {
  storeGoodEntry();
  ASSERT_EQ(::chmod(cacheEntry().c_str(), 0620), 0);
  expectNotUsed(cacheEntry(), "has mode 0620 (owned by this user, uid " +
                                  std::to_string(::geteuid()) + "): writable by group");
  DiskCache cache(dir_, [](const std::string &) {});
  CacheLoad load = cache.load(key_, object_.spec);
  EXPECT_EQ(load.outcome, CacheLoadOutcome::Rejected);
  EXPECT_EQ(load.problem.rfind("has mode 0620", 0), 0u) << load.problem;
  EXPECT_EQ(modeOf(cacheEntry()), mode_t(0620)) << "not ours to fix silently";
}

TEST_F(CacheTrustTest, VerifyReportsUntrustedEntriesAndRemovesOnlyOwnOnes) {
  storeGoodEntry();
  DiskCache cache(dir_, [](const std::string &) {});
  ASSERT_TRUE(cache.store(fakeKey(other_), other_).ok());
  ASSERT_EQ(::chmod(cacheEntry().c_str(), 0666), 0);
  Result<std::vector<CacheEntryInfo>> listed = cache.list(/*verify=*/true);
  ASSERT_TRUE(listed.ok()) << listed.error();
  int untrusted = 0;
  for (const CacheEntryInfo &info : listed.value()) {
    if (dir_ + "/" + info.fileName == cacheEntry()) {
      ++untrusted;
      EXPECT_TRUE(info.untrusted);
      EXPECT_EQ(info.problem.rfind("has mode 0666 ", 0), 0u) << info.problem;
      EXPECT_TRUE(contains(info.problem, "writable by group and others")) << info.problem;
      EXPECT_EQ(info.spec, object_.spec) << "decoded all the same, for ls";
    } else {
      EXPECT_TRUE(info.problem.empty()) << info.problem;
      EXPECT_FALSE(info.untrusted);
    }
  }
  EXPECT_EQ(untrusted, 1);
  // An entry of this user that others could have changed is removed.
  Result<std::vector<CacheEntryInfo>> removed = cache.removeDamaged();
  ASSERT_TRUE(removed.ok()) << removed.error();
  ASSERT_EQ(removed.value().size(), 1u);
  EXPECT_TRUE(removed.value()[0].removed);
  EXPECT_FALSE(pathExists(cacheEntry()));
}

/// root only: chown needs it.
bool canChown(std::string &why) {
  if (::geteuid() == 0)
    return true;
  why = "not running as root (uid " + std::to_string(::geteuid()) +
        "): cannot chown a planted file to another user";
  return false;
}

TEST_F(CacheTrustTest, ADirectoryOfAnotherOwnerIsNotUsed) {
  std::string why;
  if (!canChown(why))
    GTEST_SKIP() << why;
  storeGoodEntry();
  ASSERT_EQ(::chown(dir_.c_str(), kNobody, kNobody), 0);
  expectNotUsed(dir_, "is owned by uid 65534 (mode 0700), not by this user (uid 0)");
  Status trust = DiskCache(dir_).checkDirectoryTrust();
  EXPECT_EQ(trust.message(), dir_ + " is owned by uid 65534 (mode 0700), not by this user (uid 0)");
}

TEST_F(CacheTrustTest, AnEntryOfAnotherOwnerIsNotUsedReplacedOrRemoved) {
  std::string why;
  if (!canChown(why))
    GTEST_SKIP() << why;
  storeGoodEntry();
  ASSERT_EQ(::chown(cacheEntry().c_str(), kNobody, kNobody), 0);
  expectNotUsed(cacheEntry(), "is owned by uid 65534 (mode 0600), not by this user (uid 0)");
  EXPECT_EQ(ownerOf(cacheEntry()), kNobody);

  DiskCache cache(dir_, [](const std::string &) {});
  Result<std::vector<CacheEntryInfo>> listed = cache.list(/*verify=*/true);
  ASSERT_TRUE(listed.ok()) << listed.error();
  ASSERT_EQ(listed.value().size(), 1u);
  EXPECT_TRUE(listed.value()[0].untrusted);
  EXPECT_EQ(listed.value()[0].problem,
            "is owned by uid 65534 (mode 0600), not by this user (uid 0)");
  // verify --remove and clear leave another user's file alone.
  Result<std::vector<CacheEntryInfo>> removed = cache.removeDamaged();
  ASSERT_TRUE(removed.ok()) << removed.error();
  ASSERT_EQ(removed.value().size(), 1u);
  EXPECT_FALSE(removed.value()[0].removed);
  Result<uint64_t> cleared = cache.clear();
  ASSERT_TRUE(cleared.ok()) << cleared.error();
  EXPECT_EQ(cleared.value(), 0u);
  EXPECT_TRUE(pathExists(cacheEntry()));
}

} // namespace
} // namespace mxf
