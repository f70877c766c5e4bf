//===- layouts.h - Scale and weight layouts engines consume ------*- C++ -*-===//
//
// AITER's layouts (../shared/docs/MX_LAYOUTS.md): the a4w4 scale shuffle of
// gemm_a4w4 and the (16, 16) weight preshuffle; and mxforge's W6A16 tile
// layout of fp6_e2m3 weights (seed 003). Each forward map has an inverse;
// docs/layouts.md gives the index formulas.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_NUMERICS_LAYOUTS_H
#define MXFORGE_NUMERICS_LAYOUTS_H

#include "support/status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxf {

/// Padding byte of shuffled scale matrices: E8M0 0x7F is the scale 1.0, so
/// padding is deterministic and harmless if a consumer ever reads it.
constexpr uint8_t kScalePadByte = 0x7F;

struct ScaleShape {
  size_t rows;
  size_t cols;
};

/// Checks the arguments of the a4w4 scale functions below: `rowPadding` a
/// positive multiple of 32, and the padded shape and its byte count fit in
/// size_t. The message names the offending argument. Those functions cannot
/// return a message themselves; on arguments this rejects they return {0, 0}
/// or an empty vector, so callers with untrusted sizes check here first.
Status checkA4W4ScaleArgs(size_t rows, size_t cols, size_t rowPadding);

/// Shape of a shuffled scale matrix: rows padded to `rowPadding` (256 for
/// gemm_a4w4 activations/weights, 32 for MoE-sorted rows), columns to 8.
/// `rowPadding` must be a positive multiple of 32.
ScaleShape a4w4ShuffledShape(size_t rows, size_t cols, size_t rowPadding);

/// Flat index of logical scale (row, col) inside a shuffled matrix whose
/// padded column count is `paddedCols` (AITER mx_scale_shuffle_idx).
size_t a4w4ScaleIndex(size_t row, size_t col, size_t paddedCols);

/// Shuffle a row-major [rows, cols] scale matrix; padding gets `padByte`
/// (kScalePadByte for gemm_a4w4, 0 for MoE-sorted scales).
/// Empty result on arguments checkA4W4ScaleArgs rejects or a null `plain`.
std::vector<uint8_t> shuffleScalesA4W4(const uint8_t *plain, size_t rows, size_t cols,
                                       size_t rowPadding, uint8_t padByte = kScalePadByte);
/// Inverse of shuffleScalesA4W4 (drops the padding).
std::vector<uint8_t> unshuffleScalesA4W4(const uint8_t *shuffled, size_t rows, size_t cols,
                                         size_t rowPadding);

/// AITER shuffle_weight with layout (16, 16) on packed fp4 bytes [n, kBytes]:
/// view(n/16, 16, kBytes/32, 2, 16).permute(0, 2, 3, 1, 4).
/// Needs n % 16 == 0 and kBytes % 32 == 0.
Result<std::vector<uint8_t>> preshuffleWeights16x16(const uint8_t *packed, size_t n,
                                                    size_t kBytes);
Result<std::vector<uint8_t>> unpreshuffleWeights16x16(const uint8_t *shuffled, size_t n,
                                                      size_t kBytes);

/// The W6A16 tile layout (wlayout=w6a16_16x128) of fp6_e2m3 weights [n, k]:
/// one 32-element scale block of one row is 24 bytes of plain fp6 packing
/// (packing.h). A tile holds 16 rows x 128 K = 64 such "lanes", lane
/// l = (row l % 16, block l / 16 of the tile), and is 1536 bytes: the first
/// 16 bytes of every lane (lane-major, 1024 bytes), then the last 8 bytes of
/// every lane (512 bytes), so that a lane loads one dwordx4 at tile + 16 l
/// and one dwordx2 at tile + 1024 + 8 l. Tile (a, b) (rows 16a.., K 128b..)
/// starts at byte (a * k/128 + b) * 1536. The total is n * k * 3/4 bytes,
/// the same as plain packing. Needs n % 16 == 0 and k % 128 == 0.
constexpr size_t kW6A16TileRows = 16;
constexpr size_t kW6A16TileK = 128;
constexpr size_t kW6A16TileBytes = 1536;
constexpr size_t kW6A16LaneBytes = 24;     // one scale block of fp6 codes
constexpr size_t kW6A16LaneHeadBytes = 16; // the dwordx4 part of a lane

/// Where the bytes of scale block `block` of row `row` lie in a tiled
/// [n, k] matrix: bytes 0..15 at `head`, bytes 16..23 at `tail`.
struct W6A16LaneOffsets {
  size_t head;
  size_t tail;
};
W6A16LaneOffsets w6a16LaneOffsets(size_t row, size_t block, size_t k);

/// Flat index of byte `byte` (0..23) of block `block` of row `row`.
size_t w6a16TileIndex(size_t row, size_t block, size_t byte, size_t k);

/// Checks n, k and the byte count of a tiled matrix (the message names the
/// offending argument, prefixed by `what`).
Status checkW6A16Args(const char *what, size_t n, size_t k);

/// Scatters one row's plain fp6 bytes (k * 3/4 of them) into `tiled`, the
/// whole [n, k] tiled matrix. Arguments unchecked: callers run
/// checkW6A16Args first (the host path fills rows on several threads).
void tileRowW6A16(const uint8_t *packedRow, size_t row, size_t k, uint8_t *tiled);

/// Plain fp6 bytes [n, k * 3/4] -> the W6A16 tile layout, and back.
Result<std::vector<uint8_t>> tileWeightsW6A16(const uint8_t *packed, size_t n, size_t k);
Result<std::vector<uint8_t>> untileWeightsW6A16(const uint8_t *tiled, size_t n, size_t k);

} // namespace mxf

#endif // MXFORGE_NUMERICS_LAYOUTS_H
