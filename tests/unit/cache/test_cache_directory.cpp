//===- test_cache_directory.cpp - list, stats, clear, removeDamaged -------===//

#include "runtime/cache/disk_cache.h"

#include "tests/unit/cache/cache_test_support.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <sys/time.h>
#include <unistd.h>

#include <ctime>

namespace mxf {
namespace {

using namespace cachetest;

class CacheDirectory : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    rng_.seed(testing::testSeed(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    dir_ = root_ + "/cache";
  }

  /// Three good entries, a damaged one, a directory where an entry should
  /// be, a temporary left by a killed store an hour ago and one in flight,
  /// and foreign files: a README, a directory, and names that only look like
  /// ours (issue 17: `verify --remove` and `clear` used to delete them).
  void populate(DiskCache &cache) {
    for (int i = 0; i < 3; ++i) {
      good_.push_back(fakeCodeObject(i, rng_, 1000 + 100 * i));
      ASSERT_TRUE(cache.store(fakeKey(good_.back()), good_.back()).ok());
    }
    garbageName_ = fakeKey(fakeCodeObject(50, rng_)).hex() + ".mxfc";
    writeText(dir_ + "/" + garbageName_, "garbage");
    writeText(dir_ + "/notakey.mxfc", "MXFCACHE");
    occupiedName_ = fakeKey(fakeCodeObject(51, rng_)).hex() + ".mxfc";
    ASSERT_TRUE(createDirectories(dir_ + "/" + occupiedName_ + "/inside").ok());
    oldTemporary_ = "." + garbageName_ + ".tmp-1-2-3";
    writeText(dir_ + "/" + oldTemporary_, "half written");
    const struct timeval anHourAgo[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};
    ASSERT_EQ(::utimes((dir_ + "/" + oldTemporary_).c_str(), anHourAgo), 0);
    youngTemporary_ = "." + fakeKey(good_[0]).hex() +
                      ".mxfc.tmp-4-5-6";
    writeText(dir_ + "/" + youngTemporary_, "a store in flight");
    writeText(dir_ + "/README", "not ours");
    ASSERT_TRUE(createDirectories(dir_ + "/subdir").ok());
    for (const char *lookalike : {"notes.mxfc", ".vimrc.tmp-1", ".notes.mxfc.tmp-1-2-3"})
      writeText(dir_ + "/" + lookalike, "a user's");
    ASSERT_TRUE(createDirectories(dir_ + "/e.mxfc").ok());
  }
  /// Foreign names populate() creates: never listed as entries, never removed.
  std::vector<std::string> foreignNames() const {
    std::vector<std::string> names = {"README", "subdir", "notakey.mxfc", "notes.mxfc",
                                      ".vimrc.tmp-1", ".notes.mxfc.tmp-1-2-3", "e.mxfc"};
    std::sort(names.begin(), names.end());
    return names;
  }

  std::mt19937_64 rng_;
  std::string dir_;
  std::vector<CodeObject> good_;
  std::string garbageName_, occupiedName_, oldTemporary_, youngTemporary_;
};

TEST_F(CacheDirectory, AMissingDirectoryIsEmpty) {
  DiskCache cache(dir_);
  Result<std::vector<CacheEntryInfo>> entries = cache.list(true);
  ASSERT_TRUE(entries.ok()) << entries.error();
  EXPECT_TRUE(entries.value().empty());
  Result<CacheStats> stats = cache.stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats.value().entries + stats.value().totalBytes + stats.value().temporaries +
                stats.value().foreignFiles,
            0u);
  Result<uint64_t> cleared = cache.clear();
  ASSERT_TRUE(cleared.ok());
  EXPECT_EQ(cleared.value(), 0u);
  Result<std::vector<CacheEntryInfo>> damaged = cache.removeDamaged();
  ASSERT_TRUE(damaged.ok());
  EXPECT_TRUE(damaged.value().empty());
  EXPECT_FALSE(pathExists(dir_));
}

TEST_F(CacheDirectory, AnUnreadableDirectoryIsAnError) {
  writeText(root_ + "/file", "x");
  DiskCache cache(root_ + "/file/cache");
  Result<std::vector<CacheEntryInfo>> entries = cache.list(false);
  ASSERT_FALSE(entries.ok());
  EXPECT_EQ(entries.error(),
            "cannot read the cache directory " + root_ + "/file/cache: Not a directory");
  EXPECT_EQ(cache.stats().error(), entries.error());
  EXPECT_EQ(cache.clear().error(), entries.error());
  EXPECT_EQ(cache.removeDamaged().error(), entries.error());
}

TEST_F(CacheDirectory, StatsCountEachKindOfFile) {
  DiskCache cache(dir_);
  populate(cache);
  Result<CacheStats> stats = cache.stats();
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(stats.value().entries, 5u); // 3 good, 1 damaged, 1 directory
  uint64_t bytes = std::string("garbage").size();
  for (const CodeObject &object : good_)
    bytes += readBytes(cache.entryPath(fakeKey(object))).size();
  EXPECT_EQ(stats.value().totalBytes, bytes);
  EXPECT_EQ(stats.value().temporaries, 2u);
  EXPECT_EQ(stats.value().foreignFiles, foreignNames().size());
}

TEST_F(CacheDirectory, ListShowsEntriesSortedAndVerifiesOnRequest) {
  DiskCache cache(dir_);
  const int64_t before = int64_t(std::time(nullptr));
  populate(cache);
  for (bool verify : {false, true}) {
    SCOPED_TRACE(verify ? "verified" : "not verified");
    Result<std::vector<CacheEntryInfo>> listed = cache.list(verify);
    ASSERT_TRUE(listed.ok()) << listed.error();
    const std::vector<CacheEntryInfo> &entries = listed.value();
    ASSERT_EQ(entries.size(), 5u);
    for (size_t i = 1; i < entries.size(); ++i)
      EXPECT_LT(entries[i - 1].fileName, entries[i].fileName);
    int goodSeen = 0;
    for (const CacheEntryInfo &info : entries) {
      const CodeObject *object = nullptr;
      for (const CodeObject &candidate : good_)
        if (info.fileName == fakeKey(candidate).hex() + ".mxfc")
          object = &candidate;
      if (object) {
        ++goodSeen;
        EXPECT_EQ(info.spec, object->spec);
        EXPECT_EQ(info.kernel, object->kernel.name);
        EXPECT_EQ(info.bytes, readBytes(dir_ + "/" + info.fileName).size());
        EXPECT_GE(info.modifiedUnixSeconds, before - 5);
        EXPECT_TRUE(info.problem.empty()) << info.problem;
        continue;
      }
      EXPECT_TRUE(info.spec.empty());
      ASSERT_TRUE(info.fileName == garbageName_ || info.fileName == occupiedName_)
          << info.fileName << " is listed as an entry";
      std::string expected = info.fileName == garbageName_ ? "not an mxforge cache entry (bad magic)"
                                                           : "a directory, not an entry file";
      EXPECT_EQ(info.problem, verify ? expected : "") << info.fileName;
    }
    EXPECT_EQ(goodSeen, 3);
  }
}

TEST_F(CacheDirectory, RemoveDamagedRemovesWhatItCanAndReportsAll) {
  WarningLog log;
  DiskCache cache(dir_, log.handler());
  populate(cache);
  // An empty directory in an entry's place can go; the non-empty one stays.
  std::string emptyName = fakeKey(fakeCodeObject(52, rng_)).hex() + ".mxfc";
  ASSERT_TRUE(createDirectories(dir_ + "/" + emptyName).ok());

  Result<std::vector<CacheEntryInfo>> damaged = cache.removeDamaged();
  ASSERT_TRUE(damaged.ok()) << damaged.error();
  std::vector<std::string> removed, kept;
  for (const CacheEntryInfo &info : damaged.value()) {
    EXPECT_FALSE(info.problem.empty());
    (info.removed ? removed : kept).push_back(info.fileName);
  }
  std::vector<std::string> expectedRemoved = {garbageName_, emptyName};
  std::sort(expectedRemoved.begin(), expectedRemoved.end());
  EXPECT_EQ(removed, expectedRemoved);
  EXPECT_EQ(kept, std::vector<std::string>{occupiedName_});

  Result<std::vector<CacheEntryInfo>> after = cache.list(true);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after.value().size(), 4u);
  for (const CacheEntryInfo &info : after.value())
    EXPECT_EQ(info.problem.empty(), info.fileName != occupiedName_) << info.fileName;
  for (const CodeObject &object : good_)
    EXPECT_EQ(cache.load(fakeKey(object), object.spec).outcome, CacheLoadOutcome::Hit);
  // Temporaries and foreign files are not entries: left alone.
  EXPECT_TRUE(pathExists(dir_ + "/" + oldTemporary_));
  for (const std::string &name : foreignNames())
    EXPECT_TRUE(pathExists(dir_ + "/" + name)) << name;
  EXPECT_EQ(log.count(), 0u);
}

