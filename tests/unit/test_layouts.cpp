//===- test_layouts.cpp - a4w4 scales, weight preshuffle, W6A16 tiles -----===//
//
// Each layout is checked against an independent implementation that follows
// AITER's PyTorch code (or, for W6A16, seed 003's words) literally: build the N-D view, walk the permuted
// dimensions in row-major order and write consecutively. Nothing here reuses
// the index formulas of numerics/layouts.cpp, so a shared mistake would have
// to be made twice in different forms.
//
//===----------------------------------------------------------------------===//

#include "numerics/layouts.h"

#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace mxf {
namespace {

constexpr size_t kNone = std::numeric_limits<size_t>::max();

size_t roundUpTo(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// AITER shuffle_scale on an already padded [sm, sn] matrix, as the loops of
///   view(sm/32, 2, 16, sn/8, 2, 4).permute(0, 3, 5, 2, 4, 1).contiguous()
/// The view splits row = d0*32 + d1*16 + d2 and col = d3*8 + d4*4 + d5; the
/// permuted order is (d0, d3, d5, d2, d4, d1), innermost last. Returns
/// map[row * sn + col] = position of that element in the output.
std::vector<size_t> scaleViewPermuteMap(size_t sm, size_t sn) {
  std::vector<size_t> map(sm * sn, kNone);
  size_t pos = 0;
  for (size_t d0 = 0; d0 < sm / 32; ++d0)
    for (size_t d3 = 0; d3 < sn / 8; ++d3)
      for (size_t d5 = 0; d5 < 4; ++d5)
        for (size_t d2 = 0; d2 < 16; ++d2)
          for (size_t d4 = 0; d4 < 2; ++d4)
            for (size_t d1 = 0; d1 < 2; ++d1) {
              size_t row = d0 * 32 + d1 * 16 + d2;
              size_t col = d3 * 8 + d4 * 4 + d5;
              map[row * sn + col] = pos++;
            }
  return map;
}

/// The full AITER shuffle: pad [rows, cols] to [sm, sn] with 0x7F (AITER uses
/// torch.empty; we pin the padding to 0x7F), then the view/permute above.
std::vector<uint8_t> scaleViewPermuteShuffle(const std::vector<uint8_t> &plain, size_t rows,
                                             size_t cols, size_t sm, size_t sn) {
  std::vector<uint8_t> padded(sm * sn, 0x7F);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      padded[r * sn + c] = plain[r * cols + c];
  std::vector<uint8_t> out;
  out.reserve(sm * sn);
  for (size_t d0 = 0; d0 < sm / 32; ++d0)
    for (size_t d3 = 0; d3 < sn / 8; ++d3)
      for (size_t d5 = 0; d5 < 4; ++d5)
        for (size_t d2 = 0; d2 < 16; ++d2)
          for (size_t d4 = 0; d4 < 2; ++d4)
            for (size_t d1 = 0; d1 < 2; ++d1)
              out.push_back(padded[(d0 * 32 + d1 * 16 + d2) * sn + (d3 * 8 + d4 * 4 + d5)]);
  return out;
}

/// AITER shuffle_weight, layout (16, 16), uint8 (K = 16 bytes, BK = 32) on a
/// packed [n, kBytes] matrix, as the loops of
///   view(n/16, 16, kBytes/32, 2, 16).permute(0, 2, 3, 1, 4).contiguous()
/// (AITER's leading -1 dimension is 1 for a 2-D matrix). The view splits
/// row = a*16 + r and byte = b*32 + h*16 + c; the permuted order is
/// (a, b, h, r, c).
std::vector<uint8_t> weightViewPermute(const std::vector<uint8_t> &packed, size_t n,
                                       size_t kBytes) {
  std::vector<uint8_t> out;
  out.reserve(n * kBytes);
  for (size_t a = 0; a < n / 16; ++a)
    for (size_t b = 0; b < kBytes / 32; ++b)
      for (size_t h = 0; h < 2; ++h)
        for (size_t r = 0; r < 16; ++r)
          for (size_t c = 0; c < 16; ++c)
            out.push_back(packed[(a * 16 + r) * kBytes + (b * 32 + h * 16 + c)]);
  return out;
}

std::vector<uint8_t> randomBytes(std::mt19937_64 &rng, size_t count) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> out(count);
  for (uint8_t &value : out)
    value = static_cast<uint8_t>(byte(rng));
  return out;
}

/// Empty when equal, else a description of the first difference (printing
/// whole vectors of thousands of bytes helps nobody).
std::string firstMismatch(const std::vector<uint8_t> &got, const std::vector<uint8_t> &want) {
  if (got.size() != want.size())
    return "size " + std::to_string(got.size()) + " != expected " + std::to_string(want.size());
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return "byte " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", expected " +
             std::to_string(want[i]);
  return "";
}

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

//===----------------------------------------------------------------------===//
// a4w4 scale shuffle
//===----------------------------------------------------------------------===//

TEST(A4W4ScaleShuffle, ShapePadsRowsAndColumns) {
  ScaleShape s = a4w4ShuffledShape(1, 1, 256);
  EXPECT_EQ(s.rows, 256u);
  EXPECT_EQ(s.cols, 8u);
  s = a4w4ShuffledShape(256, 8, 256);
  EXPECT_EQ(s.rows, 256u);
  EXPECT_EQ(s.cols, 8u);
  s = a4w4ShuffledShape(257, 9, 256);
  EXPECT_EQ(s.rows, 512u);
  EXPECT_EQ(s.cols, 16u);
  s = a4w4ShuffledShape(33, 128, 32); // MoE-sorted rows pad to 32 only
  EXPECT_EQ(s.rows, 64u);
  EXPECT_EQ(s.cols, 128u);
  s = a4w4ShuffledShape(0, 5, 256); // no rows: nothing to pad
  EXPECT_EQ(s.rows, 0u);
  EXPECT_EQ(s.cols, 8u);
}

TEST(A4W4ScaleShuffle, HandComputedIndices) {
  // Formula: (x/32*sN)*32 + (y/8)*256 + (y%4)*64 + (x%16)*4 + ((y%8)/4)*2 + (x%32)/16.
  // row 17, col 5, sN = 8:
  //   17/32 = 0 -> 0;  5/8 = 0 -> 0;  5%4 = 1 -> 64;  17%16 = 1 -> 4;
  //   (5%8)/4 = 1 -> 2;  (17%32)/16 = 1 -> 1;  total 71.
  EXPECT_EQ(a4w4ScaleIndex(17, 5, 8), 71u);
  // row 50, col 13, sN = 16:
  //   50/32 = 1 -> 1*16*32 = 512;  13/8 = 1 -> 256;  13%4 = 1 -> 64;
  //   50%16 = 2 -> 8;  (13%8)/4 = 1 -> 2;  (50%32)/16 = 1 -> 1;  total 843.
  EXPECT_EQ(a4w4ScaleIndex(50, 13, 16), 843u);
  // The corners of the first 32x8 tile: (0, 0) -> 0 and
  // (31, 7) -> 3*64 + 15*4 + 1*2 + 1 = 255, the tile's last byte.
  EXPECT_EQ(a4w4ScaleIndex(0, 0, 8), 0u);
  EXPECT_EQ(a4w4ScaleIndex(31, 7, 8), 255u);
  // The next tile along the columns starts at 256, the next row of tiles at
  // 32 * sN (= 512 for sN = 16).
  EXPECT_EQ(a4w4ScaleIndex(0, 8, 16), 256u);
  EXPECT_EQ(a4w4ScaleIndex(32, 0, 16), 512u);
  // Rows 0 and 16 of a tile are neighbours (the innermost permuted dim is
  // d1 = (row%32)/16); columns 0 and 4 are two apart.
  EXPECT_EQ(a4w4ScaleIndex(16, 0, 8), 1u);
  EXPECT_EQ(a4w4ScaleIndex(0, 4, 8), 2u);
}

TEST(A4W4ScaleShuffle, IndexMatchesViewPermuteAndIsBijective) {
  std::mt19937_64 rng(testing::testSeed("A4W4ScaleShuffle.IndexMatchesViewPermuteAndIsBijective"));
  std::uniform_int_distribution<size_t> rowDist(1, 600), colDist(1, 80);
  for (int iter = 0; iter < 150; ++iter) {
    size_t rows = rowDist(rng), cols = colDist(rng);
    size_t rowPadding = (iter % 2 == 0) ? 256 : 32;
    SCOPED_TRACE("rows " + std::to_string(rows) + ", cols " + std::to_string(cols) +
                 ", rowPadding " + std::to_string(rowPadding));
    size_t sm = roundUpTo(rows, rowPadding), sn = roundUpTo(cols, 8);
    ScaleShape shape = a4w4ShuffledShape(rows, cols, rowPadding);
    ASSERT_EQ(shape.rows, sm);
    ASSERT_EQ(shape.cols, sn);

    std::vector<size_t> map = scaleViewPermuteMap(sm, sn);
    std::vector<bool> seen(sm * sn, false);
    for (size_t r = 0; r < sm; ++r)
      for (size_t c = 0; c < sn; ++c) {
        size_t idx = a4w4ScaleIndex(r, c, sn);
        ASSERT_EQ(idx, map[r * sn + c]) << "at row " << r << ", col " << c;
        ASSERT_LT(idx, sm * sn) << "at row " << r << ", col " << c;
        ASSERT_FALSE(seen[idx]) << "index " << idx << " hit twice, at row " << r << ", col "
                                << c;
        seen[idx] = true;
      }
    // sm * sn distinct indices below sm * sn: the map is onto as well.
  }
}

TEST(A4W4ScaleShuffle, ShuffleMatchesViewPermuteAndRoundTrips) {
  std::mt19937_64 rng(testing::testSeed("A4W4ScaleShuffle.ShuffleMatchesViewPermuteAndRoundTrips"));
  std::uniform_int_distribution<size_t> rowDist(1, 600), colDist(1, 80);
  for (int iter = 0; iter < 150; ++iter) {
    size_t rows = rowDist(rng), cols = colDist(rng);
    size_t rowPadding = (iter % 2 == 0) ? 256 : 32;
    SCOPED_TRACE("rows " + std::to_string(rows) + ", cols " + std::to_string(cols) +
                 ", rowPadding " + std::to_string(rowPadding));
    size_t sm = roundUpTo(rows, rowPadding), sn = roundUpTo(cols, 8);
    std::vector<uint8_t> plain = randomBytes(rng, rows * cols);

    std::vector<uint8_t> shuffled = shuffleScalesA4W4(plain.data(), rows, cols, rowPadding);
    std::vector<uint8_t> expected = scaleViewPermuteShuffle(plain, rows, cols, sm, sn);
    ASSERT_EQ(firstMismatch(shuffled, expected), "");

    // Every padding position (located through the independent map) is 0x7F.
    std::vector<size_t> map = scaleViewPermuteMap(sm, sn);
    for (size_t r = 0; r < sm; ++r)
      for (size_t c = 0; c < sn; ++c) {
        if (r >= rows || c >= cols) {
          ASSERT_EQ(shuffled[map[r * sn + c]], kScalePadByte) << "at row " << r << ", col " << c;
        }
      }

    std::vector<uint8_t> back = unshuffleScalesA4W4(shuffled.data(), rows, cols, rowPadding);
    ASSERT_EQ(firstMismatch(back, plain), "");
  }
}

TEST(A4W4ScaleShuffle, PaddingIsExactly0x7F) {
  // With data that never equals 0x7F, the 0x7F bytes are exactly the padding.
  size_t rows = 40, cols = 5;
  std::vector<uint8_t> plain(rows * cols, 0x00);
  std::vector<uint8_t> shuffled = shuffleScalesA4W4(plain.data(), rows, cols, 256);
  ASSERT_EQ(shuffled.size(), 256u * 8u);
  size_t pad = 0, zero = 0;
  for (uint8_t b : shuffled) {
    pad += b == 0x7F;
    zero += b == 0x00;
  }
  EXPECT_EQ(zero, rows * cols);
  EXPECT_EQ(pad, 256u * 8u - rows * cols);
  EXPECT_EQ(kScalePadByte, 0x7F);
}

TEST(A4W4ScaleShuffle, EmptyMatrices) {
  EXPECT_TRUE(shuffleScalesA4W4(nullptr, 0, 0, 256).empty());
  EXPECT_TRUE(shuffleScalesA4W4(nullptr, 0, 7, 256).empty());
  EXPECT_TRUE(unshuffleScalesA4W4(nullptr, 0, 7, 32).empty());
  // Columns but no rows still means zero bytes; rows but no columns pads
  // to zero columns, so also zero bytes.
  EXPECT_TRUE(shuffleScalesA4W4(nullptr, 5, 0, 256).empty());
  EXPECT_TRUE(checkA4W4ScaleArgs(0, 0, 256).ok());
}

TEST(A4W4ScaleShuffle, RejectsBadArguments) {
  Status s = checkA4W4ScaleArgs(4, 4, 0);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "rowPadding = 0")) << s.message();
  EXPECT_TRUE(contains(s.message(), "multiple of 32")) << s.message();

  s = checkA4W4ScaleArgs(4, 4, 48);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "rowPadding = 48")) << s.message();

  const size_t big = std::numeric_limits<size_t>::max();
  s = checkA4W4ScaleArgs(big - 3, 4, 256);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "rows = " + std::to_string(big - 3))) << s.message();
  EXPECT_TRUE(contains(s.message(), "overflows")) << s.message();

  s = checkA4W4ScaleArgs(4, big - 1, 256);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "cols = " + std::to_string(big - 1))) << s.message();

  s = checkA4W4ScaleArgs(size_t(1) << 40, size_t(1) << 30, 256);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "padded size")) << s.message();
  EXPECT_TRUE(contains(s.message(), "overflows")) << s.message();

  // The non-Result entry points signal the same rejections by emptiness and
  // never touch the (here bogus) data.
  uint8_t dummy = 0;
  EXPECT_TRUE(shuffleScalesA4W4(&dummy, 1, 1, 48).empty());
  EXPECT_TRUE(unshuffleScalesA4W4(&dummy, 1, 1, 0).empty());
  EXPECT_TRUE(shuffleScalesA4W4(&dummy, size_t(1) << 40, size_t(1) << 30, 256).empty());
  EXPECT_TRUE(shuffleScalesA4W4(nullptr, 3, 3, 256).empty());
  EXPECT_TRUE(unshuffleScalesA4W4(nullptr, 3, 3, 256).empty());
  ScaleShape bad = a4w4ShuffledShape(3, 3, 100);
  EXPECT_EQ(bad.rows, 0u);
  EXPECT_EQ(bad.cols, 0u);
}

