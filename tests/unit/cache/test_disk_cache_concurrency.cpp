//===- test_disk_cache_concurrency.cpp - Threads and processes, no locks --===//
//
// Many writers and readers of the same keys in one directory: every load is
// a Hit with the right bytes or a Miss, never Rejected (no torn entries), no
// warning is printed and no temporary is left behind.
//
//===----------------------------------------------------------------------===//

#include "runtime/cache/disk_cache.h"

#include "tests/unit/cache/cache_test_support.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <sys/wait.h>
#include <thread>

namespace mxf {
namespace {

using namespace cachetest;

constexpr int kWorkers = 8;
constexpr int kKeys = 20;
constexpr int kRounds = 6;

/// The same objects in every worker (and process): byte-identical stores.
std::vector<CodeObject> sharedObjects(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<CodeObject> objects;
  for (int i = 0; i < kKeys; ++i)
    objects.push_back(fakeCodeObject(i, rng, 2000 + 500 * i));
  return objects;
}

struct WorkerTally {
  int hits = 0, misses = 0, rejected = 0, wrongObjects = 0, failedStores = 0;
};

/// Loads every key in a random order, storing on a miss, `kRounds` times.
WorkerTally work(DiskCache &cache, const std::vector<CodeObject> &objects, uint64_t seed) {
  std::mt19937_64 rng(seed);
  WorkerTally tally;
  std::vector<int> order(objects.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = int(i);
  for (int round = 0; round < kRounds; ++round) {
    std::shuffle(order.begin(), order.end(), rng);
    for (int index : order) {
      const CodeObject &object = objects[index];
      CacheLoad load = cache.load(fakeKey(object), object.spec);
      switch (load.outcome) {
      case CacheLoadOutcome::Hit:
        ++tally.hits;
        tally.wrongObjects += !load.object || !sameObject(*load.object, object);
        break;
      case CacheLoadOutcome::Miss:
        ++tally.misses;
        break;
      case CacheLoadOutcome::Rejected:
        ++tally.rejected;
        break;
      }
      // Store on a miss, and sometimes on a hit too, so that renames keep
      // landing on entries other workers are reading.
      if (load.outcome != CacheLoadOutcome::Hit || rng() % 3 == 0)
        tally.failedStores += !cache.store(fakeKey(object), object).ok();
    }
  }
  return tally;
}

/// What is left: exactly one verified entry per key, nothing else.
void expectCompleteDirectory(const std::string &dir, const std::vector<CodeObject> &objects) {
  std::vector<std::string> expected;
  for (const CodeObject &object : objects)
    expected.push_back(fakeKey(object).hex() + ".mxfc");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(namesIn(dir), expected) << "stray files (temporaries?) were left";
  WarningLog log;
  DiskCache cache(dir, log.handler());
  for (const CodeObject &object : objects) {
    CacheLoad load = cache.load(fakeKey(object), object.spec);
    ASSERT_EQ(load.outcome, CacheLoadOutcome::Hit) << load.problem;
    EXPECT_TRUE(sameObject(*load.object, object));
  }
  Result<CacheStats> stats = cache.stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats.value().temporaries, 0u);
  EXPECT_EQ(log.count(), 0u);
}

class DiskCacheConcurrency : public TempDirTest {};

TEST_F(DiskCacheConcurrency, ThreadsShareOneDiskCache) {
  const uint64_t seed = testing::testSeed("DiskCacheConcurrency.ThreadsShareOneDiskCache");
  const std::vector<CodeObject> objects = sharedObjects(seed);
  const std::string dir = root_ + "/cache";
  WarningLog log;
  DiskCache cache(dir, log.handler());
  std::vector<WorkerTally> tallies(kWorkers);
  std::vector<std::thread> threads;
  for (int t = 0; t < kWorkers; ++t)
    threads.emplace_back([&, t] { tallies[t] = work(cache, objects, seed + 1 + t); });
  for (std::thread &thread : threads)
    thread.join();
  int hits = 0;
  for (const WorkerTally &tally : tallies) {
    EXPECT_EQ(tally.rejected, 0);
    EXPECT_EQ(tally.wrongObjects, 0);
    EXPECT_EQ(tally.failedStores, 0);
    EXPECT_EQ(tally.hits + tally.misses, kKeys * kRounds);
    hits += tally.hits;
  }
  EXPECT_GT(hits, 0);
  EXPECT_EQ(log.count(), 0u);
  EXPECT_TRUE(cache.writable());
  expectCompleteDirectory(dir, objects);
}

TEST_F(DiskCacheConcurrency, ThreadsWithADiskCacheEach) {
  const uint64_t seed = testing::testSeed("DiskCacheConcurrency.ThreadsWithADiskCacheEach");
  const std::vector<CodeObject> objects = sharedObjects(seed);
  const std::string dir = root_ + "/cache";
  std::atomic<int> warnings{0};
  std::vector<WorkerTally> tallies(kWorkers);
  std::vector<std::thread> threads;
  for (int t = 0; t < kWorkers; ++t)
    threads.emplace_back([&, t] {
      DiskCache cache(dir, [&](const std::string &) { ++warnings; });
      tallies[t] = work(cache, objects, seed + 1 + t);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const WorkerTally &tally : tallies) {
    EXPECT_EQ(tally.rejected, 0);
    EXPECT_EQ(tally.wrongObjects, 0);
    EXPECT_EQ(tally.failedStores, 0);
  }
  EXPECT_EQ(warnings.load(), 0);
  expectCompleteDirectory(dir, objects);
}

TEST_F(DiskCacheConcurrency, ProcessesShareOneDirectory) {
  const uint64_t seed = testing::testSeed("DiskCacheConcurrency.ProcessesShareOneDirectory");
  const std::vector<CodeObject> objects = sharedObjects(seed);
  const std::string dir = root_ + "/cache";
  // Exit codes of a child: 0 fine; otherwise bits saying what went wrong.
  enum : int { kRejected = 1, kWrongObject = 2, kFailedStore = 4, kWarned = 8, kNoWork = 16 };
  std::vector<pid_t> children;
  for (int p = 0; p < kWorkers; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0) << "fork failed";
    if (pid == 0) {
      // The child: no gtest assertions, only an exit code; _exit skips the
      // parent's atexit handlers and gtest's own teardown.
      std::atomic<int> warnings{0};
      DiskCache cache(dir, [&](const std::string &) { ++warnings; });
      WorkerTally tally = work(cache, objects, seed + 100 + p);
      int code = (tally.rejected ? kRejected : 0) | (tally.wrongObjects ? kWrongObject : 0) |
                 (tally.failedStores ? kFailedStore : 0) | (warnings.load() ? kWarned : 0) |
                 (tally.hits + tally.misses != kKeys * kRounds ? kNoWork : 0);
      ::_exit(code);
    }
    children.push_back(pid);
  }
  for (size_t p = 0; p < children.size(); ++p) {
    int status = 0;
    ASSERT_EQ(::waitpid(children[p], &status, 0), children[p]);
    ASSERT_TRUE(WIFEXITED(status)) << "child " << p << " died (status " << status << ")";
    int code = WEXITSTATUS(status);
    EXPECT_EQ(code, 0) << "child " << p << ":" << (code & kRejected ? " rejected loads" : "")
                       << (code & kWrongObject ? " wrong objects" : "")
                       << (code & kFailedStore ? " failed stores" : "")
                       << (code & kWarned ? " warnings" : "") << (code & kNoWork ? " lost loads" : "");
  }
  expectCompleteDirectory(dir, objects);
}

// `cache clear` running again and again while 8 processes load and store the
// same keys (issue 17, finding 6): clear removes entries under them, so they
// miss and store again, but no store may fail (clear leaves in-flight
// temporaries alone), no cache may switch itself off, and no load may see a
// torn entry. The interleaving is random: the seed is printed.
TEST_F(DiskCacheConcurrency, ClearDuringStoresDisablesNothingAndTearsNothing) {
  const uint64_t seed =
      testing::testSeed("DiskCacheConcurrency.ClearDuringStoresDisablesNothingAndTearsNothing");
  const std::vector<CodeObject> objects = sharedObjects(seed);
  const std::string dir = root_ + "/cache";
  enum : int { kRejected = 1, kWrongObject = 2, kFailedStore = 4, kDisabled = 8, kNoWork = 16 };
  std::vector<pid_t> children;
  for (int p = 0; p < kWorkers; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0) << "fork failed";
    if (pid == 0) {
      DiskCache cache(dir, [](const std::string &) {});
      WorkerTally tally = work(cache, objects, seed + 200 + p);
      int code = (tally.rejected ? kRejected : 0) | (tally.wrongObjects ? kWrongObject : 0) |
                 (tally.failedStores ? kFailedStore : 0) | (cache.writable() ? 0 : kDisabled) |
                 (tally.hits + tally.misses != kKeys * kRounds ? kNoWork : 0);
      ::_exit(code);
    }
    children.push_back(pid);
  }
  // The clearer: this process, at random short intervals, until every worker is done.
  std::mt19937_64 rng(seed);
  DiskCache clearer(dir, [](const std::string &) {});
  size_t clears = 0, removed = 0, running = children.size();
  std::vector<int> statuses(children.size(), 0);
  std::vector<bool> finished(children.size(), false);
  while (running) {
    Result<uint64_t> cleared = clearer.clear();
    ASSERT_TRUE(cleared.ok()) << cleared.error();
    ++clears;
    removed += cleared.value();
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 2000));
    for (size_t p = 0; p < children.size(); ++p)
      if (!finished[p] && ::waitpid(children[p], &statuses[p], WNOHANG) == children[p]) {
        finished[p] = true;
        --running;
      }
  }
  std::printf("[ sampled  ] %zu clears removed %zu files while 8 processes stored\n", clears,
              removed);
  EXPECT_GT(removed, 0u) << "clear never overlapped the stores: the test proved nothing";
  for (size_t p = 0; p < children.size(); ++p) {
    ASSERT_TRUE(WIFEXITED(statuses[p])) << "child " << p << " died (status " << statuses[p] << ")";
    int code = WEXITSTATUS(statuses[p]);
    EXPECT_EQ(code, 0) << "child " << p << ":" << (code & kRejected ? " torn or rejected loads" : "")
                       << (code & kWrongObject ? " wrong objects" : "")
                       << (code & kFailedStore ? " failed stores" : "")
                       << (code & kDisabled ? " a disabled cache" : "")
                       << (code & kNoWork ? " lost loads" : "");
  }
  // No temporary left behind by anyone.
  Result<CacheStats> stats = clearer.stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats.value().temporaries, 0u);
}

} // namespace
} // namespace mxf
