//===- test_file_io.cpp - readFileBytes, writeFileAtomically --------------===//

#include "support/file_io.h"
#include "tests/support/scratch_directory.h"

#include <gtest/gtest.h>

#include <chrono>
#include <dirent.h>
#include <fcntl.h>
#include <future>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace mxf {
namespace {

class FileIo : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(scratch_.ok());
    dir_ = scratch_.path();
  }
  std::vector<std::string> names() const {
    std::vector<std::string> result;
    DIR *d = ::opendir(dir_.c_str());
    while (dirent *entry = ::readdir(d))
      if (std::string(entry->d_name) != "." && std::string(entry->d_name) != "..")
        result.push_back(entry->d_name);
    ::closedir(d);
    return result;
  }
  testing::ScratchDirectory scratch_{"mxforge-file-io"};
  std::string dir_;
};

TEST_F(FileIo, AtomicWriteReplacesAndLeavesNoTemporary) {
  std::string path = dir_ + "/entry.bin";
  ASSERT_TRUE(writeFileAtomically(path, std::vector<uint8_t>{1, 2, 3}).ok());
  ASSERT_TRUE(writeFileAtomically(path, std::vector<uint8_t>{4, 5}).ok());
  Result<std::vector<uint8_t>> back = readFileBytes(path);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value(), (std::vector<uint8_t>{4, 5}));
  EXPECT_EQ(names(), std::vector<std::string>{"entry.bin"});
}

TEST_F(FileIo, FailedWriteKeepsTheOldFileAndNoTemporary) {
  // A directory in the destination's place: rename(2) refuses with EISDIR.
  std::string path = dir_ + "/target";
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  Status status = writeFileAtomically(path, std::vector<uint8_t>{9});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("cannot rename the temporary file into place"),
            std::string::npos)
      << status.message();
  EXPECT_EQ(names(), std::vector<std::string>{"target"});
}

TEST_F(FileIo, MissingDirectoryIsAClearError) {
  Status status = writeFileAtomically(dir_ + "/no/such/dir/f", std::vector<uint8_t>{1});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("cannot create a temporary file in"), std::string::npos);
}

TEST_F(FileIo, ReadRejectsMissingDirectoryAndOversized) {
  EXPECT_NE(readFileBytes(dir_ + "/missing").error().find("cannot open"), std::string::npos);
  EXPECT_EQ(readFileBytes(dir_).error(), dir_ + ": not a regular file");
  ASSERT_TRUE(writeFileAtomically(dir_ + "/big", std::vector<uint8_t>(100, 7)).ok());
  EXPECT_EQ(readFileBytes(dir_ + "/big", 99).error(),
            dir_ + "/big: 100 bytes, more than the limit of 99");
}

TEST_F(FileIo, AFifoIsRefusedBeforeItIsOpened) {
  // Issue 34: opening a FIFO for reading waits for a writer; every reader
  // (whole files, safetensors' mapping) asks stat first. Run on a thread so
  // that a regression fails here instead of hanging the suite.
  const std::string fifo = dir_ + "/model.safetensors";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto opened = std::async(std::launch::async, [&] { return ReadOnlyFile::open(fifo).status(); });
  if (opened.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK); // lets open(2) return
    if (writer >= 0)
      ::close(writer);
    opened.wait();
    FAIL() << "ReadOnlyFile::open blocked on a FIFO";
  }
  EXPECT_EQ(opened.get().message(), fifo + ": not a regular file");
  EXPECT_EQ(readFileBytes(fifo).error(), fifo + ": not a regular file");
  Result<ReadOnlyFile> devNull = ReadOnlyFile::open("/dev/null");
  EXPECT_EQ(devNull.error(), "/dev/null: not a regular file");
}

TEST_F(FileIo, ConcurrentWritersOfOnePathNeverTearIt) {
  std::string path = dir_ + "/shared";
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t)
    writers.emplace_back([&, t] {
      std::vector<uint8_t> bytes(4096, uint8_t(t));
      for (int round = 0; round < 25; ++round)
        ASSERT_TRUE(writeFileAtomically(path, bytes).ok());
    });
  std::thread reader([&] {
    for (int i = 0; i < 200; ++i) {
      Result<std::vector<uint8_t>> bytes = readFileBytes(path);
      if (!bytes.ok())
        continue; // not written yet
      ASSERT_EQ(bytes.value().size(), 4096u);
      for (uint8_t byte : bytes.value())
        ASSERT_EQ(byte, bytes.value()[0]) << "a torn file";
    }
  });
  for (std::thread &writer : writers)
    writer.join();
  reader.join();
  EXPECT_EQ(names(), std::vector<std::string>{"shared"});
}

TEST_F(FileIo, CreateDirectoriesMakesParentsAndRejectsFiles) {
  ASSERT_TRUE(createDirectories(dir_ + "/a/b/c").ok());
  struct stat info;
  ASSERT_EQ(::stat((dir_ + "/a/b/c").c_str(), &info), 0);
  EXPECT_TRUE(S_ISDIR(info.st_mode));
  ASSERT_TRUE(writeFileAtomically(dir_ + "/file", std::vector<uint8_t>{1}).ok());
  EXPECT_EQ(createDirectories(dir_ + "/file").message(),
            dir_ + "/file: exists and is not a directory");
  EXPECT_FALSE(createDirectories(dir_ + "/file/sub").ok());
}

TEST(FileIoNames, TemporaryNamesAreRecognized) {
  EXPECT_TRUE(isAtomicWriteTemporary(".abc.mxfc.tmp-12-34-0"));
  EXPECT_FALSE(isAtomicWriteTemporary("abc.mxfc"));
  EXPECT_FALSE(isAtomicWriteTemporary(".hidden"));
}

} // namespace
} // namespace mxf
