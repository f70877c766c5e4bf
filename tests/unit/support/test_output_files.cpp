//===- test_output_files.cpp - A command's outputs, all or none -----------===//
//
// support/output_files.h under the failures the CLI cannot easily stage: a
// full disk (the StagedFile write seam) in the middle of several outputs,
// temporary names another process holds, and the exact temporary pattern
// `cache clear` relies on. tests/lit/files-special.test covers the same
// rules through the commands (devices, FIFOs, symlinks, spellings).
//
//===----------------------------------------------------------------------===//

#include "support/file_io.h"
#include "support/output_files.h"
#include "tests/support/scratch_directory.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <cstring>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace mxf {
namespace {

class OutputFiles : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(scratch_.ok());
    dir_ = scratch_.path();
  }
  void TearDown() override { injectWriteFailureForTesting(-1, 0); }
  std::vector<std::string> names() const {
    std::vector<std::string> result;
    DIR *d = ::opendir(dir_.c_str());
    while (dirent *entry = ::readdir(d))
      if (std::string(entry->d_name) != "." && std::string(entry->d_name) != "..")
        result.push_back(entry->d_name);
    ::closedir(d);
    std::sort(result.begin(), result.end());
    return result;
  }
  std::vector<uint8_t> read(const std::string &path) const {
    Result<std::vector<uint8_t>> bytes = readFileBytes(path);
    EXPECT_TRUE(bytes.ok()) << bytes.error();
    return bytes.ok() ? bytes.value() : std::vector<uint8_t>{};
  }
  testing::ScratchDirectory scratch_{"mxforge-output-files"};
  std::string dir_;
};

TEST_F(OutputFiles, AFullDiskOnTheSecondOutputLeavesBothOldFiles) {
  const std::string a = dir_ + "/a.npy", b = dir_ + "/b.npy";
  const std::vector<uint8_t> big(4096, 7);
  // The control: without the fault both are replaced.
  ASSERT_TRUE(writeOutputFiles({{"output a", a, big}, {"output b", b, big}}).ok());
  EXPECT_EQ(read(a), big);
  EXPECT_EQ(read(b), big);
  ASSERT_TRUE(writeOutputFiles({{"output a", a, {1}}, {"output b", b, {2}}}).ok());

  // a is staged completely; b's write stops half-way with ENOSPC.
  injectWriteFailureForTesting(1, ENOSPC);
  Status written = writeOutputFiles({{"output a", a, big}, {"output b", b, big}});
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.message().find("output b"), std::string::npos) << written.message();
  EXPECT_NE(written.message().find("No space left on device"), std::string::npos)
      << written.message();
  EXPECT_EQ(read(a), std::vector<uint8_t>{1}); // not renamed: all or none
  EXPECT_EQ(read(b), std::vector<uint8_t>{2});
  EXPECT_EQ(names(), (std::vector<std::string>{"a.npy", "b.npy"})); // no temporary left
}

// The same on a real full file system: a 64 KiB tmpfs, when this machine lets
// the test mount one (root in a container usually can); skipped, saying why,
// otherwise. The seam above covers the logic either way.
TEST_F(OutputFiles, ARealFullFileSystemLeavesTheOldFile) {
  const std::string mountPoint = dir_ + "/small";
  ASSERT_EQ(::mkdir(mountPoint.c_str(), 0755), 0);
  if (::mount("tmpfs", mountPoint.c_str(), "tmpfs", 0, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (" << std::strerror(errno)
                 << "); the fault seam tests cover the full-disk logic";
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount(path.c_str()); }
  } unmount{mountPoint};
  const std::string old = mountPoint + "/k.hsaco";
  ASSERT_TRUE(writeFileAtomically(old, std::vector<uint8_t>(1000, 1)).ok());
  // Fill what is left.
  {
    std::vector<uint8_t> chunk(4096, 2);
    int fd = ::open((mountPoint + "/filler").c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    while (::write(fd, chunk.data(), chunk.size()) > 0) {
    }
    ::close(fd);
  }
  Status written = writeOutputFiles({{"output", old, std::vector<uint8_t>(32 * 1024, 3)}});
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.message().find("No space left on device"), std::string::npos)
      << written.message();
  EXPECT_EQ(read(old), std::vector<uint8_t>(1000, 1));
  DIR *d = ::opendir(mountPoint.c_str());
  ASSERT_NE(d, nullptr);
  std::vector<std::string> names;
  while (dirent *entry = ::readdir(d))
    if (entry->d_name[0] != '.' || std::string(entry->d_name).size() > 2)
      names.push_back(entry->d_name);
  ::closedir(d);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"filler", "k.hsaco"})); // no temporary
}

