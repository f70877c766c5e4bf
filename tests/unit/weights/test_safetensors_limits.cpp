//===- test_safetensors_limits.cpp - Headers at the size limit, FIFOs, names -===//
//
// Issue 34: a reader must neither hang nor go quadratic. A header at the
// 100 MB limit parses in seconds (the old reader compared every key with
// every earlier one: 200,000 keys took 150 s, this header would take hours);
// bench/safetensors_parse_bench times it precisely, this test only bounds
// it loosely. A FIFO named *.safetensors is refused, not waited on.
//
//===----------------------------------------------------------------------===//

#include "weights/safetensors.h"

#include "safetensors_test_files.h"
#include "tests/support/scratch_directory.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fcntl.h>
#include <fstream>
#include <future>
#include <sys/stat.h>
#include <unistd.h>

namespace mxf::weights {
namespace {

using testing::ScratchDirectory;

/// Names of one length that differ only in their last digits, so that any
/// comparison of two names reads all of them: the worst case for a reader
/// that compares keys pairwise.
std::string longName(size_t index, size_t length) {
  std::string digits = std::to_string(index);
  return std::string(length - digits.size(), 'w') + digits;
}

TEST(SafetensorsLimits, HeaderAtTheHundredMegabyteLimitParsesInSeconds) {
  constexpr size_t kNameLength = 940;
  // Each entry: "name":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}, plus
  // a comma (empty tensors keep the file to its header).
  const size_t entryBytes = kNameLength + 2 + 53;
  const size_t count = (kMaxHeaderBytes - 16) / entryBytes;
  std::vector<PlannedTensor> tensors;
  tensors.reserve(count);
  for (size_t i = 0; i < count; ++i)
    tensors.push_back({longName(i, kNameLength), "U8", {0}});
  Result<SafetensorsPlan> plan = planSafetensors(tensors, {});
  ASSERT_TRUE(plan.ok()) << plan.error();
  const uint64_t headerBytes = plan.value().header.size() - 8;
  ASSERT_LE(headerBytes, kMaxHeaderBytes);
  ASSERT_GT(headerBytes, kMaxHeaderBytes * 99 / 100) << "not at the limit";

  ScratchDirectory dir("mxforge-safetensors-limits");
  ASSERT_FALSE(dir.path().empty());
  const std::string path = dir.path() + "/limit.safetensors";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(plan.value().header.data(), std::streamsize(plan.value().header.size()));
    ASSERT_TRUE(out.good());
  }
  plan = Result<SafetensorsPlan>::failure("released"); // 100 MB less to hold

  const auto start = std::chrono::steady_clock::now();
  Result<SafetensorsFile> file = SafetensorsFile::open(path);
  ASSERT_TRUE(file.ok()) << file.error();
  ASSERT_EQ(file.value().tensors().size(), count);
  // Every name looked up once, as quantize's index check does.
  for (size_t i = 0; i < count; ++i)
    ASSERT_NE(file.value().find(tensors[i].name), nullptr) << i;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Linear: about a second on a loaded 2-core machine. The bound is loose on
  // purpose (sanitizer builds, busy CI); quadratic parsing takes hours here.
  EXPECT_LT(seconds, 60.0) << count << " keys, " << headerBytes << " header bytes";
}

TEST(SafetensorsLimits, AFifoIsRefusedNotWaitedOn) {
  ScratchDirectory dir("mxforge-safetensors-limits");
  ASSERT_FALSE(dir.path().empty());
  const std::string fifo = dir.path() + "/model.safetensors";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto opened = std::async(std::launch::async, [&] { return SafetensorsFile::open(fifo); });
  if (opened.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    // Let the blocked open(2) return (it waits for a writer) so that the
    // test can end, then fail.
    int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0)
      ::close(writer);
    opened.wait();
    FAIL() << "SafetensorsFile::open blocked on a FIFO";
  }
  Result<SafetensorsFile> file = opened.get();
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error(), fifo + ": not a regular file");
}

TEST(SafetensorsLimits, ADirectoryIsRefused) {
  ScratchDirectory dir("mxforge-safetensors-limits");
  ASSERT_FALSE(dir.path().empty());
  Result<SafetensorsFile> file = SafetensorsFile::open(dir.path());
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error(), dir.path() + ": not a regular file");
}

TEST(SafetensorsLimits, ANameThatIsNotUtf8IsAnErrorNamingItEscaped) {
  const std::string header = "{\"ok\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
                             "\"bad\xff\x7fname\":{\"dtype\":\"U8\",\"shape\":[1],"
                             "\"data_offsets\":[1,2]}}";
  std::vector<uint8_t> bytes = testing::rawFile(header, 2);
  Result<SafetensorsFile> file = SafetensorsFile::fromBytes(bytes.data(), bytes.size(), "t.st");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error(), "t.st: tensor 'bad\\xff\\x7fname': the name is not UTF-8");
}

TEST(SafetensorsLimits, OverlongAndSurrogateUtf8AreNotUtf8) {
  for (const char *name : {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
    const std::string header = std::string("{\"") + name +
                               "\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}";
    std::vector<uint8_t> bytes = testing::rawFile(header, 1);
    EXPECT_FALSE(SafetensorsFile::fromBytes(bytes.data(), bytes.size(), "t.st").ok());
  }
  // Real UTF-8 (two, three and four bytes) is a name like any other.
  const std::string header = "{\"caf\xc3\xa9.\xe2\x82\xac.\xf0\x9f\x98\x80\":{\"dtype\":\"U8\","
                             "\"shape\":[1],\"data_offsets\":[0,1]}}";
  std::vector<uint8_t> bytes = testing::rawFile(header, 1);
  Result<SafetensorsFile> file = SafetensorsFile::fromBytes(bytes.data(), bytes.size(), "t.st");
  EXPECT_TRUE(file.ok()) << file.error();
}

TEST(SafetensorsLimits, MetadataThatIsNotUtf8IsAnError) {
  const std::string header = "{\"__metadata__\":{\"format\":\"p\xfft\"},"
                             "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}";
  std::vector<uint8_t> bytes = testing::rawFile(header, 1);
  Result<SafetensorsFile> file = SafetensorsFile::fromBytes(bytes.data(), bytes.size(), "t.st");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error(), "t.st: __metadata__ entry \"format\" is not UTF-8");
}

} // namespace
} // namespace mxf::weights
