//===- row_quantizer.h - numerics' quantizeRow + packCodes, fast -*- C++ -*-===//
//
// The same codes and scale bytes as numerics/quantize.h followed by
// numerics/packing.h, for one rotated row. The scale byte comes from the
// reference's computeScaleByte (once per 32 elements); the element codes of
// fp4 (E2M1) and fp6_e2m3 with nearest-even rounding come from a branch-free
// f32 formula that a test checks against encodeElemRne over every scale
// byte; every other format or stochastic rounding calls the reference's
// per-element conversion.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_WEIGHTS_ROW_QUANTIZER_H
#define MXFORGE_WEIGHTS_ROW_QUANTIZER_H

#include "numerics/quantize.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxf::weights {

class RowQuantizer {
public:
  RowQuantizer(const QuantConfig &config, size_t k);

  /// Quantizes k values of row `row` (its index feeds stochastic rounding),
  /// writing packedBytes(format, k) bytes to `packed` and k/32 scale bytes.
  void quantize(const float *values, uint64_t row, uint8_t *packed, uint8_t *scales);

private:
  QuantConfig config_;
  size_t k_;
  std::vector<uint8_t> codes_;
};

/// The fast nearest-even code of x at scale byte b, for E2M1 and E2M3
/// (formats with emax 2); exposed for its exhaustive test.
uint8_t encodeEmax2Rne(ElemFormat format, float x, uint8_t scaleByte);

} // namespace mxf::weights

#endif // MXFORGE_WEIGHTS_ROW_QUANTIZER_H
