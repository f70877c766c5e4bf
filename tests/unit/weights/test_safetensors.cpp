//===- test_safetensors.cpp - safetensors write, read, and each rejection -===//

#include "weights/safetensors.h"

#include "safetensors_test_files.h"
#include "test_seed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace mxf::weights {
namespace {

using testing::buildFile;
using testing::rawFile;

TEST(Safetensors, RoundTripKeepsNamesShapesBytesAndMetadata) {
  std::mt19937_64 rng(testing::testSeed("Safetensors.RoundTrip"));
  std::vector<PlannedTensor> tensors = {{"model.w", "BF16", {3, 5}},
                                        {"b\"quoted\"", "F32", {7}},
                                        {"empty", "U8", {0, 4}},
                                        {"scalar", "I64", {}}};
  Metadata metadata = {{"format", "pt"}, {"note", "line\nbreak"}};
  Result<SafetensorsPlan> plan = planSafetensors(tensors, metadata);
  ASSERT_TRUE(plan.ok()) << plan.error();
  EXPECT_EQ(plan.value().header.size() % 8, 0u); // data starts 8-byte aligned
  // Padding is spaces after the closing brace, as the reference writer pads.
  const std::string &h = plan.value().header;
  EXPECT_EQ(h.find_last_not_of(' '), h.rfind('}'));
  std::vector<std::vector<uint8_t>> data;
  for (uint64_t size : plan.value().sizes) {
    std::vector<uint8_t> bytes(size);
    for (uint8_t &b : bytes)
      b = uint8_t(rng());
    data.push_back(bytes);
  }
  std::vector<uint8_t> file = buildFile(plan.value(), data);
  Result<SafetensorsFile> read = SafetensorsFile::fromBytes(file.data(), file.size(), "t.safetensors");
  ASSERT_TRUE(read.ok()) << read.error();
  ASSERT_EQ(read.value().tensors().size(), tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo *t = read.value().find(tensors[i].name);
    ASSERT_TRUE(t) << tensors[i].name;
    EXPECT_EQ(t->dtype, tensors[i].dtype);
    EXPECT_EQ(t->shape, tensors[i].shape);
    ASSERT_EQ(t->bytes(), data[i].size());
    EXPECT_TRUE(std::equal(data[i].begin(), data[i].end(), read.value().data(*t)));
  }
  EXPECT_EQ(read.value().metadata(), metadata);
}

TEST(Safetensors, PlanRejectsDuplicatesAndUnknownDtypes) {
  EXPECT_FALSE(planSafetensors({{"a", "BF16", {1}}, {"a", "U8", {1}}}, {}).ok());
  EXPECT_FALSE(planSafetensors({{"a", "Q4", {1}}}, {}).ok());
  EXPECT_FALSE(planSafetensors({{"__metadata__", "U8", {1}}}, {}).ok());
}

struct BadHeader {
  const char *header;
  size_t dataBytes;
  const char *needle;
};

TEST(Safetensors, EachLieIsAClearError) {
  const BadHeader cases[] = {
      {"{\"a\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[0,4]}", 4, "malformed JSON"},
      {"[1]", 0, "start with '{'"},
      {"{\"a\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[0,6]}}", 4, "outside"},
      {"{\"a\":{\"dtype\":\"BF16\",\"shape\":[3],\"data_offsets\":[0,4]}}", 4, "need 6"},
      {"{\"a\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[0,4]},"
       "\"b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[2,4]}}",
       4, "overlaps"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[2,4]}}", 4, "belong to no tensor"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", 4, "trailing"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,2]}}", 2,
       "overflows"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[18446744073709551615],\"data_offsets\":[0,18446744073709551615]}}",
       2, "outside"},
      {"{\"a\":{\"dtype\":\"X9\",\"shape\":[2],\"data_offsets\":[0,2]}}", 2, "unknown dtype"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[-2],\"data_offsets\":[0,2]}}", 2, "non-negative"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0]}}", 2, "[begin, end]"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2],\"x\":1}}", 2, "unknown key"},
      {"{\"a\":5}", 0, "not an object"},
      {"{\"__metadata__\":{\"k\":1}}", 0, "not a string"},
  };
  for (const BadHeader &c : cases) {
    std::vector<uint8_t> file = rawFile(c.header, c.dataBytes);
    Result<SafetensorsFile> read = SafetensorsFile::fromBytes(file.data(), file.size(), "bad.safetensors");
    ASSERT_FALSE(read.ok()) << c.header;
    EXPECT_NE(read.error().find(c.needle), std::string::npos) << read.error();
    EXPECT_EQ(read.error().rfind("bad.safetensors: ", 0), 0u) << read.error();
  }
  // The header length itself lies: beyond the file, and absurdly large.
  std::vector<uint8_t> file = rawFile("{}", 0);
  file[0] = 200;
  EXPECT_NE(SafetensorsFile::fromBytes(file.data(), file.size(), "f").error().find("truncated"),
            std::string::npos);
  file[7] = 0x7F;
  EXPECT_NE(SafetensorsFile::fromBytes(file.data(), file.size(), "f").error().find("limit"),
            std::string::npos);
  EXPECT_FALSE(SafetensorsFile::fromBytes(file.data(), 5, "f").ok());
}

TEST(Safetensors, OpenNamesMissingFiles) {
  Result<SafetensorsFile> f = SafetensorsFile::open("/nonexistent/x.safetensors");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().find("/nonexistent/x.safetensors"), std::string::npos);
}

} // namespace
} // namespace mxf::weights
