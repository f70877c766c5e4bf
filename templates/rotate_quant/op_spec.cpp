//===- op_spec.cpp - rotate_quant's op as the spec layer knows it ----------===//
//
// Plain C++, linked into mxforge_spec (spec/op_declaration.h): the keys of
// rotate_quant in canonical order (docs/spec.md) and which are required.
//
//===----------------------------------------------------------------------===//

#include "spec/op_declaration.h"

#include "spec/buckets.h"

#include <utility>
#include <vector>

namespace mxf::rotate_quant {
namespace {

using SK = spec_detail::SpecKey;

constexpr SK kKeys[] = {SK::K,      SK::RS, SK::Rot, SK::Rconv, SK::Select, SK::Layers, SK::M,
                        SK::Fmt,    SK::Scale, SK::Round, SK::Inter, SK::Layout, SK::Arch};
constexpr SK kRequired[] = {SK::K};

// Every activation width that feeds an MXFP4 GEMM: RS=64 Hadamard, OCP's
// and AITER's scale rules, every M bucket.
void presetSpecs(const ModelShapes &model, std::vector<KernelSpec> &specs) {
  for (int k : model.activationWidths)
    for (ScaleRule rule : {ScaleRule::Even, ScaleRule::Rceil})
      for (int bucket : kMBuckets) {
        KernelSpec spec = presetSpec(KernelOp::RotateQuant);
        spec.K = k;
        spec.M = bucket;
        spec.scale = rule;
        specs.push_back(spec);
      }
}

// What bindings show as the op's help (Python's docstring, docs/python.md).
constexpr const char kDescription[] = R"(Rotates and MX-quantizes the rows of `x` ([m, K] bf16: a torch.bfloat16
tensor, or a numpy uint16 array of bf16 bit patterns).

`spec` is a rotate_quant spec (docs/spec.md); keyword arguments may stand
in for or add to its keys (``k=4096, rs=64, scale="rceil",
layout="a4w4_shuffle"``); K defaults to x.shape[1]; the spec's M is
ignored (m is x.shape[0], the bucket is chosen for it). `r` is the
learned rotation (bf16, [RS, RS] or [K/RS, RS, RS]) for rot=learned /
learned_per_block. Returns (q, s) as new arrays of the kind and device of
x, uint8, in the shapes of docs/abi.md (q [m, packed(K)], s [m, K/32], or
[pad256(m), pad8(K/32)] with layout=a4w4_shuffle), or writes them into
``out=(q, s)``. Rows of x (and of an out q) may be strided (x[:, :K] of a
wider tensor); the last dimension must have unit stride. With
round="sr", `seed` (an int, or a [1] int32 array on x's device, which a
captured graph may change between replays) seeds the stochastic
rounding: the same seed gives the same bytes.

Selective rotation (docs/templates.md): with select="flag", `rotate`
(a bool or int, nonzero rotates) chooses the path of this launch; with
select="mask" and layers=N, `layer_mask` ([N] int32, nonzero rotates; on
x's device, where a captured graph sees it rewritten) and `layer` (the
index, 0..N-1) do. The other path is quantization alone, bit for bit the
RS=0 result.)";

} // namespace

// The only op that writes AITER's A6W6 operand tiles: its codes have no
// layout key of their own.
extern const OpDeclaration kOpDeclaration = {KernelOp::RotateQuant, "rotate_quant", keyList(kKeys),
                                             keyList(kRequired), /*writesA6W6Tiles=*/true,
                                             /*fillDefaults=*/nullptr, /*validate=*/nullptr,
                                             kDescription,
                                             presetSpecs};

} // namespace mxf::rotate_quant
