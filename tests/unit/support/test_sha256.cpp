//===- test_sha256.cpp - SHA-256 against FIPS 180-4 / NIST vectors --------===//

#include "support/sha256.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace mxf {
namespace {

TEST(Sha256, NistShortMessageVectors) {
  EXPECT_EQ(sha256("").hex(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256("abc").hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 448 bits: the padding needs a second block.
  EXPECT_EQ(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").hex(),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                   "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
                .hex(),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, OneMillionAs) {
  std::string million(1000000, 'a');
  EXPECT_EQ(sha256(million).hex(),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, IncrementalEqualsOneShotForEverySplit) {
  std::mt19937_64 rng(testing::testSeed("Sha256.IncrementalEqualsOneShotForEverySplit"));
  std::vector<uint8_t> data(300);
  for (uint8_t &byte : data)
    byte = uint8_t(rng());
  for (size_t length : {0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 300}) {
    Sha256Digest whole = sha256(data.data(), length);
    for (size_t split = 0; split <= length; ++split) {
      Sha256 hasher;
      hasher.update(data.data(), split);
      hasher.update(data.data() + split, length - split);
      ASSERT_EQ(hasher.finish(), whole) << "length " << length << " split " << split;
    }
  }
}

TEST(Sha256, HexRoundTripAndRejects) {
  Sha256Digest digest = sha256("mxforge");
  std::optional<Sha256Digest> back = Sha256Digest::fromHex(digest.hex());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, digest);
  std::string upper = digest.hex();
  for (char &c : upper)
    c = char(std::toupper(c));
  EXPECT_EQ(Sha256Digest::fromHex(upper), digest);
  EXPECT_FALSE(Sha256Digest::fromHex(digest.hex().substr(1)).has_value());
  std::string bad = digest.hex();
  bad[10] = 'g';
  EXPECT_FALSE(Sha256Digest::fromHex(bad).has_value());
}

} // namespace
} // namespace mxf
