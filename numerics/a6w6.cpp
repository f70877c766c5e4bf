//===- a6w6.cpp - AITER's A6W6 activation contract (numerics) -------------===//

#include "numerics/a6w6.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace mxf {
namespace {

constexpr size_t kBlock = 32;
constexpr size_t kBlockBytes = 24; // 32 six-bit codes
constexpr size_t kHeadBytesPerBlock = 16;
constexpr size_t kTailBytesPerBlock = 8;

uint32_t bitsOf(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

/// Where (row, block) lies: the tile's index in the buffer and the 32-block's
/// index inside the tile (blk = 64 rb + 16 kg + r16; AITER's
/// mxfp6_c0c1_256_padk2).
struct TilePlace {
  size_t tile;
  size_t rowInTile;
  size_t kGroup; // the 32-block's index in the tile's 128 K (0..3)
};

TilePlace placeOf(size_t row, size_t block, size_t k) {
  const A6W6Shape shape = a6w6Shape(1, k); // kTilesPerRow depends on K only
  const size_t kTile = block / (kA6W6TileK / kBlock);
  return {(row / kA6W6TileRows) * shape.kTilesPerRow + kTile, row % kA6W6TileRows,
          block % (kA6W6TileK / kBlock)};
}

} // namespace

uint8_t a6w6ScaleByte(float amax) {
  if (amax == 0.0f)
    return 127;
  const int exponent = int((bitsOf(amax) >> 23) & 0xFFu);
  int unbiased = exponent == 0 ? -127 : exponent == 0xFF ? 127 : exponent - 129;
  unbiased = unbiased < -127 ? -127 : unbiased > 127 ? 127 : unbiased;
  return uint8_t(unbiased + 127);
}

uint8_t encodeE2M3HalfAway(float x, uint8_t scaleByte) {
  const float s = std::ldexp(x, 127 - int(scaleByte)); // one f32 rounding, as x * 2^-se
  if (std::isnan(s))
    return 0;
  const float a = std::fabs(s) < 7.5f ? std::fabs(s) : 7.5f;
  const float q = a < 2.0f ? 8.0f : a < 4.0f ? 4.0f : 2.0f;
  const int offset = a < 2.0f ? 0 : a < 4.0f ? 8 : 16;
  // f32 arithmetic, as AITER's: a*q is exact (q a power of two), the +0.5
  // rounds to nearest even in f32.
  volatile float biased = a * q + 0.5f; // no contraction, no excess precision
  const int magnitude = int(std::floor(biased)) + offset;
  return uint8_t(magnitude | (s < 0.0f ? 0x20 : 0));
}

Status checkA6W6Args(size_t rows, size_t k) {
  if (rows == 0)
    return Status::failure("A6W6 layout: rows must be at least 1");
  if (k == 0 || k % kBlock != 0)
    return Status::failure("A6W6 layout: K=" + std::to_string(k) +
                           " must be a positive multiple of 32");
  const size_t rowTiles = rows / kA6W6TileRows + (rows % kA6W6TileRows != 0);
  const size_t kTiles = k / kA6W6TileK + (k % kA6W6TileK != 0) + kA6W6GuardTiles;
  if (rowTiles > std::numeric_limits<size_t>::max() / kTiles / kA6W6TileCodeBytes)
    return Status::failure("A6W6 layout: rows=" + std::to_string(rows) + " x K=" +
                           std::to_string(k) + " overflows size_t");
  return Status::success();
}

A6W6Shape a6w6Shape(size_t rows, size_t k) {
  A6W6Shape shape;
  shape.rowTiles = rows / kA6W6TileRows + (rows % kA6W6TileRows != 0);
  shape.kTilesPerRow = k / kA6W6TileK + (k % kA6W6TileK != 0) + kA6W6GuardTiles;
  return shape;
}

size_t a6w6CodeOffset(size_t row, size_t block, size_t j, size_t k) {
  const TilePlace place = placeOf(row, block, k);
  const size_t blk = (place.rowInTile / 16) * 64 + place.kGroup * 16 + place.rowInTile % 16;
  const size_t tileStart = place.tile * kA6W6TileCodeBytes;
  if (j < kHeadBytesPerBlock)
    return tileStart + blk * kHeadBytesPerBlock + j;
  return tileStart + kA6W6TileHeadBytes + blk * kTailBytesPerBlock + (j - kHeadBytesPerBlock);
}

size_t a6w6ScaleOffset(size_t row, size_t block, size_t k) {
  const TilePlace place = placeOf(row, block, k);
  const size_t half = place.rowInTile / 128, rowBlock = (place.rowInTile % 128) / 16;
  return place.tile * kA6W6TileScaleBytes + half * 512 + place.kGroup * 128 +
         (place.rowInTile % 16) * 8 + rowBlock;
}

Result<A6W6Operand> packA6W6(const uint8_t *codes, const uint8_t *scales, size_t rows,
                             size_t k) {
  if (Status s = checkA6W6Args(rows, k); !s.ok())
    return s;
  if (!codes || !scales)
    return Result<A6W6Operand>::failure("packA6W6: codes and scales must not be null");
  const A6W6Shape shape = a6w6Shape(rows, k);
  A6W6Operand out;
  out.codes.assign(shape.codeBytes(), kA6W6PadCode);
  out.scales.assign(shape.scaleBytes(), kA6W6PadScale);
  const size_t blocks = k / kBlock, rowBytes = blocks * kBlockBytes;
  for (size_t row = 0; row < rows; ++row)
    for (size_t block = 0; block < blocks; ++block) {
      for (size_t j = 0; j < kBlockBytes; ++j)
        out.codes[a6w6CodeOffset(row, block, j, k)] =
            codes[row * rowBytes + block * kBlockBytes + j];
      out.scales[a6w6ScaleOffset(row, block, k)] = scales[row * blocks + block];
    }
  return out;
}

Result<A6W6Operand> unpackA6W6(const A6W6Operand &packed, size_t rows, size_t k) {
  if (Status s = checkA6W6Args(rows, k); !s.ok())
    return s;
  const A6W6Shape shape = a6w6Shape(rows, k);
  if (packed.codes.size() != shape.codeBytes() || packed.scales.size() != shape.scaleBytes())
    return Result<A6W6Operand>::failure(
        "unpackA6W6: rows=" + std::to_string(rows) + ", K=" + std::to_string(k) + " need " +
        std::to_string(shape.codeBytes()) + " code and " + std::to_string(shape.scaleBytes()) +
        " scale bytes, got " + std::to_string(packed.codes.size()) + " and " +
        std::to_string(packed.scales.size()));
  const size_t blocks = k / kBlock, rowBytes = blocks * kBlockBytes;
  A6W6Operand out;
  out.codes.resize(rows * rowBytes);
  out.scales.resize(rows * blocks);
  for (size_t row = 0; row < rows; ++row)
    for (size_t block = 0; block < blocks; ++block) {
      for (size_t j = 0; j < kBlockBytes; ++j)
        out.codes[row * rowBytes + block * kBlockBytes + j] =
            packed.codes[a6w6CodeOffset(row, block, j, k)];
      out.scales[row * blocks + block] = packed.scales[a6w6ScaleOffset(row, block, k)];
    }
  return out;
}

} // namespace mxf
