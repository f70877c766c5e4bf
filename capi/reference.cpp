//===- reference.cpp - C API: the bit-exact CPU reference -----------------===//

#include "capi/capi_internal.h"

#include "arrays/calibration.h"
#include "numerics/reference.h"
#include "spec/reference_problem.h"
#include "templates/family_rules.h"

#include <cstring>

using mxf::capi::fail;
using mxf::capi::guarded;
using mxf::capi::nullArgument;

extern "C" {

mxf_status mxf_reference(const char *spec, int m, const void *x, const void *r, void *q,
                         size_t qBytes, size_t *qWritten, void *s, size_t sBytes,
                         size_t *sWritten) {
  return guarded("mxf_reference", [&]() -> mxf_status {
    if (!spec)
      return nullArgument("mxf_reference", "spec");
    if (!x)
      return nullArgument("mxf_reference", "x");
    if (!q || !s)
      return nullArgument("mxf_reference", !q ? "q" : "s");
    mxf::Result<mxf::KernelSpec> parsed = mxf::parseSpec(spec);
    if (!parsed.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_reference: invalid spec: " + parsed.error());
    const mxf::KernelSpec &kernelSpec = parsed.value();
    if (kernelSpec.op != mxf::KernelOp::RotateQuant)
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  "mxf_reference: only rotate_quant specs have a C API reference");
    if (mxf::Status supported = mxf::checkCompilable(kernelSpec); !supported.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_reference: " + supported.message());
    if (m < 1 || m > kernelSpec.M)
      return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_reference: M=" + std::to_string(m) +
                                                  " is outside 1.." +
                                                  std::to_string(kernelSpec.M));
    const bool needsR = kernelSpec.rot == mxf::RotationKind::Learned ||
                        kernelSpec.rot == mxf::RotationKind::LearnedPerBlock;
    if (needsR && !r)
      return nullArgument("mxf_reference", "r (this spec rotates with a learned matrix)");
    mxf::Result<mxf::QuantizedRows> rows = mxf::rotateQuant(
        mxf::rotateQuantProblem(kernelSpec, 0), static_cast<const uint16_t *>(x), size_t(m),
        needsR ? static_cast<const uint16_t *>(r) : nullptr);
    if (!rows.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_reference: " + rows.error());
    const std::vector<uint8_t> &codes = rows.value().codes;
    const std::vector<uint8_t> &scales = rows.value().scales;
    if (codes.size() > qBytes || scales.size() > sBytes)
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  "mxf_reference: the outputs need " + std::to_string(codes.size()) +
                      " bytes of q and " + std::to_string(scales.size()) + " of s; got " +
                      std::to_string(qBytes) + " and " + std::to_string(sBytes));
    std::memcpy(q, codes.data(), codes.size());
    std::memcpy(s, scales.data(), scales.size());
    if (qWritten)
      *qWritten = codes.size();
    if (sWritten)
      *sWritten = scales.size();
    return MXF_SUCCESS;
  });
}

mxf_status mxf_calibrate_layer(const char *spec, const void *x, size_t rows, const void *r,
                               double threshold, mxf_layer_calibration *result) {
  return guarded("mxf_calibrate_layer", [&]() -> mxf_status {
    if (!spec)
      return nullArgument("mxf_calibrate_layer", "spec");
    if (!x)
      return nullArgument("mxf_calibrate_layer", "x");
    if (!result)
      return nullArgument("mxf_calibrate_layer", "result");
    mxf::Result<mxf::KernelSpec> parsed = mxf::parseSpec(spec);
    if (!parsed.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  "mxf_calibrate_layer: invalid spec: " + parsed.error());
    if (mxf::Status usable = mxf::arrays::checkCalibration(parsed.value(), threshold, r != nullptr);
        !usable.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_calibrate_layer: " + usable.message());
    mxf::arrays::LayerSamples layer;
    layer.name = "x";
    layer.rows = rows;
    const auto *values = static_cast<const uint16_t *>(x);
    layer.x.assign(values, values + rows * size_t(parsed.value().K));
    mxf::Result<mxf::arrays::LayerCalibration> measured = mxf::arrays::calibrateLayer(
        parsed.value(), layer, mxf::isLearned(parsed.value().rot) ? static_cast<const uint16_t *>(r)
                                                                  : nullptr,
        threshold);
    if (!measured.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_calibrate_layer: " + measured.error());
    const mxf::arrays::LayerCalibration &c = measured.value();
    *result = {c.rotatedRelRms, c.plainRelRms, c.rotatedClipped, c.plainClipped, c.gain,
               c.rotate ? 1 : 0};
    return MXF_SUCCESS;
  });
}

} // extern "C"
