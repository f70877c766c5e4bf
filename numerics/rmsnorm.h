//===- rmsnorm.h - Residual add + RMSNorm, the order defined ----*- C++ -*-===//
//
// The front end of the fused rmsnorm_rotate_quant family (issue 33 item 5;
// docs/rmsnorm_rotate_quant_design.md has the peers' conventions and why
// we follow HF and vLLM), defined bit for bit here first so that the
// reference and the kernel are written against one rule (docs/numerics.md,
// "RMSNorm"). For a row of K bf16 values x, an optional bf16 residual r, a
// bf16 gain g and eps (f32):
//
//   1. z_i = bf16(x_i + r_i) (z = x without a residual); z is what the
//      kernel writes back to r.
//   2. S = sumOfSquaresF32(z): the order below.
//   3. v = f32(S / K) + eps, two IEEE f32 roundings.
//   4. s = f32(1 / f32(sqrt(v))): correctly rounded sqrt, then reciprocal.
//   5. y_i = bf16(bf16(z_i * s) * g_i).
//
// y is then rotated and quantized exactly as rotate_quant does.
//
// The order of step 2 follows the rotating quantizer's lane mapping: a
// 32-channel block b is held by four lane groups, group g holding channels
// 32b + 8g .. 32b + 8g + 7 (one 16-byte load). Each group sums its eight
// squares in ascending channel order (q_g = ((z0² + z1²) + z2²) + ...), the
// block's partial is (q_0 + q_1) + (q_2 + q_3) (the two cross-lane steps,
// xor 16 then xor 32, that the block maximum uses), and S adds the blocks'
// partials in ascending block order starting from the first (one thread per
// row, after the waves have put their blocks' partials in LDS). Squares of
// bf16 values are exact in f32, so contracting a square into an add (FMA)
// cannot change any rounding; only the additions round.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_NUMERICS_RMSNORM_H
#define MXFORGE_NUMERICS_RMSNORM_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxf {

/// Step 1 for one row: z = bf16(x + r), or x itself without `residual`.
void residualAddRow(const uint16_t *x, const uint16_t *residual, size_t k, uint16_t *z);

/// Step 2: the f32 sum of z_i² of a row of `k` bf16 values (k a multiple of
/// 32) in the order above.
float sumOfSquaresF32(const uint16_t *z, size_t k);

/// Steps 3-4: s = 1 / sqrt(S / K + eps), each operation one f32 rounding.
float rmsScaleF32(float sumOfSquares, size_t k, float eps);

struct RmsNormRows {
  std::vector<uint16_t> y; // [m, k] bf16: the rotation's input
  std::vector<uint16_t> z; // [m, k] bf16: the residual the kernel writes back
};

/// Steps 1-5 for `m` dense rows of `k` (a multiple of 32); `residual` may be
/// null (then z = x).
RmsNormRows rmsNormRows(const uint16_t *x, const uint16_t *residual, const uint16_t *gamma,
                        float eps, size_t m, size_t k);

} // namespace mxf

#endif // MXFORGE_NUMERICS_RMSNORM_H