//===----------------------------------------------------------------------===//
// (16, 16) weight preshuffle
//===----------------------------------------------------------------------===//

TEST(WeightPreshuffle16x16, HandComputedPositions) {
  // Place one marked byte and find where it lands.
  struct Case {
    size_t n, kBytes, row, col, expected;
  };
  const Case cases[] = {
      // n=16, kBytes=32: one tile; byte (1, 17) is in half h = 1 at r = 1,
      // c = 1: 1*256 + 1*16 + 1 = 273.
      {16, 32, 1, 17, 273},
      // (15, 15): h = 0, r = 15, c = 15 -> 15*16 + 15 = 255, the first half's end.
      {16, 32, 15, 15, 255},
      // n=32, kBytes=64, byte (17, 40): a = 1, r = 1, b = 1, h = 0, c = 8:
      // a*16*kBytes + b*512 + h*256 + r*16 + c = 1024 + 512 + 0 + 16 + 8 = 1560.
      {32, 64, 17, 40, 1560},
      // (31, 63): a = 1, r = 15, b = 1, h = 1, c = 15 -> the last byte, 2047.
      {32, 64, 31, 63, 2047},
  };
  for (const Case &t : cases) {
    SCOPED_TRACE("n " + std::to_string(t.n) + ", kBytes " + std::to_string(t.kBytes) +
                 ", byte (" + std::to_string(t.row) + ", " + std::to_string(t.col) + ")");
    std::vector<uint8_t> packed(t.n * t.kBytes, 0);
    packed[t.row * t.kBytes + t.col] = 0xAB;
    Result<std::vector<uint8_t>> out = preshuffleWeights16x16(packed.data(), t.n, t.kBytes);
    ASSERT_TRUE(out.ok()) << out.error();
    ASSERT_EQ(out.value().size(), packed.size());
    for (size_t i = 0; i < packed.size(); ++i)
      ASSERT_EQ(out.value()[i], i == t.expected ? 0xAB : 0x00) << "at " << i;
  }
}

