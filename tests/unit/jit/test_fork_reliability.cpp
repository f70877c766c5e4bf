//===- test_fork_reliability.cpp - fork() while another thread compiles ---===//
//
// Engines fork (multiprocessing, worker pools) while their threads may be
// compiling. Without support/fork_gate.h a child forked mid-compile could
// never compile again: the slot the compiling thread had claimed in the
// kernel table was never filled (the child waited on it forever), and a fork
// inside a link left lld's mutex locked (2 of 120 forks, issue 34). Here a
// thread compiles spec after spec while the main thread forks again and
// again; each child asks the shared table for every spec up to the one being
// compiled at the fork and compiles one more of its own. A child that does
// not finish within a minute is killed and the test fails.
//
//===----------------------------------------------------------------------===//

#include "compiler/compiler.h"
#include "compiler/jit/in_process_jit.h"
#include "tests/unit/jit/jit_test_support.h"
#include "tests/unit/jit/reliability_support.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace mxf {
namespace {

/// The child's exit status, or -1 when it ran past `limit` (then killed).
int waitWithLimit(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

TEST(JitReliability, AChildForkedWhileAThreadCompilesCanCompile) {
  std::vector<KernelSpec> specs;
  for (const std::string &text : testing::reliabilitySpecs())
    specs.push_back(testing::specOf(text));
  KernelTableOptions options;
  options.jit = inProcessJit(); // no disk cache: every spec is a real compile
  KernelTable table(std::move(options));

  std::atomic<size_t> compiling{0};
  std::atomic<bool> finished{false};
  std::atomic<int> failures{0};
  std::thread compiler([&] {
    for (size_t i = 0; i < specs.size(); ++i) {
      compiling = i;
      if (!table.get(specs[i]).ok())
        ++failures;
    }
    finished = true;
  });

  int forks = 0;
  while (!finished && forks < 16) {
    std::this_thread::sleep_for(std::chrono::milliseconds(7 + 11 * (forks % 5)));
    const size_t upTo = compiling.load();
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0) << "fork failed";
    if (pid == 0) {
      for (size_t i = 0; i <= upTo; ++i)
        if (!table.get(specs[i]).ok())
          ::_exit(2);
      const KernelSpec own = testing::specOf("rotate_quant:K=768,RS=32,M=4,scale=rceil");
      ::_exit(compileSpec(own, CompileOptions()).ok() ? 0 : 3);
    }
    const int status = waitWithLimit(pid, std::chrono::seconds(60));
    EXPECT_EQ(status, 0) << "fork " << forks << ", while spec " << upTo << " ("
                         << printSpec(specs[upTo]) << ") was compiling: "
                         << (status == -1 ? "the child hung (killed after 60 s)"
                                          : "the child failed");
    ++forks;
  }
  compiler.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GE(forks, 4) << "too few forks landed while the thread compiled";
  std::printf("[ forks    ] %d forks while a thread compiled %zu specs\n", forks, specs.size());
}

} // namespace
} // namespace mxf
