//===- test_thread_reliability.cpp - 8 threads, one cache, real compiler --===//
//
// Each thread plays one engine process: its own KernelTable (a table would
// otherwise dedupe the work), all sharing one initially empty cache
// directory, all compiling the same 40 specs at the same moment, three
// rounds. Every thread must succeed and get byte-identical code objects,
// with no warning and no temporary left.
//
//===----------------------------------------------------------------------===//

#include "compiler/jit/in_process_jit.h"
#include "tests/unit/jit/jit_test_support.h"
#include "tests/unit/jit/reliability_support.h"

#include <condition_variable>
#include <mutex>

namespace mxf {
namespace {

/// Releases every waiting thread once `count` have arrived (std::barrier is
/// C++20; the project is C++17).
class StartLine {
public:
  explicit StartLine(int count) : waiting_(count) {}
  void arriveAndWait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--waiting_ == 0)
      released_.notify_all();
    else
      released_.wait(lock, [&] { return waiting_ == 0; });
  }

private:
  std::mutex mutex_;
  std::condition_variable released_;
  int waiting_;
};

TEST(JitReliability, EightThreadsCompileTheSameSpecsIntoOneCache) {
  testing::ScratchCacheDir dir;
  std::vector<KernelSpec> specs;
  for (const std::string &text : testing::reliabilitySpecs())
    specs.push_back(testing::specOf(text));
  constexpr int kThreads = 8;
  std::vector<std::vector<uint8_t>> reference; // round 1, thread 0
  std::mutex warningsMutex;
  std::vector<std::string> warnings;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::vector<std::vector<uint8_t>>> produced(kThreads);
    std::vector<KernelTableStats> stats(kThreads);
    StartLine start(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        KernelTableOptions options;
        options.jit = inProcessJit();
        options.cache = dir.location();
        options.warn = [&](const std::string &line) {
          std::lock_guard<std::mutex> lock(warningsMutex);
          warnings.push_back(line);
        };
        KernelTable table(std::move(options));
        start.arriveAndWait();
        for (Result<KernelHandle> &result : table.compileAll(specs, 1)) {
          ASSERT_TRUE(result.ok()) << result.error();
          produced[t].push_back(result.value()->object.hsaco);
        }
        stats[t] = table.stats();
      });
    for (std::thread &thread : threads)
      thread.join();
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    if (round == 0)
      reference = produced[0];
    for (int t = 0; t < kThreads; ++t) {
      ASSERT_EQ(produced[t].size(), specs.size());
      for (size_t i = 0; i < specs.size(); ++i)
        ASSERT_EQ(produced[t][i], reference[i])
            << "round " << round << ", thread " << t << ": " << printSpec(specs[i]);
      if (round > 0) {
        EXPECT_EQ(stats[t].cacheHits, specs.size()) << "rounds 2 and 3 hit the cache";
      }
    }
    testing::expectCleanCache(dir.path(), specs.size());
  }
  for (const std::string &warning : warnings)
    ADD_FAILURE() << "warning: " << warning;
}

} // namespace
} // namespace mxf
