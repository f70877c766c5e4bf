//===- quant_layout.cpp - C API: a kernel's MX format and layouts as enums ===//

#include "capi/capi_internal.h"

#include "numerics/quantize.h"

#include <algorithm>

using mxf::capi::fail;
using mxf::capi::guarded;
using mxf::capi::nullArgument;

namespace {

int formatValue(mxf::ElemFormat format) {
  switch (format) {
  case mxf::ElemFormat::E2M1:
    return MXF_FORMAT_FP4_E2M1;
  case mxf::ElemFormat::E2M3:
    return MXF_FORMAT_FP6_E2M3;
  case mxf::ElemFormat::E3M2:
    return MXF_FORMAT_FP6_E3M2;
  case mxf::ElemFormat::E4M3:
    return MXF_FORMAT_FP8_E4M3;
  case mxf::ElemFormat::E5M2:
    return MXF_FORMAT_FP8_E5M2;
  }
  return -1;
}

int scaleRuleValue(mxf::ScaleRule rule) {
  switch (rule) {
  case mxf::ScaleRule::Floor:
    return MXF_SCALE_FLOOR;
  case mxf::ScaleRule::Even:
    return MXF_SCALE_EVEN;
  case mxf::ScaleRule::Rceil:
    return MXF_SCALE_RCEIL;
  case mxf::ScaleRule::RceilRecip:
    return MXF_SCALE_RCEIL_RECIP;
  case mxf::ScaleRule::Ceil:
    return MXF_SCALE_CEIL;
  case mxf::ScaleRule::Even126:
    return MXF_SCALE_EVEN126;
  case mxf::ScaleRule::A6W6:
    return MXF_SCALE_A6W6;
  }
  return -1;
}

int scaleLayoutValue(mxf::ScaleLayout layout) {
  switch (layout) {
  case mxf::ScaleLayout::Plain:
    return MXF_LAYOUT_PLAIN;
  case mxf::ScaleLayout::A4W4Shuffle:
    return MXF_LAYOUT_A4W4_SHUFFLE;
  case mxf::ScaleLayout::A6W6Tiles:
    return MXF_LAYOUT_MXFP6_C0C1_256_PADK2;
  }
  return -1;
}

int weightLayoutValue(mxf::WeightLayout layout) {
  switch (layout) {
  case mxf::WeightLayout::Plain:
    return MXF_LAYOUT_PLAIN;
  case mxf::WeightLayout::Preshuffle16x16:
    return MXF_LAYOUT_PRESHUFFLE_16X16;
  case mxf::WeightLayout::W6A16Tile16x128:
    return MXF_LAYOUT_W6A16_16X128;
  }
  return -1;
}

/// The codes of rotate_quant and rotate_quant_moe are written row-major in
/// token order, except in AITER's A6W6 tiles (one layout of codes and
/// scales); `wlayout` is the weights' (quant_weight writes them,
/// rotate_quant_gemm reads them).
mxf_quant_layout quantLayoutOf(const mxf::KernelSpec &spec) {
  mxf_quant_layout layout{};
  layout.format = formatValue(spec.fmt);
  const std::vector<std::string_view> keys = mxf::specKeys(spec.op);
  const bool weights = std::find(keys.begin(), keys.end(), "wlayout") != keys.end();
  layout.code_layout = weights                                     ? weightLayoutValue(spec.wlayout)
                       : spec.layout == mxf::ScaleLayout::A6W6Tiles ? MXF_LAYOUT_MXFP6_C0C1_256_PADK2
                                                                    : MXF_LAYOUT_PLAIN;
  layout.scale_layout = scaleLayoutValue(spec.layout);
  layout.scale_rule = scaleRuleValue(spec.scale);
  layout.block = int(mxf::kMxBlock);
  layout.rotation = spec.RS;
  return layout;
}

} // namespace

extern "C" {

mxf_status mxf_spec_get_quant_layout(const char *spec, mxf_quant_layout *layout) {
  return guarded("mxf_spec_get_quant_layout", [&]() -> mxf_status {
    if (!spec)
      return nullArgument("mxf_spec_get_quant_layout", "spec");
    if (!layout)
      return nullArgument("mxf_spec_get_quant_layout", "layout");
    mxf::Result<mxf::KernelSpec> parsed = mxf::parseSpec(spec);
    if (!parsed.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  "mxf_spec_get_quant_layout: invalid spec: " + parsed.error());
    *layout = quantLayoutOf(parsed.value());
    return MXF_SUCCESS;
  });
}

mxf_status mxf_kernel_get_quant_layout(const mxf_kernel *kernel, mxf_quant_layout *layout) {
  if (!kernel)
    return nullArgument("mxf_kernel_get_quant_layout", "kernel");
  if (!layout)
    return nullArgument("mxf_kernel_get_quant_layout", "layout");
  *layout = quantLayoutOf(kernel->handle->spec);
  return MXF_SUCCESS;
}

} // extern "C"