TEST(WeightPreshuffle16x16, MatchesViewPermuteAndRoundTrips) {
  std::mt19937_64 rng(testing::testSeed("WeightPreshuffle16x16.MatchesViewPermuteAndRoundTrips"));
  std::uniform_int_distribution<size_t> tilesN(1, 24), tilesK(1, 24);
  for (int iter = 0; iter < 100; ++iter) {
    size_t n = 16 * tilesN(rng), kBytes = 32 * tilesK(rng);
    SCOPED_TRACE("n " + std::to_string(n) + ", kBytes " + std::to_string(kBytes));
    std::vector<uint8_t> packed = randomBytes(rng, n * kBytes);

    Result<std::vector<uint8_t>> shuffled = preshuffleWeights16x16(packed.data(), n, kBytes);
    ASSERT_TRUE(shuffled.ok()) << shuffled.error();
    ASSERT_EQ(firstMismatch(shuffled.value(), weightViewPermute(packed, n, kBytes)), "");

    Result<std::vector<uint8_t>> back =
        unpreshuffleWeights16x16(shuffled.value().data(), n, kBytes);
    ASSERT_TRUE(back.ok()) << back.error();
    ASSERT_EQ(firstMismatch(back.value(), packed), "");

    // And the other way round: unshuffle first, shuffle back.
    Result<std::vector<uint8_t>> un = unpreshuffleWeights16x16(packed.data(), n, kBytes);
    ASSERT_TRUE(un.ok()) << un.error();
    Result<std::vector<uint8_t>> re = preshuffleWeights16x16(un.value().data(), n, kBytes);
    ASSERT_TRUE(re.ok()) << re.error();
    ASSERT_EQ(firstMismatch(re.value(), packed), "");
  }
}

