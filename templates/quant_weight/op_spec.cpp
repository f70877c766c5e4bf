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

// What bindings show as the op's help (Python's docstring, docs/python.md).
constexpr const char kDescription[] = R"(Rotates and MX-quantizes the N rows of a weight matrix `w` ([N, K]
bf16: a torch.bfloat16 tensor, or a numpy uint16 array of bf16 bit
patterns), once, at load time.

`spec` is a quant_weight spec (docs/spec.md); keyword arguments may stand
in for or add to its keys (``rs=64, fmt="fp6_e2m3", scale="even126",
layout="a4w4_shuffle", wlayout="preshuffle_16x16"``); K and N default to
w.shape[1] and w.shape[0]. One launch processes all N rows (there is no
M bucket). `r` is the learned rotation (bf16, [RS, RS] or [K/RS, RS, RS])
for rot=learned / learned_per_block. Returns (q, s) as new arrays of the
kind and device of w, uint8, in the shapes of docs/abi.md (q [N,
packed(K)] in the spec's wlayout, s [N, K/32], or [pad256(N), pad8(K/32)]
with layout=a4w4_shuffle), or writes them into ``out=(q, s)`` (both
contiguous). Rows of w may be strided (w[:, :K] of a wider tensor); the
last dimension must have unit stride.)";

} // namespace

extern const OpDeclaration kOpDeclaration = {KernelOp::QuantWeight,
                                             "quant_weight",
                                             keyList(kKeys),
                                             keyList(kRequired),
                                             /*writesA6W6Tiles=*/false,
                                             /*fillDefaults=*/nullptr,
                                             validate,
                                             kDescription};

} // namespace mxf::quant_weight
