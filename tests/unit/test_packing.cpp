//===- test_packing.cpp - Nibble and 6-bit string order -------------------===//

#include "numerics/packing.h"

#include "test_seed.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace mxf {
namespace {

TEST(Packing, Fp4LowNibbleIsTheEvenElement) {
  const uint8_t codes[4] = {0x1, 0xA, 0xF, 0x3};
  uint8_t packed[2];
  packCodes(ElemFormat::E2M1, codes, 4, packed);
  EXPECT_EQ(packed[0], 0xA1);
  EXPECT_EQ(packed[1], 0x3F);
  EXPECT_EQ(packedBytes(ElemFormat::E2M1, 32), 16u);
}

TEST(Packing, Fp6IsADenseLittleEndianBitString) {
  // Four 6-bit items fill three bytes: item i at bits [6i+5 : 6i].
  const uint8_t codes[4] = {0x01, 0x02, 0x3F, 0x15};
  uint8_t packed[3];
  packCodes(ElemFormat::E2M3, codes, 4, packed);
  // bits: item0 000001 | item1 000010 << 6 | item2 111111 << 12 | item3 010101 << 18
  uint32_t word = 0x01u | (0x02u << 6) | (0x3Fu << 12) | (0x15u << 18);
  EXPECT_EQ(packed[0], uint8_t(word));
  EXPECT_EQ(packed[1], uint8_t(word >> 8));
  EXPECT_EQ(packed[2], uint8_t(word >> 16));
  EXPECT_EQ(packedBytes(ElemFormat::E3M2, 32), 24u);
}

TEST(Packing, RandomRoundTripsInEveryFormat) {
  std::mt19937 rng(uint32_t(testing::testSeed("Packing.RandomRoundTrips")));
  for (ElemFormat format : kAllElemFormats) {
    const int bits = formatInfo(format).bits;
    for (size_t n : {size_t(4), size_t(32), size_t(96), size_t(4096)}) {
      std::vector<uint8_t> codes(n), back(n), packed(packedBytes(format, n));
      for (uint8_t &c : codes)
        c = uint8_t(rng() & ((1u << bits) - 1));
      packCodes(format, codes.data(), n, packed.data());
      unpackCodes(format, packed.data(), n, back.data());
      ASSERT_EQ(codes, back) << formatInfo(format).specName << " n=" << n;
      // Every bit of the packed string is accounted for (no gaps).
      size_t ones = 0, expectedOnes = 0;
      for (uint8_t b : packed)
        ones += size_t(__builtin_popcount(b));
      for (uint8_t c : codes)
        expectedOnes += size_t(__builtin_popcount(c));
      ASSERT_EQ(ones, expectedOnes);
    }
  }
}

} // namespace
} // namespace mxf
