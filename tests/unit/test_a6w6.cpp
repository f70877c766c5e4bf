//===- test_a6w6.cpp - AITER's A6W6 scale, rounding and tile layout --------===//
//
// Hand-computed values for the scale byte and the ties-away E2M3 rounding;
// the rounding against numerics' RNE away from ties (and at ties, where they
// must differ); the layout against hand-computed offsets, an independent
// inverse of the scale offset, a bijection check over whole tiles and a
// round trip.
//
//===----------------------------------------------------------------------===//

#include "numerics/a6w6.h"

#include "numerics/formats.h"
#include "numerics/quantize.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <cstdint>
#include <random>
#include <vector>

namespace mxf {
namespace {

float fromBits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

TEST(A6W6Scale, HandComputedBlocks) {
  EXPECT_EQ(a6w6ScaleByte(0.0f), 127);                // amax = 0: scale 1.0
  EXPECT_EQ(a6w6ScaleByte(1.0f), 125);                // floor(log2 1) - 2 = -2
  EXPECT_EQ(a6w6ScaleByte(7.5f), 127);                // 2^2 * 1.875: floor = 2
  EXPECT_EQ(a6w6ScaleByte(8.0f), 128);
  EXPECT_EQ(a6w6ScaleByte(fromBits(0x40FFFFFFu)), 127); // just below 8 (f32 log2 may say 3)
  EXPECT_EQ(a6w6ScaleByte(fromBits(0x00000001u)), 0);   // subnormal
  EXPECT_EQ(a6w6ScaleByte(fromBits(0x00800000u)), 0);   // 2^-126: -128 clamped to -127
  EXPECT_EQ(a6w6ScaleByte(fromBits(0x01000000u)), 0);   // 2^-125: -127
  EXPECT_EQ(a6w6ScaleByte(fromBits(0x01800000u)), 1);   // 2^-124
  EXPECT_EQ(a6w6ScaleByte(fromBits(0x7F7FFFFFu)), 252); // f32 max: 127 - 2
  EXPECT_EQ(a6w6ScaleByte(INFINITY), 254);              // exponent field 255
}

TEST(A6W6Scale, IsFloorLog2MinusTwoForEveryNormalBinade) {
  std::mt19937_64 rng(testing::testSeed("A6W6Scale.FloorLog2"));
  for (uint32_t exponent = 1; exponent < 255; ++exponent)
    for (int trial = 0; trial < 8; ++trial) {
      const float amax = fromBits((exponent << 23) | uint32_t(rng() & 0x7FFFFFu));
      int binade;
      std::frexp(amax, &binade); // amax = f * 2^binade, f in [0.5, 1)
      int se = binade - 1 - 2;
      se = se < -127 ? -127 : se > 127 ? 127 : se;
      ASSERT_EQ(a6w6ScaleByte(amax), se + 127) << amax;
    }
}

TEST(A6W6Rounding, HandComputedCodes) {
  const uint8_t one = 127; // scale 2^0: s = x
  EXPECT_EQ(encodeE2M3HalfAway(0.0625f, one), 1);    // tie 0 | 0.125: away
  EXPECT_EQ(encodeE2M3HalfAway(0.3125f, one), 3);    // tie 0.25 | 0.375: away (RNE: 2)
  EXPECT_EQ(encodeE2M3HalfAway(1.9375f, one), 16);   // tie 1.875 | 2.0: up into the next binade
  EXPECT_EQ(encodeE2M3HalfAway(2.125f, one), 17);    // tie 2.0 | 2.25 at spacing 1/4 (RNE: 16)
  EXPECT_EQ(encodeE2M3HalfAway(5.0f, one), 26);      // 4 + 2 * 0.5
  EXPECT_EQ(encodeE2M3HalfAway(7.25f, one), 31);     // tie 7.0 | 7.5: away
  EXPECT_EQ(encodeE2M3HalfAway(7.75f, one), 31);     // saturates to 7.5
  EXPECT_EQ(encodeE2M3HalfAway(1e30f, one), 31);
  EXPECT_EQ(encodeE2M3HalfAway(-INFINITY, one), 0x3F);
  EXPECT_EQ(encodeE2M3HalfAway(-0.0f, one), 0x00);   // s < 0 is false for -0.0
  EXPECT_EQ(encodeE2M3HalfAway(-0.01f, one), 0x20);  // negative, rounds to 0: keeps its sign
  EXPECT_EQ(encodeE2M3HalfAway(-3.0f, one), 0x20 | 20); // 2 * (1 + 4/8): code 16 + 4
  EXPECT_EQ(encodeE2M3HalfAway(NAN, one), 0x00);     // our choice
  // f32's rounding of a*q + 0.5: 8a + 0.5 = 1 - 2^-25 rounds to 1.0.
  EXPECT_EQ(encodeE2M3HalfAway(0.0625f - std::ldexp(1.0f, -28), one), 1);
  EXPECT_EQ(encodeE2M3HalfAway(0.0625f - std::ldexp(1.0f, -27), one), 0);
  // The scale divides: 0.375 at byte 124 (2^-3) is 3.0 (code 20).
  EXPECT_EQ(encodeE2M3HalfAway(0.375f, 124), 20);
}

/// Whether |s| (unsaturated, below 7.5) lies exactly halfway between two
/// adjacent E2M3 levels.
bool atTie(float s) {
  const double a = std::fabs(double(s));
  if (a >= 7.5)
    return false;
  const double spacing = a < 2 ? 0.125 : a < 4 ? 0.25 : 0.5;
  const double steps = a / spacing;
  return steps - std::floor(steps) == 0.5;
}

TEST(A6W6Rounding, EqualsNearestEvenAwayFromTiesAndDiffersAtOddTies) {
  std::mt19937_64 rng(testing::testSeed("A6W6Rounding.VersusRne"));
  std::normal_distribution<float> normal;
  size_t compared = 0, tiesDiffering = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    const uint8_t byte = uint8_t(120 + rng() % 12);
    float x = normal(rng) * 4.0f;
    if (trial % 4 == 0) { // an exact tie: a level plus half its spacing, scaled back
      const int code = int(rng() % 31); // 0..30: its upper neighbour exists
      const double level = decodeElem(ElemFormat::E2M3, uint8_t(code));
      const double next = decodeElem(ElemFormat::E2M3, uint8_t(code + 1));
      x = float(std::ldexp((level + next) / 2, int(byte) - 127) * (rng() % 2 ? -1 : 1));
    }
    const float s = std::ldexp(x, 127 - int(byte));
    const uint8_t away = encodeE2M3HalfAway(x, byte);
    const uint8_t even = encodeElemRne(ElemFormat::E2M3, x, byte);
    if (!atTie(s)) {
      // -0 results: RNE keeps the sign of a negative x that rounds to 0, as
      // the half-away rule does; only s = -0.0 itself differs (not drawn).
      ASSERT_EQ(away, even) << "x " << x << " byte " << int(byte);
      ++compared;
      continue;
    }
    // At a tie between the levels of codes c and c + 1, ties away gives
    // c + 1 and RNE the even one of the two (same sign).
    const double a = std::fabs(double(s));
    const int c = a < 2 ? int(std::floor(a * 8)) : a < 4 ? 8 + int(std::floor(a * 4))
                                                         : 16 + int(std::floor(a * 2));
    const int magnitudeAway = away & 0x1F, magnitudeEven = even & 0x1F;
    ASSERT_EQ(away & 0x20, even & 0x20) << x;
    ASSERT_EQ(magnitudeAway, c + 1) << "x " << x << " byte " << int(byte);
    ASSERT_EQ(magnitudeEven, c + (c & 1)) << "x " << x << " byte " << int(byte);
    tiesDiffering += magnitudeAway != magnitudeEven;
  }
  EXPECT_GT(compared, 100000u);
  EXPECT_GT(tiesDiffering, 1000u) << "the tie cases no longer test the tie rule";
}

TEST(A6W6Rounding, TheSpecValuesQuantizeARowAsAiterA6W6) {
  // scale=a6w6, round=rna, fmt=fp6_e2m3: quantizeRow (what the kernels are
  // checked against) is a6w6ScaleByte per block and encodeE2M3HalfAway per
  // element, ties and -0.0 included.
  std::mt19937_64 rng(mxf::testing::testSeed("A6W6Rounding.TheSpecValuesQuantizeARowAsAiterA6W6"));
  QuantConfig config;
  config.format = ElemFormat::E2M3;
  config.rule = ScaleRule::A6W6;
  config.rounding = Rounding::Rna;
  constexpr size_t k = 256;
  size_t ties = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<float> row(k);
    for (size_t i = 0; i < k; ++i) {
      // Half the elements on exact E2M3 ties (level midpoints) times 2^e.
      const int level = int(rng() % 30);
      const float tie = (float(level) + 0.5f) / 8.0f; // midpoints below 4 in the 1/8 grid
      row[i] = rng() % 2 ? std::ldexp(tie, int(rng() % 5) - 2) * (rng() % 2 ? -1.0f : 1.0f)
                         : std::ldexp(float(int64_t(rng() % 2000) - 1000), -int(rng() % 12));
    }
    row[7] = -0.0f;
    std::vector<uint8_t> codes(k), scales(k / 32);
    quantizeRow(config, row.data(), k, 0, codes.data(), scales.data());
    for (size_t block = 0; block < k / 32; ++block) {
      float amax = 0;
      for (size_t i = 0; i < 32; ++i)
        amax = std::max(amax, std::fabs(row[block * 32 + i]));
      ASSERT_EQ(scales[block], a6w6ScaleByte(amax));
      for (size_t i = 0; i < 32; ++i) {
        const size_t c = block * 32 + i;
        ASSERT_EQ(codes[c], encodeE2M3HalfAway(row[c], scales[block])) << "element " << c;
        const float scaled = std::ldexp(std::fabs(row[c]), 127 - int(scales[block]));
        ties += scaled < 7.5f && std::ldexp(scaled, 3) == std::floor(std::ldexp(scaled, 3)) + 0.5f;
      }
    }
    EXPECT_EQ(codes[7], 0) << "-0.0 is code 0 under AITER's sign rule";
  }
  EXPECT_GT(ties, 200u) << "the rows must exercise ties";
}

