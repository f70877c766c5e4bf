//===- layouts.h - Scale and weight layouts engines consume ------*- C++ -*-===//
//
// AITER's layouts (../shared/docs/MX_LAYOUTS.md): the a4w4 scale shuffle of
// gemm_a4w4 and the (16, 16) weight preshuffle. Each forward map has an
// inverse; docs/layouts.md gives the index formulas.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_NUMERICS_LAYOUTS_H
#define MXFORGE_NUMERICS_LAYOUTS_H

#include "numerics/status.h"

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

/// Shuffle a row-major [rows, cols] scale matrix; padding gets kScalePadByte.
/// Empty result on arguments checkA4W4ScaleArgs rejects or a null `plain`.
std::vector<uint8_t> shuffleScalesA4W4(const uint8_t *plain, size_t rows, size_t cols,
                                       size_t rowPadding);
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

} // namespace mxf

#endif // MXFORGE_NUMERICS_LAYOUTS_H
