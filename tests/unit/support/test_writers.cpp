//===- test_writers.cpp - One writer per folder, temporaries of the gone --===//
//
// The pieces of issue 34's "signals and second writers" that a process can
// test on itself: DirectoryLock (a second lock of a folder fails by name; the
// lock goes with its holder), removeStaleTemporaries (only our pattern, only
// our files, only of processes that are gone) and the signal-time registry
// of staged temporaries. The whole-process behaviour (SIGINT, SIGTERM and
// SIGKILL at random moments, 8 writers at once) is lit quantize/writers.test.
//
//===----------------------------------------------------------------------===//

#include "support/directory_lock.h"
#include "support/file_io.h"
#include "support/interrupt_cleanup.h"
#include "tests/support/scratch_directory.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace mxf {
namespace {

void touch(const std::string &path) { std::ofstream(path) << "x"; }
bool exists(const std::string &path) {
  struct stat info;
  return ::lstat(path.c_str(), &info) == 0;
}

TEST(DirectoryLock, ASecondWriterIsRefusedByNameUntilTheFirstIsGone) {
  testing::ScratchDirectory scratch;
  ASSERT_TRUE(scratch.ok());
  {
    Result<DirectoryLock> first = DirectoryLock::tryLock(scratch.path(), "test one");
    ASSERT_TRUE(first.ok()) << first.error();
    EXPECT_TRUE(first.value().held());
    Result<DirectoryLock> second = DirectoryLock::tryLock(scratch.path(), "test two");
    ASSERT_FALSE(second.ok());
    EXPECT_NE(second.error().find(scratch.path() + " is being written by another mxforge "
                                                   "process (test two)"),
              std::string::npos)
        << second.error();
  }
  EXPECT_TRUE(DirectoryLock::tryLock(scratch.path(), "after").ok()) << "the lock outlived its holder";
  Result<DirectoryLock> missing = DirectoryLock::tryLock(scratch.path() + "/none", "x");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("cannot open the folder"), std::string::npos);
}

TEST(StaleTemporaries, OnlyOursOfProcessesThatAreGoneAreRemoved) {
  testing::ScratchDirectory scratch;
  ASSERT_TRUE(scratch.ok());
  const pid_t gone = ::fork();
  ASSERT_GE(gone, 0);
  if (gone == 0)
    ::_exit(0);
  ::waitpid(gone, nullptr, 0); // reaped: its id names no process now
  const std::string dir = scratch.path();
  const std::string stale = ".model.safetensors.tmp-" + std::to_string(gone) + "-1-0";
  const std::string live = ".model.safetensors.tmp-" + std::to_string(::getpid()) + "-1-0";
  const std::string foreign = ".notes.tmp-" + std::to_string(gone);
  const std::string visible = "model.safetensors.tmp-" + std::to_string(gone) + "-1-0";
  for (const std::string &name : {stale, live, foreign, visible})
    touch(dir + "/" + name);
  const std::string staleDirectory = ".dir.tmp-" + std::to_string(gone) + "-1-1";
  ASSERT_EQ(::mkdir((dir + "/" + staleDirectory).c_str(), 0700), 0);

  const std::vector<std::string> removed = removeStaleTemporaries(dir);
  EXPECT_EQ(removed, std::vector<std::string>{stale});
  EXPECT_FALSE(exists(dir + "/" + stale));
  for (const std::string &name : {live, foreign, visible, staleDirectory})
    EXPECT_TRUE(exists(dir + "/" + name)) << name << " is not a leftover of ours";
}

TEST(InterruptCleanup, ASignalRemovesTheStagedTemporariesAndStillEndsTheProcess) {
  testing::ScratchDirectory scratch;
  ASSERT_TRUE(scratch.ok());
  const std::string destination = scratch.path() + "/out.bin";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    removeTemporariesOnSignals();
    Result<StagedFile> staged = StagedFile::stage(destination, "abc", 3);
    if (!staged.ok())
      ::_exit(2);
    ::kill(::getpid(), SIGTERM);
    ::_exit(3); // not reached: the signal ends the process
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_FALSE(exists(destination));
  EXPECT_TRUE(removeStaleTemporaries(scratch.path()).empty()) << "a temporary was left";
}

TEST(InterruptCleanup, TheRegistryRefusesWhatItCannotHoldAndReusesSlots) {
  EXPECT_EQ(registerTemporary(std::string(5000, 'a')), -1);
  std::vector<int> registrations;
  for (int i = 0; i < kMaxRegisteredTemporaries; ++i) {
    const int r = registerTemporary("/nonexistent/t" + std::to_string(i));
    if (r < 0)
      break; // other tests' temporaries may hold slots
    registrations.push_back(r);
  }
  EXPECT_EQ(registerTemporary("/nonexistent/one-too-many"), -1);
  for (int r : registrations)
    unregisterTemporary(r);
  const int again = registerTemporary("/nonexistent/again");
  EXPECT_GE(again, 0);
  unregisterTemporary(again);
}

} // namespace
} // namespace mxf