TEST(WeightPreshuffle16x16, RejectsBadShapes) {
  uint8_t dummy[64] = {};
  struct Case {
    size_t n, kBytes;
    const uint8_t *data;
    std::vector<std::string> needles;
  };
  const size_t hugeN = size_t(1) << 60; // a multiple of 16 whose byte count overflows
  const Case cases[] = {
      {0, 32, dummy, {"n (rows) = 0", "empty"}},
      {16, 0, dummy, {"kBytes (packed bytes per row) = 0", "empty"}},
      {15, 32, dummy, {"n (rows) = 15", "multiple of 16"}},
      {17, 32, dummy, {"n (rows) = 17", "multiple of 16"}},
      {16, 48, dummy, {"kBytes (packed bytes per row) = 48", "multiple of 32"}},
      {16, 16, dummy, {"kBytes (packed bytes per row) = 16", "multiple of 32"}},
      {16, 32, nullptr, {"null"}},
      {hugeN, 1024, dummy, {"overflows", std::to_string(hugeN)}},
  };
  for (const Case &t : cases) {
    SCOPED_TRACE("n " + std::to_string(t.n) + ", kBytes " + std::to_string(t.kBytes));
    Result<std::vector<uint8_t>> fwd = preshuffleWeights16x16(t.data, t.n, t.kBytes);
    ASSERT_FALSE(fwd.ok());
    EXPECT_TRUE(contains(fwd.error(), "preshuffleWeights16x16")) << fwd.error();
    Result<std::vector<uint8_t>> inv = unpreshuffleWeights16x16(t.data, t.n, t.kBytes);
    ASSERT_FALSE(inv.ok());
    EXPECT_TRUE(contains(inv.error(), "unpreshuffleWeights16x16")) << inv.error();
    for (const std::string &needle : t.needles) {
      EXPECT_TRUE(contains(fwd.error(), needle)) << fwd.error() << " lacks " << needle;
      EXPECT_TRUE(contains(inv.error(), needle)) << inv.error() << " lacks " << needle;
    }
  }
}

