//===- calibration.cpp - Which layers a rotation helps: per-layer error ---===//

#include "arrays/calibration.h"

#include "arrays/quant_metrics.h"
#include "numerics/reference.h"
#include "spec/reference_problem.h"

#include <cmath>
#include <cstring>

namespace mxf::arrays {
namespace {

struct Measured {
  double relRms = 0, clipped = 0;
};

Result<Measured> measure(const KernelSpec &spec, const LayerSamples &layer,
                         const uint16_t *rotation) {
  // Plain scales: the metrics read them row by row; the layout does not
  // change a value.
  RotateQuantProblem problem = rotateQuantProblem(spec, /*seed=*/0);
  problem.scaleLayout = ScaleLayout::Plain;
  Result<QuantizedRows> quantized = rotateQuant(problem, layer.x.data(), layer.rows, rotation);
  if (!quantized.ok())
    return quantized.status();
  const std::vector<float> rotated = rotatedRows(problem, layer.x.data(), layer.rows, rotation);
  Measured out;
  out.relRms = relativeRmsError(dequantizeRows(quantized.value()), rotated);
  out.clipped = clippedFraction(rotated, quantized.value());
  return out;
}

} // namespace

Status checkCalibration(const KernelSpec &spec, double threshold, bool haveRotation) {
  if (Status valid = validateSpec(spec); !valid.ok())
    return valid;
  if (spec.op != KernelOp::RotateQuant)
    return Status::failure("calibrate takes a rotate_quant spec (the activation kernel), not " +
                           std::string(kernelOpName(spec.op)));
  if (spec.RS == 0)
    return Status::failure("calibrate compares the spec's rotation with none, but " +
                           printSpec(spec) + " has RS=0; give RS and rot");
  if (isLearned(spec.rot) && !haveRotation)
    return Status::failure("rot=" + std::string(rotationKindName(spec.rot)) +
                           " needs its rotation matrix (rotate_quant's r)");
  if (!(threshold >= 0.0 && threshold < 1.0))
    return Status::failure("the threshold is a share of the error the rotation must remove, in "
                           "[0, 1); got " + std::to_string(threshold));
  return Status::success();
}

Result<LayerCalibration> calibrateLayer(const KernelSpec &spec, const LayerSamples &layer,
                                        const uint16_t *rotation, double threshold) {
  const size_t k = size_t(spec.K);
  auto failed = [&](const std::string &why) {
    return Result<LayerCalibration>::failure("layer '" + layer.name + "': " + why);
  };
  if (layer.rows == 0)
    return failed("no samples");
  if (layer.x.size() != layer.rows * k)
    return failed(std::to_string(layer.x.size()) + " values are not " +
                  std::to_string(layer.rows) + " rows of K=" + std::to_string(k));
  for (size_t i = 0; i < layer.x.size(); ++i)
    if ((layer.x[i] & 0x7F80) == 0x7F80) // bf16 exponent all ones: inf or NaN
      return failed("sample " + std::to_string(i / k) + ", channel " + std::to_string(i % k) +
                    " is not finite");
  KernelSpec plain = spec;
  plain.RS = 0;
  plain.rot = RotationKind::None;
  Result<Measured> rotated = measure(spec, layer, rotation);
  if (!rotated.ok())
    return failed(rotated.error());
  Result<Measured> unrotated = measure(plain, layer, nullptr);
  if (!unrotated.ok())
    return failed(unrotated.error());
  LayerCalibration out;
  out.name = layer.name;
  out.rows = layer.rows;
  out.rotatedRelRms = rotated.value().relRms;
  out.plainRelRms = unrotated.value().relRms;
  out.rotatedClipped = rotated.value().clipped;
  out.plainClipped = unrotated.value().clipped;
  out.gain = out.plainRelRms > 0 ? (out.plainRelRms - out.rotatedRelRms) / out.plainRelRms
             : out.rotatedRelRms > 0 ? -1.0
                                     : 0.0;
  out.rotate = out.gain > threshold;
  return out;
}

} // namespace mxf::arrays
