//===- op_spec.cpp - quant_weight's op as the spec layer knows it ----------===//
//
// Plain C++, linked into mxforge_spec (spec/op_declaration.h): the keys of
// quant_weight in canonical order (docs/spec.md), which are required, and
// its formats (the weights of rotate_quant_gemm's two GEMMs).
//
//===----------------------------------------------------------------------===//

#include "spec/op_declaration.h"

namespace mxf::quant_weight {
namespace {

using SK = spec_detail::SpecKey;

constexpr SK kKeys[] = {SK::K,     SK::N,     SK::RS,    SK::Rot,    SK::Rconv,   SK::Fmt,
                        SK::Scale, SK::Round, SK::Inter, SK::Layout, SK::Wlayout, SK::Arch};
constexpr SK kRequired[] = {SK::K, SK::N};

Status validate(const KernelSpec &spec) {
  if (spec.fmt != ElemFormat::E2M1 && spec.fmt != ElemFormat::E2M3)
    return specKeyFailure(spec, SK::Fmt, "quant_weight supports fmt=fp4 or fmt=fp6_e2m3");
  return Status::success();
}

} // namespace

extern const OpDeclaration kOpDeclaration = {KernelOp::QuantWeight,
                                             "quant_weight",
                                             keyList(kKeys),
                                             keyList(kRequired),
                                             /*writesA6W6Tiles=*/false,
                                             /*fillDefaults=*/nullptr,
                                             validate};

} // namespace mxf::quant_weight
