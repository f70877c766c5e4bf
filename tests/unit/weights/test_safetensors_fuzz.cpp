//===- test_safetensors_fuzz.cpp - Damaged files: an error or a valid read ===//
//
// Valid files (random tensors and metadata) damaged at random: truncated,
// bits flipped in the header, the length prefix changed, offsets rewritten
// to lie. Each read must fail with a message naming the file, or succeed
// with every tensor inside the data and the sizes consistent; the sanitizer
// build (CI) turns any out-of-bounds read into a failure.
//
//===----------------------------------------------------------------------===//

#include "weights/safetensors.h"

#include "safetensors_test_files.h"
#include "test_seed.h"

#include <gtest/gtest.h>

#include <random>

namespace mxf::weights {
namespace {

std::vector<uint8_t> randomValidFile(std::mt19937_64 &rng) {
  const char *dtypes[] = {"BF16", "F32", "U8", "I64", "F16"};
  std::vector<PlannedTensor> tensors;
  const int count = int(rng() % 5) + 1;
  for (int i = 0; i < count; ++i)
    tensors.push_back({"layer." + std::to_string(i) + ".weight", dtypes[rng() % 5],
                       {rng() % 5 + 1, rng() % 7}});
  Result<SafetensorsPlan> plan = planSafetensors(tensors, {{"format", "pt"}});
  std::vector<std::vector<uint8_t>> data;
  for (uint64_t size : plan.value().sizes)
    data.emplace_back(size, uint8_t(rng()));
  return testing::buildFile(plan.value(), data);
}

void expectErrorOrConsistent(const std::vector<uint8_t> &file) {
  // A copy of exactly the damaged size, so reads past it are heap overflows.
  std::vector<uint8_t> exact(file);
  Result<SafetensorsFile> read = SafetensorsFile::fromBytes(exact.data(), exact.size(), "fuzz.st");
  if (!read.ok()) {
    EXPECT_EQ(read.error().rfind("fuzz.st: ", 0), 0u) << read.error();
    return;
  }
  uint64_t covered = 0;
  for (const TensorInfo &t : read.value().tensors()) {
    EXPECT_EQ(t.begin, covered);
    EXPECT_EQ(t.bytes(), t.elements() * safetensorsItemSize(t.dtype));
    covered = t.end;
    volatile uint8_t sink = 0;
    for (uint64_t i = 0; i < t.bytes(); ++i)
      sink = sink ^ read.value().data(t)[i]; // touches every byte: ASan checks
  }
  EXPECT_LE(covered, exact.size());
}

TEST(SafetensorsFuzz, DamagedFilesNeverCrash) {
  std::mt19937_64 rng(testing::testSeed("SafetensorsFuzz.Damaged"));
  size_t rejected = 0, total = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<uint8_t> file = randomValidFile(rng);
    uint64_t headerLength = 0;
    for (int i = 7; i >= 0; --i)
      headerLength = (headerLength << 8) | file[size_t(i)];
    switch (round % 5) {
    case 0: // truncated at a random offset
      file.resize(rng() % file.size());
      break;
    case 1: // bit flips inside the header
      for (int f = 0; f < 1 + int(rng() % 3); ++f)
        file[8 + rng() % headerLength] ^= uint8_t(1u << (rng() % 8));
      break;
    case 2: // the length prefix lies (small changes and huge values)
      file[rng() % 8] = uint8_t(rng());
      break;
    case 3: { // a digit of the header changed: offsets or shapes lie
      std::vector<size_t> digits;
      for (size_t i = 8; i < 8 + headerLength; ++i)
        if (file[i] >= '0' && file[i] <= '9')
          digits.push_back(i);
      if (!digits.empty())
        file[digits[rng() % digits.size()]] = uint8_t('0' + rng() % 10);
      break;
    }
    case 4: // bytes appended or a huge size spliced in
      file.insert(file.end(), rng() % 16 + 1, 0);
      break;
    }
    ++total;
    std::vector<uint8_t> exact(file);
    rejected += !SafetensorsFile::fromBytes(exact.data(), exact.size(), "fuzz.st").ok();
    expectErrorOrConsistent(file);
  }
  // Most damage must be caught; a fuzzer that damages nothing tests nothing.
  EXPECT_GT(rejected, total / 2);
}

} // namespace
} // namespace mxf::weights
