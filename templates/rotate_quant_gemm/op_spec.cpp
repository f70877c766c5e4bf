//===- op_spec.cpp - rotate_quant_gemm's op as the spec layer knows it -----===//
//
// Plain C++, linked into mxforge_spec (spec/op_declaration.h): the keys of
// rotate_quant_gemm in canonical order (docs/spec.md), which are required,
// and its formats.
//
//===----------------------------------------------------------------------===//

#include "spec/op_declaration.h"

#include "spec/buckets.h"

#include <utility>
#include <vector>

namespace mxf::rotate_quant_gemm {
namespace {

using SK = spec_detail::SpecKey;

constexpr SK kKeys[] = {SK::K,     SK::N,      SK::RS,      SK::Rot,   SK::Rconv,
                        SK::Select, SK::Layers, SK::M,      SK::Fmt,   SK::Scale,
                        SK::Round, SK::Inter,  SK::Layout, SK::Wlayout, SK::Arch};
constexpr SK kRequired[] = {SK::K, SK::N};

// fp4 is A4W4, fp6_e2m3 the W6A16 GEMM (bf16 activations, MXFP6 weights).
Status validate(const KernelSpec &spec) {
  if (spec.fmt != ElemFormat::E2M1 && spec.fmt != ElemFormat::E2M3)
    return specKeyFailure(spec, SK::Fmt,
                          "rotate_quant_gemm supports fmt=fp4 or fmt=fp6_e2m3 (fp4: A4W4; "
                          "fp6_e2m3: W6A16, bf16 activations x MXFP6 weights)");
  return Status::success();
}

// The decode GEMMs of the dense layers the model lists, each (N, K) a weight
// matrix: the same RS=64 Hadamard and both rules, weights in AITER's
// deployed layouts (preshuffle_16x16 codes, a4w4_shuffle scales), at the
// decode buckets m <= kDecodeGemmMaxBucket (where a layer's time is reading
// its weights; one code object serves them all).
void presetSpecs(const ModelShapes &model, std::vector<KernelSpec> &specs) {
  for (auto [n, k] : model.decodeGemms)
    for (ScaleRule rule : {ScaleRule::Even, ScaleRule::Rceil})
      for (int bucket : kMBuckets) {
        if (bucket > kDecodeGemmMaxBucket)
          continue;
        KernelSpec spec = presetSpec(KernelOp::RotateQuantGemm);
        spec.K = k;
        spec.N = n;
        spec.M = bucket;
        spec.scale = rule;
        spec.layout = ScaleLayout::A4W4Shuffle;
        spec.wlayout = WeightLayout::Preshuffle16x16;
        specs.push_back(spec);
      }
}

// What bindings show as the op's help (Python's docstring, docs/python.md).
constexpr const char kDescription[] = R"(y = x.W^T through the fused decode GEMM. With fmt="fp4" (A4W4, the
default) it rotates and MXFP4-quantizes the rows of `x` ([m, K] bf16) as
rotate_quant does and multiplies them with MXFP4 weights; with
fmt="fp6_e2m3" (W6A16) it rotates them, rounds them to bf16 and
multiplies them with MXFP6 E2M3 weights (converted to bf16 exactly in
registers). The weights are quant_weight's, with the same rotation keys.

`w_q` (uint8 codes in the spec's wlayout: fp4 [N, K/2], plain or
preshuffle_16x16; fp6_e2m3 [N, 3K/4], plain or w6a16_16x128) and `w_s`
(uint8 E8M0 scales, [N, K/32] plain or [pad256(N), pad8(K/32)] with
layout=a4w4_shuffle) are quant_weight's outputs; `spec` is a
rotate_quant_gemm spec (docs/spec.md) and keyword arguments may stand in
for or add to its keys (``rs=64, scale="even", layout="a4w4_shuffle",
wlayout="preshuffle_16x16"``); K defaults to x.shape[1] and N to
w_q.shape[0]. `r` is the learned rotation for rot=learned /
learned_per_block. Returns y ([m, N] bf16, a new array of x's kind and
device), or writes it into ``out=y`` (or ``out=(y,)``). Rows of x and of
an out y may be strided. The sum's order is numerics'
(docs/numerics.md): the same bytes on every run.

Selective rotation: with select="flag", `rotate` (nonzero rotates), or
with select="mask", layers=N, `layer_mask` and `layer`, choose per launch
whether x is rotated; the weights must match (quant_weight with the
rotation for a rotating layer, RS=0 for the others).)";

// The weights a launch reads: quant_weight of the same K, N, format and
// rotation (W.R pairs with x.R), in the layouts the GEMM reads. The
// reference draws its weights from this spec too (op_reference.cpp).
KernelSpec weightsRead(const KernelSpec &spec) {
  KernelSpec weights;
  weights.op = KernelOp::QuantWeight;
  weights.K = spec.K;
  weights.N = spec.N;
  weights.RS = spec.RS;
  weights.rot = spec.rot;
  weights.rconv = spec.rconv;
  weights.fmt = spec.fmt; // fp4 for A4W4, fp6_e2m3 for W6A16
  weights.scale = spec.scale;
  weights.round = Rounding::Rne;
  weights.inter = spec.inter;
  weights.layout = spec.layout;
  weights.wlayout = spec.wlayout;
  return weights;
}

} // namespace

extern const OpDeclaration kOpDeclaration = {KernelOp::RotateQuantGemm,
                                             "rotate_quant_gemm",
                                             keyList(kKeys),
                                             keyList(kRequired),
                                             /*writesA6W6Tiles=*/false,
                                             /*fillDefaults=*/nullptr,
                                             validate,
                                             kDescription,
                                             presetSpecs,
                                             weightsRead};

} // namespace mxf::rotate_quant_gemm