TEST(A6W6Layout, HandComputedOffsets) {
  const size_t k = 256; // 2 K tiles + 2 guard tiles per row tile
  EXPECT_EQ(a6w6Shape(1, k).kTilesPerRow, 4u);
  EXPECT_EQ(a6w6Shape(257, 4096).rowTiles, 2u);
  EXPECT_EQ(a6w6Shape(257, 4096).kTilesPerRow, 34u);
  EXPECT_EQ(a6w6Shape(300, 160).codeBytes(), 2u * 4 * 24576);
  EXPECT_EQ(a6w6CodeOffset(0, 0, 0, k), 0u);
  EXPECT_EQ(a6w6CodeOffset(0, 0, 15, k), 15u);
  EXPECT_EQ(a6w6CodeOffset(0, 0, 16, k), 16384u);    // C1 holds bytes 16..23
  EXPECT_EQ(a6w6CodeOffset(0, 0, 23, k), 16391u);
  EXPECT_EQ(a6w6CodeOffset(1, 0, 0, k), 16u);        // r16 = 1
  EXPECT_EQ(a6w6CodeOffset(1, 0, 16, k), 16384u + 8);
  EXPECT_EQ(a6w6CodeOffset(0, 1, 0, k), 16u * 16);   // kg = 1: blk 16
  EXPECT_EQ(a6w6CodeOffset(16, 0, 0, k), 64u * 16);  // rb = 1: blk 64
  EXPECT_EQ(a6w6CodeOffset(255, 3, 23, k), 24575u);  // the tile's last byte
  EXPECT_EQ(a6w6CodeOffset(0, 4, 0, k), 24576u);     // the next K tile
  EXPECT_EQ(a6w6CodeOffset(256, 0, 0, k), 4u * 24576); // the next row tile, after 2 guards
  EXPECT_EQ(a6w6ScaleOffset(0, 0, k), 0u);
  EXPECT_EQ(a6w6ScaleOffset(1, 0, k), 8u);           // r16 * 8
  EXPECT_EQ(a6w6ScaleOffset(16, 0, k), 1u);          // the 16-row block in the half
  EXPECT_EQ(a6w6ScaleOffset(128, 0, k), 512u);       // the second 128-row half
  EXPECT_EQ(a6w6ScaleOffset(0, 1, k), 128u);         // kg * 128
  EXPECT_EQ(a6w6ScaleOffset(255, 3, k), 1023u);
  EXPECT_EQ(a6w6ScaleOffset(0, 4, k), 1024u);
  EXPECT_EQ(a6w6ScaleOffset(256, 0, k), 4u * 1024);
}