// An entry name that is a symlink is reported, not followed, and `clear`
// removes the link, never what it points to.
TEST_F(CacheDirectory, EntrySymlinksAreNotFollowed) {
  DiskCache cache(dir_);
  populate(cache);
  const std::string linkName = fakeKey(fakeCodeObject(60, rng_)).hex() + ".mxfc";
  ASSERT_EQ(::symlink((dir_ + "/" + fakeKey(good_[1]).hex() + ".mxfc").c_str(),
                      (dir_ + "/" + linkName).c_str()),
            0);
  Result<std::vector<CacheEntryInfo>> listed = cache.list(true);
  ASSERT_TRUE(listed.ok()) << listed.error();
  bool seen = false;
  for (const CacheEntryInfo &info : listed.value())
    if (info.fileName == linkName) {
      seen = true;
      EXPECT_EQ(info.problem, "a symlink, not an entry file");
      EXPECT_EQ(info.bytes, 0u);
      EXPECT_TRUE(info.spec.empty()); // not read through the link
    }
  EXPECT_TRUE(seen);
  Result<CacheStats> stats = cache.stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats.value().entries, 6u);
  ASSERT_TRUE(cache.clear().ok());
  EXPECT_FALSE(pathExists(dir_ + "/" + linkName));
  EXPECT_TRUE(pathExists(dir_ + "/README"));
}

TEST_F(CacheDirectory, ClearRemovesEntriesAndTemporariesOnly) {
  DiskCache cache(dir_);
  populate(cache);
  Result<uint64_t> cleared = cache.clear();
  ASSERT_TRUE(cleared.ok()) << cleared.error();
  EXPECT_EQ(cleared.value(), 5u); // 3 good, 1 damaged, the hour-old temporary
  // The temporary of a store in flight stays, and so does everything foreign.
  std::vector<std::string> left = foreignNames();
  left.push_back(occupiedName_);
  left.push_back(youngTemporary_);
  std::sort(left.begin(), left.end());
  EXPECT_EQ(namesIn(dir_), left);
  EXPECT_TRUE(pathExists(dir_ + "/" + occupiedName_ + "/inside"));
  for (const CodeObject &object : good_)
    EXPECT_EQ(cache.load(fakeKey(object), object.spec).outcome, CacheLoadOutcome::Miss);
  Result<uint64_t> again = cache.clear();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value(), 0u);
}

} // namespace
} // namespace mxf
