//===- rotation.h - Block-diagonal online rotations --------------*- C++ -*-===//
//
// x is split into K/RS consecutive blocks of RS channels and each block is
// multiplied by an RS x RS matrix: y_b = x_b . R (or R_b per block). The
// summation order is part of the definition, because kernels must reproduce
// it bit for bit (docs/numerics.md, "Rotation"):
//  - matrix paths (hadamard, learned, learned_per_block): for each output
//    channel j, input channels are taken in chunks of `chunk` (32 = one
//    v_mfma_f32_16x16x32_bf16) in ascending order; each chunk's exact dot
//    product is added to an f32 accumulator (initially +0) with one rounding
//    to nearest even. Hadamard uses the matrix rounded to bf16.
//  - butterfly path (hadamard_butterfly): f32 stages h = 1, 2, 4, ..., RS/2,
//    (a, b) -> (a + b, a - b), each rounded; then one f32 multiply by
//    f32(1/sqrt(RS)).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_NUMERICS_ROTATION_H
#define MXFORGE_NUMERICS_ROTATION_H

#include "numerics/options.h"
#include "support/status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxf {

constexpr int kSupportedRotationSizes[] = {32, 64, 128, 256};
constexpr int kMfmaBf16ChunkK = 32; // K of v_mfma_f32_16x16x32_bf16

struct RotationConfig {
  RotationKind kind = RotationKind::None;
  int rs = 0;                  // rotation block size; 0 for RotationKind::None
  int chunk = kMfmaBf16ChunkK; // matrix paths: channels summed exactly per step
  /// Learned kinds: xr, the matrices are R[in][out]; xrt, they are R[out][in]
  /// (y = x . R^T). Same products and order, only the storage differs.
  RotationConvention convention = RotationConvention::XR;
};

/// f32(1/sqrt(rs)), correctly rounded.
float hadamardNormF32(int rs);

/// rot=hadamard_butterfly on one block of `rs` bf16 values: the f32
/// Sylvester-order butterfly (stage h = 1, 2, ..., rs/2), then the f32 norm.
/// The stage order is the definition the kernel and the host path follow.
void butterflyRotateBlock(const uint16_t *x, int rs, float *y);
/// The sign of Sylvester Hadamard entry (i, j): (-1)^popcount(i & j).
int hadamardSign(int i, int j);
/// Sylvester Hadamard matrix, entry (i, j) = (-1)^popcount(i & j) / sqrt(rs),
/// each entry rounded to bf16 (the matrix the MFMA path multiplies by).
std::vector<uint16_t> hadamardMatrixBf16(int rs);

/// Number of bf16 values a learned rotation takes: rs*rs, or (K/rs)*rs*rs
/// per block; 0 for the others.
size_t rotationMatrixElements(RotationKind kind, int rs, size_t k);

/// A learned rotation's matrices as R[in][out] (convention xr): a copy of
/// `matrices` for xr, every block transposed for xrt. For host paths that
/// read R[in][out] directly.
std::vector<uint16_t> learnedMatricesXR(const RotationConfig &config, size_t k,
                                        const uint16_t *matrices);

/// Check the configuration against K: rs in the supported set, K a multiple
/// of rs, chunk dividing rs.
Status checkRotation(const RotationConfig &config, size_t k);

/// Rotate one row of K bf16 values into f32 y. `matrices` is the learned
/// rotation (row-major R[in][out], or R[out][in] under convention xrt; per
/// block: K/rs such matrices), ignored for other kinds.
/// Precondition: checkRotation(config, k).ok().
void rotateRow(const RotationConfig &config, const uint16_t *x, size_t k,
               const uint16_t *matrices, float *y);

} // namespace mxf

#endif // MXFORGE_NUMERICS_ROTATION_H
