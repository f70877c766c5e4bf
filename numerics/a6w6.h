//===- a6w6.h - AITER's A6W6 activation contract (numerics) -----*- C++ -*-===//
//
// The three pieces of AITER's A6W6 (MXFP6 E2M3 x MXFP6 E2M3) GEMM operands
// that no other mxforge rule covers (docs/a6w6.md has the facts and their
// sources): its scale byte, its element rounding and its packed tile layout
// mxfp6_c0c1_256_padk2. The mandatory 32-point Hadamard is rot=hadamard at
// RS=32 (numerics/rotation.h), whose matrix is the bf16-rounded one AITER's
// torch and Triton paths use. The spec values scale=a6w6, round=rna and
// layout=mxfp6_c0c1_256_padk2, the host paths and the kernels share these
// definitions.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_NUMERICS_A6W6_H
#define MXFORGE_NUMERICS_A6W6_H

#include "support/status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxf {

/// The E8M0 byte of a block whose absolute maximum is `amax`, from amax's
/// f32 exponent field E, as AITER's HIP packer computes it: 127 for
/// amax = 0; 0 for a subnormal amax (E = 0); 254 for E = 255 (Inf; NaN too,
/// though AITER's maximum drops NaN lanes); otherwise clamp(E - 129, -127,
/// 127) + 127 = max(E - 2, 0), i.e. floor(log2 amax) - 2 exactly. (AITER's
/// torch and Triton paths take an f32 log2, which rounds up for a handful of
/// amax just below a power of two: docs/a6w6.md.)
uint8_t a6w6ScaleByte(float amax);

/// The E2M3 code of x * 2^-(scaleByte - 127) under AITER's element rounding
/// (its Triton packer and torch reference): s = x scaled in f32; a = min(|s|,
/// 7.5); in the binade a falls in, q = 8 (a < 2), 4 (a < 4) or 2, the code
/// offset 0, 8 or 16; magnitude code = floor(a*q + 0.5) + offset in f32 (ties
/// away from zero; f32's rounding of +0.5 sends a = 2^-4 - 2^-28 to code 1);
/// sign bit 0x20 when s < 0, so -0.0 gets 0 and a negative value that rounds
/// to zero gets 0x20. NaN gets code 0 (our choice: AITER's HIP packer zeroes
/// an all-NaN block; its other paths leave NaN undefined).
uint8_t encodeE2M3HalfAway(float x, uint8_t scaleByte);

/// mxfp6_c0c1_256_padk2: tiles of 256 rows x 128 K, each 24576 code bytes
/// (region C0, 16 bytes per 32-block, then C1, 8 bytes per 32-block) and 1024
/// scale bytes; rows padded to 256, K to 128, and two guard tiles after each
/// row tile's K tiles.
constexpr size_t kA6W6TileRows = 256;
constexpr size_t kA6W6TileK = 128;
constexpr size_t kA6W6TileCodeBytes = 24576;
constexpr size_t kA6W6TileHeadBytes = 16384; // C0: 1024 blocks x 16 bytes
constexpr size_t kA6W6TileScaleBytes = 1024;
constexpr size_t kA6W6GuardTiles = 2;
/// What padding rows, padded K blocks and guard tiles hold (AITER's torch
/// fallback writes these; its GPU packers leave them unspecified).
constexpr uint8_t kA6W6PadCode = 0x00;
constexpr uint8_t kA6W6PadScale = 127;

struct A6W6Shape {
  size_t rowTiles = 0;     // ceil(rows / 256)
  size_t kTilesPerRow = 0; // ceil(K / 128) + 2 guard tiles
  size_t codeBytes() const { return rowTiles * kTilesPerRow * kA6W6TileCodeBytes; }
  size_t scaleBytes() const { return rowTiles * kTilesPerRow * kA6W6TileScaleBytes; }
  /// The two buffers as matrices of paddedRows() rows (the kernel ABI's
  /// shapes): a row tile is 256 rows of codeRowBytes() (3/4 of K padded to
  /// 128, plus the guard tiles' 256 K) and of scaleRowBytes() bytes. The
  /// bytes inside a row tile are in tile order, not row order.
  size_t paddedRows() const { return rowTiles * kA6W6TileRows; }
  size_t codeRowBytes() const { return kTilesPerRow * kA6W6TileCodeBytes / kA6W6TileRows; }
  size_t scaleRowBytes() const { return kTilesPerRow * kA6W6TileScaleBytes / kA6W6TileRows; }
};

/// Checks rows >= 1, K a positive multiple of 32 and that the buffers' sizes
/// fit size_t; the message names the argument.
Status checkA6W6Args(size_t rows, size_t k);
/// Precondition: checkA6W6Args(rows, k).ok().
A6W6Shape a6w6Shape(size_t rows, size_t k);

/// Offset of byte j (0..23) of 32-block `block` of row `row` (the block's
/// 24 bytes are its 32 codes as one little-endian 6-bit stream, as
/// numerics' packCodes writes them) in the code buffer.
size_t a6w6CodeOffset(size_t row, size_t block, size_t j, size_t k);
/// Offset of the scale byte of (row, block) in the scale buffer.
size_t a6w6ScaleOffset(size_t row, size_t block, size_t k);

struct A6W6Operand {
  std::vector<uint8_t> codes;  // A6W6Shape::codeBytes()
  std::vector<uint8_t> scales; // A6W6Shape::scaleBytes()
};

/// Plain fp6 bytes [rows, K*3/4] and plain scales [rows, K/32] -> the
/// layout; every byte no row writes holds kA6W6PadCode / kA6W6PadScale.
Result<A6W6Operand> packA6W6(const uint8_t *codes, const uint8_t *scales, size_t rows, size_t k);
/// The inverse: back to plain codes [rows, K*3/4] and scales [rows, K/32].
Result<A6W6Operand> unpackA6W6(const A6W6Operand &packed, size_t rows, size_t k);

} // namespace mxf

#endif // MXFORGE_NUMERICS_A6W6_H