//===----------------------------------------------------------------------===//
// W6A16 tiles (wlayout=w6a16_16x128)
//===----------------------------------------------------------------------===//

/// The W6A16 layout as its definition reads, walking the output in order:
/// tiles row-tile major, then K-tile; in each, the 16-byte heads of lanes
/// 0..63, then their 8-byte tails; lane l is row l % 16 and scale block
/// l / 16 of the tile. `rowMajorLanes` (lane = 4 r + s) is the wrong order
/// the negative control uses.
std::vector<uint8_t> w6a16Walk(const std::vector<uint8_t> &plain, size_t n, size_t k,
                               bool rowMajorLanes = false) {
  const size_t rowBytes = k / 32 * 24;
  std::vector<uint8_t> out;
  for (size_t a = 0; a < n / 16; ++a)
    for (size_t b = 0; b < k / 128; ++b)
      for (size_t part = 0; part < 2; ++part)
        for (size_t l = 0; l < 64; ++l) {
          size_t r = rowMajorLanes ? l / 4 : l % 16, s = rowMajorLanes ? l % 4 : l / 16;
          const uint8_t *lane = plain.data() + (16 * a + r) * rowBytes + (4 * b + s) * 24;
          if (part == 0)
            out.insert(out.end(), lane, lane + 16);
          else
            out.insert(out.end(), lane + 16, lane + 24);
        }
  return out;
}

