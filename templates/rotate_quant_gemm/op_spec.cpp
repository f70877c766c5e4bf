//===- op_spec.cpp - rotate_quant_gemm's op as the spec layer knows it -----===//
//
// Plain C++, linked into mxforge_spec (spec/op_declaration.h): the keys of
// rotate_quant_gemm in canonical order (docs/spec.md), which are required,
// and its formats.
//
//===----------------------------------------------------------------------===//

#include "spec/op_declaration.h"

namespace mxf::rotate_quant_gemm {
namespace {

using SK = spec_detail::SpecKey;

constexpr SK kKeys[] = {SK::K,     SK::N,     SK::RS,    SK::Rot,   SK::Rconv,
                        SK::M,     SK::Fmt,   SK::Scale, SK::Round, SK::Inter,
                        SK::Layout, SK::Wlayout, SK::Arch};
constexpr SK kRequired[] = {SK::K, SK::N};

// fp4 is A4W4, fp6_e2m3 the W6A16 GEMM (bf16 activations, MXFP6 weights).
Status validate(const KernelSpec &spec) {
  if (spec.fmt != ElemFormat::E2M1 && spec.fmt != ElemFormat::E2M3)
    return specKeyFailure(spec, SK::Fmt,
                          "rotate_quant_gemm supports fmt=fp4 or fmt=fp6_e2m3 (fp4: A4W4; "
                          "fp6_e2m3: W6A16, bf16 activations x MXFP6 weights)");
  return Status::success();
}

} // namespace

extern const OpDeclaration kOpDeclaration = {KernelOp::RotateQuantGemm,
                                             "rotate_quant_gemm",
                                             keyList(kKeys),
                                             keyList(kRequired),
                                             /*writesA6W6Tiles=*/false,
                                             /*fillDefaults=*/nullptr,
                                             validate};

} // namespace mxf::rotate_quant_gemm
