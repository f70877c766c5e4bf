//===- layouts.cpp - Scale and weight layouts engines consume -------------===//
//
// Reference (host) implementations of AITER's a4w4 scale shuffle and (16, 16)
// weight preshuffle, and of mxforge's W6A16 tile layout of fp6 weights. These are the byte-exact oracles the generated kernels
// are checked against, so they favour the plainest possible loops over speed;
// docs/layouts.md derives every index formula.
//
//===----------------------------------------------------------------------===//

#include "numerics/layouts.h"

#include <algorithm>
#include <limits>
#include <string>

namespace mxf {
namespace {

constexpr size_t kSizeMax = std::numeric_limits<size_t>::max();

// A scale tile of the a4w4 shuffle covers 32 rows x 8 columns (256 bytes).
constexpr size_t kScaleTileRows = 32;
constexpr size_t kScaleTileCols = 8;

// The (16, 16) weight preshuffle works on 16-row x 32-byte tiles.
constexpr size_t kWeightTileRows = 16;
constexpr size_t kWeightTileBytes = 32;

/// Rounds `value` up to a multiple of `multiple` (> 0); false on overflow.
bool roundUp(size_t value, size_t multiple, size_t &out) {
  size_t rem = value % multiple;
  if (rem == 0) {
    out = value;
    return true;
  }
  size_t add = multiple - rem;
  if (value > kSizeMax - add)
    return false;
  out = value + add;
  return true;
}

/// `a * b`; false on overflow.
bool mulChecked(size_t a, size_t b, size_t &out) {
  if (a != 0 && b > kSizeMax / a)
    return false;
  out = a * b;
  return true;
}

/// Validates the arguments of the scale shuffle and computes the padded shape
/// and its byte count. Every a4w4 entry point goes through here so the checks
/// cannot drift apart.
Status checkScaleArgs(size_t rows, size_t cols, size_t rowPadding, ScaleShape &shape,
                      size_t &bytes) {
  if (rowPadding == 0 || rowPadding % kScaleTileRows != 0)
    return Status::failure("a4w4 scale shuffle: rowPadding = " + std::to_string(rowPadding) +
                           " must be a positive multiple of 32 (256 for gemm_a4w4, 32 for "
                           "MoE-sorted rows)");
  if (!roundUp(rows, rowPadding, shape.rows))
    return Status::failure("a4w4 scale shuffle: rows = " + std::to_string(rows) +
                           " overflows size_t when padded to a multiple of " +
                           std::to_string(rowPadding));
  if (!roundUp(cols, kScaleTileCols, shape.cols))
    return Status::failure("a4w4 scale shuffle: cols = " + std::to_string(cols) +
                           " overflows size_t when padded to a multiple of 8");
  if (!mulChecked(shape.rows, shape.cols, bytes))
    return Status::failure("a4w4 scale shuffle: padded size " + std::to_string(shape.rows) + " x " +
                           std::to_string(shape.cols) + " overflows size_t");
  // a4w4ScaleIndex's largest intermediate is (row/32 * sN) * 32 <= rows * cols
  // (rows is a multiple of 32), which the product above already bounds, so
  // no index computed for an in-range (row, col) can wrap.
  return Status::success();
}

/// Validates the arguments of the weight preshuffle; `what` names the caller
/// in the message.
Status checkWeightArgs(const char *what, const void *data, size_t n, size_t kBytes, size_t &bytes) {
  std::string prefix = std::string(what) + ": ";
  if (n == 0)
    return Status::failure(prefix + "n (rows) = 0; the matrix must not be empty");
  if (kBytes == 0)
    return Status::failure(prefix + "kBytes (packed bytes per row) = 0; the matrix must not "
                                    "be empty");
  if (n % kWeightTileRows != 0)
    return Status::failure(prefix + "n (rows) = " + std::to_string(n) +
                           " is not a multiple of 16 (layout (16, 16) tiles 16 rows)");
  if (kBytes % kWeightTileBytes != 0)
    return Status::failure(prefix + "kBytes (packed bytes per row) = " + std::to_string(kBytes) +
                           " is not a multiple of 32 (layout (16, 16) tiles 32 bytes = 64 "
                           "fp4 elements along K)");
  if (!mulChecked(n, kBytes, bytes))
    return Status::failure(prefix + "size n x kBytes = " + std::to_string(n) + " x " +
                           std::to_string(kBytes) + " overflows size_t");
  if (data == nullptr)
    return Status::failure(prefix + "input pointer is null");
  return Status::success();
}

/// Flat index of packed byte (row, colByte) of an [n, kBytes] matrix in the
/// (16, 16) preshuffled layout. The view (n/16, 16, kBytes/32, 2, 16) splits
/// row = a*16 + r and colByte = b*32 + h*16 + c; permute(0, 2, 3, 1, 4) stores
/// (a, b, h, r, c) row-major, i.e. strides (16*kBytes, 512, 256, 16, 1).
size_t weightIndex16x16(size_t row, size_t colByte, size_t kBytes) {
  size_t a = row / 16, r = row % 16;
  size_t b = colByte / 32, h = (colByte % 32) / 16, c = colByte % 16;
  return a * 16 * kBytes + b * 512 + h * 256 + r * 16 + c;
}

constexpr size_t kW6A16LanesPerTile = 64;
constexpr size_t kW6A16BlocksPerTile = kW6A16TileK / 32;
static_assert(kW6A16LanesPerTile == kW6A16TileRows * kW6A16BlocksPerTile);
static_assert(kW6A16TileBytes == kW6A16LanesPerTile * kW6A16LaneBytes);

/// Which way convertW6A16 moves the bytes.
enum class TileDirection { ToTiles, FromTiles };

Result<std::vector<uint8_t>> convertW6A16(const char *what, const uint8_t *in, size_t n, size_t k,
                                          TileDirection direction) {
  if (Status status = checkW6A16Args(what, n, k); !status.ok())
    return status;
  if (in == nullptr)
    return Status::failure(std::string(what) + ": input pointer is null");
  const size_t rowBytes = k / 32 * kW6A16LaneBytes;
  std::vector<uint8_t> out(n * rowBytes);
  for (size_t row = 0; row < n; ++row)
    for (size_t block = 0; block < k / 32; ++block)
      for (size_t byte = 0; byte < kW6A16LaneBytes; ++byte) {
        size_t plain = row * rowBytes + block * kW6A16LaneBytes + byte;
        size_t tiled = w6a16TileIndex(row, block, byte, k);
        if (direction == TileDirection::ToTiles)
          out[tiled] = in[plain];
        else
          out[plain] = in[tiled];
      }
  return out;
}

} // namespace

Status checkA4W4ScaleArgs(size_t rows, size_t cols, size_t rowPadding) {
  ScaleShape shape;
  size_t bytes;
  return checkScaleArgs(rows, cols, rowPadding, shape, bytes);
}

ScaleShape a4w4ShuffledShape(size_t rows, size_t cols, size_t rowPadding) {
  ScaleShape shape{0, 0};
  size_t bytes;
  if (!checkScaleArgs(rows, cols, rowPadding, shape, bytes).ok())
    return ScaleShape{0, 0};
  return shape;
}

size_t a4w4ScaleIndex(size_t row, size_t col, size_t paddedCols) {
  // AITER csrc/include/mx_quant_utils.h: mx_scale_shuffle_idx (formerly
  // fp4_scale_shuffle_idx). Each 32x8 tile is 256 contiguous bytes; inside
  // it the byte is lane*4 + iter with lane = (col%4)*16 + row%16 and
  // iter = ((col%8)/4)*2 + (row%32)/16, so one 32-bit load per lane fetches
  // the four scales the MFMA needs.
  return (row / 32 * paddedCols) * 32 + (col / 8) * 256 + (col % 4) * 64 + (row % 16) * 4 +
         ((col % 8) / 4) * 2 + (row % 32) / 16;
}

std::vector<uint8_t> shuffleScalesA4W4(const uint8_t *plain, size_t rows, size_t cols,
                                       size_t rowPadding, uint8_t padByte) {
  ScaleShape shape;
  size_t bytes;
  if (!checkScaleArgs(rows, cols, rowPadding, shape, bytes).ok())
    return {};
  if (rows != 0 && cols != 0 && plain == nullptr)
    return {};
  // Fill first, then scatter: every padded position keeps padByte.
  std::vector<uint8_t> out(bytes, padByte);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      out[a4w4ScaleIndex(r, c, shape.cols)] = plain[r * cols + c];
  return out;
}

std::vector<uint8_t> unshuffleScalesA4W4(const uint8_t *shuffled, size_t rows, size_t cols,
                                         size_t rowPadding) {
  ScaleShape shape;
  size_t bytes;
  if (!checkScaleArgs(rows, cols, rowPadding, shape, bytes).ok())
    return {};
  if (rows != 0 && cols != 0 && shuffled == nullptr)
    return {};
  std::vector<uint8_t> out(rows * cols);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      out[r * cols + c] = shuffled[a4w4ScaleIndex(r, c, shape.cols)];
  return out;
}

Result<std::vector<uint8_t>> preshuffleWeights16x16(const uint8_t *packed, size_t n,
                                                    size_t kBytes) {
  size_t bytes;
  Status status = checkWeightArgs("preshuffleWeights16x16", packed, n, kBytes, bytes);
  if (!status.ok())
    return status;
  std::vector<uint8_t> out(bytes);
  for (size_t r = 0; r < n; ++r)
    for (size_t c = 0; c < kBytes; ++c)
      out[weightIndex16x16(r, c, kBytes)] = packed[r * kBytes + c];
  return out;
}

Result<std::vector<uint8_t>> unpreshuffleWeights16x16(const uint8_t *shuffled, size_t n,
                                                      size_t kBytes) {
  size_t bytes;
  Status status = checkWeightArgs("unpreshuffleWeights16x16", shuffled, n, kBytes, bytes);
  if (!status.ok())
    return status;
  std::vector<uint8_t> out(bytes);
  for (size_t r = 0; r < n; ++r)
    for (size_t c = 0; c < kBytes; ++c)
      out[r * kBytes + c] = shuffled[weightIndex16x16(r, c, kBytes)];
  return out;
}

W6A16LaneOffsets w6a16LaneOffsets(size_t row, size_t block, size_t k) {
  const size_t tileRow = row / kW6A16TileRows, rowInTile = row % kW6A16TileRows;
  const size_t tileK = block / kW6A16BlocksPerTile, blockInTile = block % kW6A16BlocksPerTile;
  const size_t lane = blockInTile * kW6A16TileRows + rowInTile;
  const size_t tile = (tileRow * (k / kW6A16TileK) + tileK) * kW6A16TileBytes;
  // All heads first, then all tails: a wave's 64 dwordx4 loads (and then its
  // 64 dwordx2 loads) each read one contiguous span of the tile.
  return {tile + lane * kW6A16LaneHeadBytes,
          tile + kW6A16LanesPerTile * kW6A16LaneHeadBytes +
              lane * (kW6A16LaneBytes - kW6A16LaneHeadBytes)};
}

size_t w6a16TileIndex(size_t row, size_t block, size_t byte, size_t k) {
  W6A16LaneOffsets lane = w6a16LaneOffsets(row, block, k);
  return byte < kW6A16LaneHeadBytes ? lane.head + byte : lane.tail + (byte - kW6A16LaneHeadBytes);
}

Status checkW6A16Args(const char *what, size_t n, size_t k) {
  std::string prefix = std::string(what) + ": ";
  if (n == 0)
    return Status::failure(prefix + "n (rows) = 0; the matrix must not be empty");
  if (k == 0)
    return Status::failure(prefix + "k (elements per row) = 0; the matrix must not be empty");
  if (n % kW6A16TileRows != 0)
    return Status::failure(prefix + "n (rows) = " + std::to_string(n) +
                           " is not a multiple of 16 (w6a16_16x128 tiles 16 rows)");
  if (k % kW6A16TileK != 0)
    return Status::failure(prefix + "k (elements per row) = " + std::to_string(k) +
                           " is not a multiple of 128 (w6a16_16x128 tiles 128 K = 4 scale "
                           "blocks)");
  size_t bytes;
  if (!mulChecked(n, k / 32 * kW6A16LaneBytes, bytes))
    return Status::failure(prefix + "size n x k = " + std::to_string(n) + " x " +
                           std::to_string(k) + " overflows size_t");
  return Status::success();
}

void tileRowW6A16(const uint8_t *packedRow, size_t row, size_t k, uint8_t *tiled) {
  for (size_t block = 0; block < k / 32; ++block) {
    const uint8_t *lane = packedRow + block * kW6A16LaneBytes;
    W6A16LaneOffsets at = w6a16LaneOffsets(row, block, k);
    std::copy_n(lane, kW6A16LaneHeadBytes, tiled + at.head);
    std::copy_n(lane + kW6A16LaneHeadBytes, kW6A16LaneBytes - kW6A16LaneHeadBytes,
                tiled + at.tail);
  }
}

Result<std::vector<uint8_t>> tileWeightsW6A16(const uint8_t *packed, size_t n, size_t k) {
  return convertW6A16("tileWeightsW6A16", packed, n, k, TileDirection::ToTiles);
}

Result<std::vector<uint8_t>> untileWeightsW6A16(const uint8_t *tiled, size_t n, size_t k) {
  return convertW6A16("untileWeightsW6A16", tiled, n, k, TileDirection::FromTiles);
}

} // namespace mxf