TEST(WeightW6A16Tiles, HandComputedPositions) {
  struct Case {
    size_t n, k, row, block, byte, expected;
  };
  const Case cases[] = {
      // One tile (n=16, k=128, 96 plain bytes a row).
      {16, 128, 0, 0, 0, 0},        // lane 0's head starts the tile
      {16, 128, 1, 0, 0, 16},       // lane 1 = row 1, block 0
      {16, 128, 0, 1, 0, 256},      // lane 16 = row 0, block 1
      {16, 128, 15, 3, 15, 1023},   // lane 63's last head byte ends the heads
      {16, 128, 0, 0, 16, 1024},    // lane 0's tail starts after the 1024 head bytes
      {16, 128, 2, 1, 20, 1172},    // lane 18: 1024 + 18*8 + (20 - 16)
      {16, 128, 15, 3, 23, 1535},   // lane 63's last tail byte ends the tile
      // n=32, k=256: two K tiles per row tile, tile (a, b) at (2a + b) * 1536.
      {32, 256, 17, 5, 3, 4883},    // a=1, b=1, lane 17: 3*1536 + 17*16 + 3
      {32, 256, 16, 0, 23, 4103},   // a=1, b=0, lane 0: 2*1536 + 1024 + 7
      {32, 256, 3, 4, 16, 1536 + 1024 + 3 * 8}, // a=0, b=1, lane 3's tail
  };
  for (const Case &t : cases) {
    SCOPED_TRACE("n " + std::to_string(t.n) + ", k " + std::to_string(t.k) + ", row " +
                 std::to_string(t.row) + ", block " + std::to_string(t.block) + ", byte " +
                 std::to_string(t.byte));
    EXPECT_EQ(w6a16TileIndex(t.row, t.block, t.byte, t.k), t.expected);
    const size_t rowBytes = t.k / 32 * 24;
    std::vector<uint8_t> plain(t.n * rowBytes, 0);
    plain[t.row * rowBytes + t.block * 24 + t.byte] = 0xAB;
    Result<std::vector<uint8_t>> out = tileWeightsW6A16(plain.data(), t.n, t.k);
    ASSERT_TRUE(out.ok()) << out.error();
    ASSERT_EQ(out.value().size(), plain.size()); // n * k * 6/8, as plain
    for (size_t i = 0; i < plain.size(); ++i)
      ASSERT_EQ(out.value()[i], i == t.expected ? 0xAB : 0x00) << "at " << i;
  }
}

TEST(WeightW6A16Tiles, EveryByteOfOneTile) {
  // Byte j of lane (row r, block s) holds a value that names it: the tile
  // must be heads of lanes 0..63, then their tails, lane = 16 s + r.
  std::vector<uint8_t> plain(16 * 96);
  for (size_t r = 0; r < 16; ++r)
    for (size_t s = 0; s < 4; ++s)
      for (size_t j = 0; j < 24; ++j)
        plain[r * 96 + s * 24 + j] = uint8_t((16 * s + r) * 3 + j / 8); // lane, dword pair
  Result<std::vector<uint8_t>> out = tileWeightsW6A16(plain.data(), 16, 128);
  ASSERT_TRUE(out.ok()) << out.error();
  for (size_t l = 0; l < 64; ++l) {
    for (size_t j = 0; j < 16; ++j) // the dwordx4 at 16 l: the lane's bytes 0..15
      ASSERT_EQ(out.value()[16 * l + j], uint8_t(l * 3 + j / 8)) << "lane " << l << " head " << j;
    for (size_t j = 0; j < 8; ++j) // the dwordx2 at 1024 + 8 l: bytes 16..23
      ASSERT_EQ(out.value()[1024 + 8 * l + j], uint8_t(l * 3 + 2)) << "lane " << l << " tail " << j;
  }
}

