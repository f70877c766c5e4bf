//===- calibration.h - Which layers a rotation helps: per-layer error ---*- C++ -*-===//
//
// Selective rotation (issue 18, seed 000's next step): "not all layers
// benefit from rotation; apply it only where it improves quantization".
// For each layer's activation samples this measures the quantization error
// of a rotate_quant spec with its rotation and without (the same spec at
// RS=0: the cheaper quant-only path), with the demo's figures (relative RMS
// error against what was quantized, clipped fraction), and decides: rotate
// when the rotation lowers the relative RMS error by more than a threshold
// the user chooses. `mxforge calibrate` writes the decisions as the mask a
// selective kernel reads (one i32 per layer, 1 = rotate).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ARRAYS_CALIBRATION_H
#define MXFORGE_ARRAYS_CALIBRATION_H

#include "support/status.h"
#include "spec/kernel_spec.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mxf::arrays {

/// One layer's activation samples: rows of K bf16 values (bit patterns).
struct LayerSamples {
  std::string name;
  size_t rows = 0;
  std::vector<uint16_t> x; // [rows, K]
};

struct LayerCalibration {
  std::string name;
  size_t rows = 0;
  double rotatedRelRms = 0, plainRelRms = 0;   // dequant(q) against what was quantized
  double rotatedClipped = 0, plainClipped = 0; // fraction of elements beyond their block's range
  /// (plain - rotated) / plain: the share of the error the rotation removes
  /// (negative when it adds error; 0 when both are exact).
  double gain = 0;
  bool rotate = false; // gain > threshold
};

/// Whether `spec` can be calibrated: a rotate_quant spec with a rotation
/// (RS > 0; a learned one needs `rotation`), and a threshold in [0, 1).
Status checkCalibration(const KernelSpec &spec, double threshold, bool haveRotation);

/// Measures one layer. Fails naming the layer when its samples are empty,
/// not whole rows of K, or hold NaN or infinity.
Result<LayerCalibration> calibrateLayer(const KernelSpec &spec, const LayerSamples &layer,
                                        const uint16_t *rotation, double threshold);

} // namespace mxf::arrays

#endif // MXFORGE_ARRAYS_CALIBRATION_H
