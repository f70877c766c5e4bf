//===- quantize_check.h - mxforge quantize --check: error figures -*- C++ -*-===//
#ifndef MXFORGE_WEIGHTS_CHECKPOINT_QUANTIZATION_ERROR_H
#define MXFORGE_WEIGHTS_CHECKPOINT_QUANTIZATION_ERROR_H

#include "numerics/reference.h"

#include <cstdint>

namespace mxf::weights {

struct QuantizationError {
  double relativeToSource = 0;  // ||dequant(Q(W.R)).R^T - W|| / ||W|| (Frobenius)
  double relativeToRotated = 0; // ||dequant(Q(W.R)) - W.R|| / ||W.R||
  double clippedFraction = 0;   // rotated values beyond the format's max at their scale
};

/// Dequantizes what quant_weight wrote (codes and scales in the problem's
/// layouts) and compares it with the source W [n, k] and with W.R. The
/// un-rotation multiplies by R^T, exact for orthogonal R and a close
/// approximation for the bf16-rounded Hadamard.
QuantizationError measureQuantization(const RotateQuantProblem &problem,
                                      WeightLayout weightLayout, const uint16_t *w, size_t n,
                                      const uint16_t *rotation, const uint8_t *codes,
                                      const uint8_t *scales);

} // namespace mxf::weights

#endif // MXFORGE_WEIGHTS_CHECKPOINT_QUANTIZATION_ERROR_H