TEST(WeightW6A16Tiles, MatchesDefinitionAndRoundTrips) {
  std::mt19937_64 rng(testing::testSeed("WeightW6A16Tiles.MatchesDefinitionAndRoundTrips"));
  std::uniform_int_distribution<size_t> tilesN(1, 12), tilesK(1, 12);
  for (int iter = 0; iter < 60; ++iter) {
    const size_t n = 16 * tilesN(rng), k = 128 * tilesK(rng), rowBytes = k / 32 * 24;
    SCOPED_TRACE("n " + std::to_string(n) + ", k " + std::to_string(k));
    std::vector<uint8_t> plain = randomBytes(rng, n * rowBytes);

    Result<std::vector<uint8_t>> tiled = tileWeightsW6A16(plain.data(), n, k);
    ASSERT_TRUE(tiled.ok()) << tiled.error();
    ASSERT_EQ(firstMismatch(tiled.value(), w6a16Walk(plain, n, k)), "");

    // Row by row (the host path's way) gives the same bytes.
    std::vector<uint8_t> byRows(plain.size(), 0);
    for (size_t row = 0; row < n; ++row)
      tileRowW6A16(plain.data() + row * rowBytes, row, k, byRows.data());
    ASSERT_EQ(firstMismatch(byRows, tiled.value()), "");

    Result<std::vector<uint8_t>> back = untileWeightsW6A16(tiled.value().data(), n, k);
    ASSERT_TRUE(back.ok()) << back.error();
    ASSERT_EQ(firstMismatch(back.value(), plain), "");

    // And the other way round: untile first, tile back.
    Result<std::vector<uint8_t>> un = untileWeightsW6A16(plain.data(), n, k);
    ASSERT_TRUE(un.ok()) << un.error();
    Result<std::vector<uint8_t>> re = tileWeightsW6A16(un.value().data(), n, k);
    ASSERT_TRUE(re.ok()) << re.error();
    ASSERT_EQ(firstMismatch(re.value(), plain), "");
  }
}

TEST(WeightW6A16Tiles, NegativeControlWrongLaneOrderIsCaught) {
  // The definition walk above would notice a layout with row-major lanes
  // (lane = 4 r + s) or the plain bytes left in place.
  std::mt19937_64 rng(testing::testSeed("WeightW6A16Tiles.NegativeControlWrongLaneOrderIsCaught"));
  const size_t n = 32, k = 256;
  std::vector<uint8_t> plain = randomBytes(rng, n * k / 32 * 24);
  Result<std::vector<uint8_t>> tiled = tileWeightsW6A16(plain.data(), n, k);
  ASSERT_TRUE(tiled.ok()) << tiled.error();
  EXPECT_NE(firstMismatch(tiled.value(), w6a16Walk(plain, n, k, /*rowMajorLanes=*/true)), "");
  EXPECT_NE(firstMismatch(tiled.value(), plain), "");
}

TEST(WeightW6A16Tiles, RejectsBadShapes) {
  uint8_t dummy[64] = {};
  struct Case {
    size_t n, k;
    const uint8_t *data;
    std::vector<std::string> needles;
  };
  const size_t hugeN = size_t(1) << 60; // a multiple of 16 whose byte count overflows
  const Case cases[] = {
      {0, 128, dummy, {"n (rows) = 0", "empty"}},
      {16, 0, dummy, {"k (elements per row) = 0", "empty"}},
      {15, 128, dummy, {"n (rows) = 15", "multiple of 16"}},
      {24, 128, dummy, {"n (rows) = 24", "multiple of 16"}},
      {16, 96, dummy, {"k (elements per row) = 96", "multiple of 128"}},
      {16, 64, dummy, {"k (elements per row) = 64", "multiple of 128"}},
      {16, 128, nullptr, {"null"}},
      {hugeN, 1024, dummy, {"overflows", std::to_string(hugeN)}},
  };
  for (const Case &t : cases) {
    SCOPED_TRACE("n " + std::to_string(t.n) + ", k " + std::to_string(t.k));
    Result<std::vector<uint8_t>> fwd = tileWeightsW6A16(t.data, t.n, t.k);
    ASSERT_FALSE(fwd.ok());
    EXPECT_TRUE(contains(fwd.error(), "tileWeightsW6A16")) << fwd.error();
    Result<std::vector<uint8_t>> inv = untileWeightsW6A16(t.data, t.n, t.k);
    ASSERT_FALSE(inv.ok());
    EXPECT_TRUE(contains(inv.error(), "untileWeightsW6A16")) << inv.error();
    for (const std::string &needle : t.needles) {
      EXPECT_TRUE(contains(fwd.error(), needle)) << fwd.error() << " lacks " << needle;
      EXPECT_TRUE(contains(inv.error(), needle)) << inv.error() << " lacks " << needle;
    }
  }
}

} // namespace
} // namespace mxf
