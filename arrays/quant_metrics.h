//===- quant_metrics.h - How much a quantization loses ------------*- C++ -*-===//
//
// Error figures for `mxforge demo` (and, later, for comparing kernels):
// relative RMS error of dequantized codes against what was quantized, the
// fraction of clipped elements, and a round-trip check of dequant(q) . R^T
// against x with a bound derived from the element format.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ARRAYS_QUANT_METRICS_H
#define MXFORGE_ARRAYS_QUANT_METRICS_H

#include "numerics/reference.h"


#include <cstdint>
#include <vector>

namespace mxf::arrays {

/// sqrt(sum (approx - exact)^2 / sum exact^2), in double; 0 when both are
/// all zero, +inf when only `exact` is.
double relativeRmsError(const std::vector<float> &approx, const std::vector<float> &exact);

/// The rows as the quantizer sees them: rotated and, with inter=bf16,
/// rounded to bf16. `rotation` as for rotateQuant.
std::vector<float> rotatedRows(const RotateQuantProblem &problem, const uint16_t *x, size_t rows,
                               const uint16_t *rotation);

/// Fraction of `values` ([rows, k] as quantized into `quantized`, plain
/// scales) whose magnitude exceeds the largest value their block can
/// represent, maxValue(format) * 2^(scale - 127): these saturate.
double clippedFraction(const std::vector<float> &values, const QuantizedRows &quantized);

/// The RS x RS matrix (row-major, double) that rotation block `block`
/// multiplies by: Hadamard rounded to bf16 for `hadamard`, exact for
/// `hadamard_butterfly`, the given bf16 matrices for the learned kinds.
/// Empty for RotationKind::None.
std::vector<double> rotationBlockMatrix(const RotationConfig &rotation, size_t block,
                                        const uint16_t *learned);

/// v_b . R^T for every block of RS values of every row ([rows, k]), in
/// double: undoes the rotation (R orthogonal). Identity for none.
std::vector<float> unrotateRows(const RotationConfig &rotation, const std::vector<float> &values,
                                size_t k, const uint16_t *learned);

/// Checks of x -> quantize -> dequant(q) . R^T against what the format
/// guarantees. Per element v of the rotated row with block scale s and
/// u = |v|/s, the dequantized value dq obeys
///   |dq - v| <= e = s * ulp(u)/2  (a full ulp under stochastic rounding),
///   |dq - v|  = e = s * (u - max) for a saturated element,
/// so a wrong code, scale or packing breaks the element check. Undoing the
/// rotation, per rotation block b with d = ||R R^T - I||_F and rotation
/// rounding eps (f32 sums; 2^-8 with inter=bf16):
///   ||x^_b - x_b|| <= (1 + d) (||dq_b - v_b|| + eps ||x_b||) + d ||x_b||,
/// so a wrong or wrongly inverted rotation breaks the restore check.
struct RoundTripCheck {
  double elementRatio = 0; // max |dq - v| / e
  double restoreRatio = 0; // max ||x^_b - x_b|| / its bound above
  /// max ||x^_b - x_b|| / the same bound with ||E_b|| for ||dq_b - v_b||:
  /// how much of the format's worst case a block uses (<= 1 when ok()).
  double boundRatio = 0;
  bool ok() const { return elementRatio <= 1.0 && restoreRatio <= 1.0; }
};

/// Runs the checks on `rows` rows of x quantized into `quantized` (plain
/// scales) by `problem`; `rotation` as for rotateQuant. A NaN anywhere makes
/// every ratio +inf.
RoundTripCheck checkRoundTrip(const RotateQuantProblem &problem, const uint16_t *x, size_t rows,
                              const uint16_t *rotation, const QuantizedRows &quantized);

} // namespace mxf::arrays

#endif // MXFORGE_ARRAYS_QUANT_METRICS_H
