//===- prepared_weights.cpp - C API: weights and the launches that read them ===//
//
// Prepared weights travel with the quant_weight spec that made them
// (docs/loaders.md): mxf_spec_check_weights says whether a launch reads
// them, mxf_relayout_weights moves them to other layouts, as engines
// shuffle at load time after splitting a plain checkpoint.
//
//===----------------------------------------------------------------------===//

#include "capi/capi_internal.h"

#include "spec/expected_keys.h"
#include "spec/kernel_spec.h"
#include "spec/prepared_weights.h"
#include "weights/weight_layouts.h"

#include <cstring>
#include <string>

using mxf::capi::fail;
using mxf::capi::guarded;
using mxf::capi::nullArgument;

namespace {

mxf::Result<mxf::KernelSpec> parsedSpec(const char *function, const char *what,
                                        const char *text) {
  mxf::Result<mxf::KernelSpec> spec = mxf::parseSpec(text);
  if (!spec.ok())
    return mxf::Result<mxf::KernelSpec>::failure(std::string(function) + ": invalid " + what +
                                                 ": " + spec.error());
  return spec;
}

} // namespace

extern "C" {

mxf_status mxf_spec_check_weights(const char *spec, const char *weightsSpec, int rotates) {
  const char *function = "mxf_spec_check_weights";
  return guarded(function, [&]() -> mxf_status {
    if (!spec)
      return nullArgument(function, "spec");
    if (!weightsSpec)
      return nullArgument(function, "weights_spec");
    mxf::Result<mxf::KernelSpec> parsed = parsedSpec(function, "spec", spec);
    if (!parsed.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, parsed.error());
    mxf::Result<mxf::KernelSpec> weights = parsedSpec(function, "weights spec", weightsSpec);
    if (!weights.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, weights.error());
    mxf::Status matches = mxf::checkPreparedWeights(parsed.value(), weights.value(), rotates != 0);
    if (!matches.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + matches.message());
    return MXF_SUCCESS;
  });
}

mxf_status mxf_spec_check_keys(const char *spec, const char *expected) {
  const char *function = "mxf_spec_check_keys";
  return guarded(function, [&]() -> mxf_status {
    if (!spec)
      return nullArgument(function, "spec");
    if (!expected)
      return nullArgument(function, "expected");
    mxf::Result<mxf::KernelSpec> parsed = parsedSpec(function, "spec", spec);
    if (!parsed.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, parsed.error());
    mxf::Status matches = mxf::checkSpecKeys(parsed.value(), expected);
    if (!matches.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + matches.message());
    return MXF_SUCCESS;
  });
}

mxf_status mxf_spec_weight_keys(const char *const **names, size_t *count) {
  if (!names)
    return nullArgument("mxf_spec_weight_keys", "names");
  if (!count)
    return nullArgument("mxf_spec_weight_keys", "count");
  static const auto table = [] {
    std::array<const char *, mxf::kPreparedWeightKeys.size()> out{};
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = mxf::spec_detail::specKeyName(mxf::kPreparedWeightKeys[i]);
    return out;
  }();
  *names = table.data();
  *count = table.size();
  return MXF_SUCCESS;
}

mxf_status mxf_relayout_weights(const char *weightsSpec, const char *targetSpec, const void *q,
                                size_t qBytes, const void *s, size_t sBytes, void *qOut,
                                size_t qOutBytes, void *sOut, size_t sOutBytes) {
  const char *function = "mxf_relayout_weights";
  return guarded(function, [&]() -> mxf_status {
    for (auto [pointer, name] : {std::pair<const void *, const char *>{weightsSpec, "weights_spec"},
                                 {targetSpec, "target_spec"}, {q, "q"}, {s, "s"},
                                 {qOut, "q_out"}, {sOut, "s_out"}})
      if (!pointer)
        return nullArgument(function, name);
    mxf::Result<mxf::KernelSpec> from = parsedSpec(function, "weights spec", weightsSpec);
    if (!from.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, from.error());
    mxf::Result<mxf::KernelSpec> to = parsedSpec(function, "target spec", targetSpec);
    if (!to.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, to.error());
    if (from.value().op != mxf::KernelOp::QuantWeight)
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": weights are described by a quant_weight spec, not " +
                      mxf::printSpec(from.value()));
    // Only the placement may change: the same values, other bytes.
    mxf::KernelSpec sameValues = to.value();
    sameValues.layout = from.value().layout;
    sameValues.wlayout = from.value().wlayout;
    if (!(sameValues == from.value()))
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": the target may differ from the weights' spec in "
                                          "layout and wlayout only: " +
                      mxf::printSpec(from.value()) + " to " + mxf::printSpec(to.value()));
    const size_t n = size_t(from.value().N), k = size_t(from.value().K);
    mxf::Result<mxf::weights::PlacedWeights> moved = mxf::weights::relayoutWeights(
        n, k, from.value().fmt, {from.value().wlayout, from.value().layout},
        {to.value().wlayout, to.value().layout}, static_cast<const uint8_t *>(q), qBytes,
        static_cast<const uint8_t *>(s), sBytes);
    if (!moved.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + moved.error());
    const mxf::weights::PlacedWeights &out = moved.value();
    if (qOutBytes != out.codes.size() || sOutBytes != out.scales.size())
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": q_out and s_out must be " +
                      std::to_string(out.codes.size()) + " and " +
                      std::to_string(out.scales.size()) + " bytes for " +
                      mxf::printSpec(to.value()) + ", got " + std::to_string(qOutBytes) +
                      " and " + std::to_string(sOutBytes));
    std::memcpy(qOut, out.codes.data(), out.codes.size());
    std::memcpy(sOut, out.scales.data(), out.scales.size());
    return MXF_SUCCESS;
  });
}

} // extern "C"