TEST(A6W6Layout, EveryByteOfATileHasOneOwner) {
  const size_t k = 128; // one K tile and its two guards
  std::vector<int> codeOwners(a6w6Shape(256, k).codeBytes(), 0);
  std::vector<int> scaleOwners(a6w6Shape(256, k).scaleBytes(), 0);
  for (size_t row = 0; row < 256; ++row)
    for (size_t block = 0; block < 4; ++block) {
      for (size_t j = 0; j < 24; ++j)
        ++codeOwners[a6w6CodeOffset(row, block, j, k)];
      const size_t o = a6w6ScaleOffset(row, block, k);
      ++scaleOwners[o];
      // The inverse, written independently: o -> (row, block).
      ASSERT_EQ((o / 512) * 128 + (o % 8) * 16 + (o % 128) / 8, row);
      ASSERT_EQ((o % 512) / 128, block);
    }
  for (size_t i = 0; i < codeOwners.size(); ++i)
    ASSERT_EQ(codeOwners[i], i < 24576 ? 1 : 0) << "code byte " << i;
  for (size_t i = 0; i < scaleOwners.size(); ++i)
    ASSERT_EQ(scaleOwners[i], i < 1024 ? 1 : 0) << "scale byte " << i;
}

TEST(A6W6Layout, PackUnpackRoundTripAndPadding) {
  std::mt19937_64 rng(testing::testSeed("A6W6Layout.RoundTrip"));
  for (auto [rows, k] : {std::pair<size_t, size_t>{1, 32}, {17, 160}, {256, 128}, {300, 4096}}) {
    std::vector<uint8_t> codes(rows * k * 3 / 4), scales(rows * k / 32);
    for (uint8_t &c : codes)
      c = uint8_t(rng());
    for (uint8_t &s : scales)
      s = uint8_t(rng());
    Result<A6W6Operand> packed = packA6W6(codes.data(), scales.data(), rows, k);
    ASSERT_TRUE(packed.ok()) << packed.error();
    Result<A6W6Operand> back = unpackA6W6(packed.value(), rows, k);
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back.value().codes, codes) << rows << "x" << k;
    EXPECT_EQ(back.value().scales, scales) << rows << "x" << k;
    // Every byte no row owns is padding: count them.
    std::vector<bool> owned(packed.value().codes.size(), false);
    for (size_t row = 0; row < rows; ++row)
      for (size_t block = 0; block < k / 32; ++block)
        for (size_t j = 0; j < 24; ++j)
          owned[a6w6CodeOffset(row, block, j, k)] = true;
    for (size_t i = 0; i < owned.size(); ++i) {
      if (!owned[i]) {
        ASSERT_EQ(packed.value().codes[i], kA6W6PadCode) << i;
      }
    }
    size_t pad = 0;
    for (uint8_t s : packed.value().scales)
      pad += s == kA6W6PadScale;
    EXPECT_GE(pad, packed.value().scales.size() - scales.size());
  }
}

TEST(A6W6Layout, BadArgumentsAreNamed) {
  EXPECT_NE(checkA6W6Args(0, 128).message().find("rows"), std::string::npos);
  EXPECT_NE(checkA6W6Args(4, 48).message().find("K=48"), std::string::npos);
  EXPECT_NE(checkA6W6Args(SIZE_MAX / 2, 4096).message().find("overflows"), std::string::npos);
  std::vector<uint8_t> codes(24), scales(1);
  EXPECT_FALSE(packA6W6(nullptr, scales.data(), 1, 32).ok());
  Result<A6W6Operand> packed = packA6W6(codes.data(), scales.data(), 1, 32);
  ASSERT_TRUE(packed.ok());
  A6W6Operand truncated = packed.value();
  truncated.codes.pop_back();
  Result<A6W6Operand> bad = unpackA6W6(truncated, 1, 32);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("code"), std::string::npos) << bad.error();
}

} // namespace
} // namespace mxf
