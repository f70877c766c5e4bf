//===- op_spec.cpp - rmsnorm_rotate_quant's op as the spec layer knows it ---===//
//
// Plain C++, linked into mxforge_spec (spec/op_declaration.h): rotate_quant's
// keys plus `residual`, in canonical order (docs/spec.md), and its presets.
//
//===----------------------------------------------------------------------===//

#include "spec/op_declaration.h"

#include "spec/buckets.h"

#include <string>
#include <vector>

namespace mxf::rmsnorm_rotate_quant {
namespace {

using SK = spec_detail::SpecKey;

constexpr SK kKeys[] = {SK::K,     SK::RS,    SK::Rot,   SK::Rconv, SK::Select,
                        SK::Layers, SK::Add, SK::M,   SK::Fmt,   SK::Scale,
                        SK::Round, SK::Inter, SK::Layout, SK::Arch};
constexpr SK kRequired[] = {SK::K};

Status validate(const KernelSpec &spec) {
  if (spec.add != 0 && spec.add != 1)
    return specKeyFailure(spec, SK::Add,
                          "add must be 0 (normalize x) or 1 (add the residual first and "
                          "write the sum to residual_out)");
  return Status::success();
}

// The norm in front of each decoder layer's q/k/v and gate/up projections:
// the hidden width, with the residual of the layer before, every M bucket
// and both of the presets' scale rules.
void presetSpecs(const ModelShapes &model, std::vector<KernelSpec> &specs) {
  if (model.hidden == 0)
    return;
  for (ScaleRule rule : {ScaleRule::Even, ScaleRule::Rceil})
    for (int bucket : kMBuckets) {
      KernelSpec spec = presetSpec(KernelOp::RmsnormRotateQuant);
      spec.K = model.hidden;
      spec.M = bucket;
      spec.scale = rule;
      spec.add = 1;
      specs.push_back(spec);
    }
}

constexpr const char kDescription[] = R"(Adds the residual, RMS-normalizes with the gain `gamma`, then rotates and
MX-quantizes the rows of `x` ([m, K] bf16), in one kernel: no bf16 copy of
the normalized activation goes through memory (docs/templates.md,
"rmsnorm_rotate_quant").

With add=1, z = bf16(x + residual) (`residual` [m, K] bf16) is what is
normalized, and is returned as `residual_out` (the next layer's residual);
with add=0, z = x. `gamma` is the norm's gain ([K] bf16) and `eps` its
epsilon (a float, passed by value: the same kernel serves any eps). The
normalized row, bf16(bf16(z / sqrt(mean(z^2) + eps)) * gamma), is then
rotated and quantized exactly as rotate_quant does (every key of
rotate_quant's, selection included), so the codes and scales equal
rotate_quant's on that row bit for bit (docs/numerics.md, "RMSNorm").
Returns (q, s) or (q, s, residual_out) as new arrays of the kind and
device of x, or writes them into ``out=``. x and residual may be strided
views with unit stride in the last dimension.)";

} // namespace

extern const OpDeclaration kOpDeclaration = {KernelOp::RmsnormRotateQuant,
                                             "rmsnorm_rotate_quant",
                                             keyList(kKeys),
                                             keyList(kRequired),
                                             /*writesA6W6Tiles=*/true,
                                             /*fillDefaults=*/nullptr,
                                             validate,
                                             kDescription,
                                             presetSpecs};

} // namespace mxf::rmsnorm_rotate_quant