TEST_F(OutputFiles, AFailureAfterTheFirstStageLeavesNothingRenamed) {
  const std::string a = dir_ + "/a.npy";
  ASSERT_TRUE(writeFileAtomically(a, std::vector<uint8_t>{1}).ok());
  // b's directory does not exist: a is staged, b fails, a's temporary goes.
  Status written = writeOutputFiles(
      {{"output a", a, {9, 9}}, {"output b", dir_ + "/missing/b.npy", {9}}});
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.message().find("output b"), std::string::npos) << written.message();
  EXPECT_EQ(read(a), std::vector<uint8_t>{1});
  EXPECT_EQ(names(), std::vector<std::string>{"a.npy"});
}

TEST_F(OutputFiles, ATemporaryNameAnotherProcessHoldsIsSkipped) {
  Result<StagedFile> probe = StagedFile::stage(dir_ + "/x.bin", "a", 1);
  ASSERT_TRUE(probe.ok()) << probe.error();
  const std::string taken = probe.value().temporary();
  probe = Result<StagedFile>::failure("dropped");
  // The counter is the last field: occupy the next few names, as a leftover
  // of a process with the same pid would.
  const size_t dash = taken.rfind('-');
  const uint64_t counter = std::stoull(taken.substr(dash + 1));
  std::vector<std::string> occupied;
  for (uint64_t next = counter + 1; next <= counter + 3; ++next) {
    occupied.push_back(taken.substr(0, dash + 1) + std::to_string(next));
    int fd = ::open(occupied.back().c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    ASSERT_GE(fd, 0);
    ::close(fd);
  }
  ASSERT_TRUE(writeFileAtomically(dir_ + "/x.bin", std::vector<uint8_t>{5}).ok());
  EXPECT_EQ(read(dir_ + "/x.bin"), std::vector<uint8_t>{5});
  for (const std::string &path : occupied) { // left alone, not ours to delete
    struct stat info;
    EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
  }
}

TEST_F(OutputFiles, OnlyTheExactTemporaryPatternIsOurs) {
  EXPECT_TRUE(isAtomicWriteTemporary(".abc.mxfc.tmp-12-34-0"));
  EXPECT_TRUE(isAtomicWriteTemporary(".k.hsaco.tmp-1-2-3"));
  EXPECT_FALSE(isAtomicWriteTemporary(".vimrc.tmp-1"));
  EXPECT_FALSE(isAtomicWriteTemporary(".notes.tmp-1-2"));
  EXPECT_FALSE(isAtomicWriteTemporary(".notes.tmp-1-2-3x"));
  EXPECT_FALSE(isAtomicWriteTemporary(".tmp-1-2-3")); // no name before the marker
  EXPECT_FALSE(isAtomicWriteTemporary("abc.tmp-1-2-3")); // not hidden
  EXPECT_FALSE(isAtomicWriteTemporary(".a.tmp--2-3"));
}

TEST_F(OutputFiles, IdentityNotSpellingDecidesWhatIsOneFile) {
  const std::string a = dir_ + "/a.npy";
  ASSERT_TRUE(writeFileAtomically(a, std::vector<uint8_t>{1}).ok());
  Status same = checkDistinctOutputs({a, dir_ + "/./a.npy"}, {"output q", "output s"}, {});
  ASSERT_FALSE(same.ok());
  EXPECT_NE(same.message().find("are the same file"), std::string::npos) << same.message();
  // Files that do not exist yet: their directory's real path plus the name.
  Status fresh = checkDistinctOutputs({dir_ + "/n.npy", dir_ + "/../" +
                                           dir_.substr(dir_.rfind('/') + 1) + "/n.npy"},
                                      {"output q", "output s"}, {});
  EXPECT_FALSE(fresh.ok());
  Status input = checkDistinctOutputs({dir_ + "//a.npy"}, {"output q"}, {a});
  ASSERT_FALSE(input.ok());
  EXPECT_NE(input.message().find("is the input"), std::string::npos) << input.message();
  // The control: distinct files pass, and two outputs to /dev/null lose nothing.
  EXPECT_TRUE(checkDistinctOutputs({a, dir_ + "/b.npy"}, {"q", "s"}, {}).ok());
  EXPECT_TRUE(checkDistinctOutputs({"/dev/null", "/dev/null"}, {"q", "s"}, {}).ok());
}

TEST_F(OutputFiles, DevicesAreWrittenNotReplaced) {
  ASSERT_TRUE(writeOutputFiles({{"output", "/dev/null", {1, 2, 3}}}).ok());
  struct stat info;
  ASSERT_EQ(::stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
  Status directory = writeOutputFiles({{"output", dir_, {1}}});
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.message().find("is a directory"), std::string::npos)
      << directory.message();
}

} // namespace
} // namespace mxf
