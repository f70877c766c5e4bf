//===- op_spec.cpp - rotate_quant_moe's op as the spec layer knows it ------===//
//
// Plain C++, linked into mxforge_spec (spec/op_declaration.h): the keys of
// rotate_quant_moe in canonical order (docs/spec.md), which are required,
// its default scale layout and the rules of its routing keys.
//
//===----------------------------------------------------------------------===//

#include "spec/op_declaration.h"

#include "spec/buckets.h"

#include <utility>
#include <vector>

namespace mxf::rotate_quant_moe {
namespace {

using SK = spec_detail::SpecKey;

constexpr SK kKeys[] = {SK::K,      SK::RS,    SK::Rot,   SK::Rconv, SK::Select, SK::Layers,
                        SK::M,      SK::Topk,  SK::E,     SK::Block, SK::Stage,  SK::Emask,
                        SK::Fmt,    SK::Scale, SK::Round, SK::Inter, SK::Layout, SK::Arch};
constexpr SK kRequired[] = {SK::K, SK::Topk, SK::E};

constexpr int kMinE = 1, kMaxE = 1024;
// Sorted ids pack (slot << 24) | token into an int32: slots need 7 bits.
constexpr int kMaxTopk = 127;
// AITER's sorters are tested at block 16, 32, 64, 80 and 128; 80 is left
// out: it is no multiple of the 16-row MFMA tile or of the 32-row groups of
// the sorted-scale shuffle, so its blocks would straddle both.
constexpr int kValidBlock[] = {16, 32, 64, 128};
constexpr int kValidStage[] = {1, 2};
constexpr int kValidEmask[] = {0, 1};

// The MoE kernel feeds gemm_a4w4 directly, whose scales are shuffled.
void fillDefaults(KernelSpec &spec, const bool *given) {
  if (!given[static_cast<size_t>(SK::Layout)])
    spec.layout = ScaleLayout::A4W4Shuffle;
}

Status validate(const KernelSpec &spec) {
  if (spec.E < kMinE || spec.E > kMaxE)
    return specKeyFailure(spec, SK::E,
                          "E must be in " + std::to_string(kMinE) + ".." + std::to_string(kMaxE));
  if (spec.topk < 1)
    return specKeyFailure(spec, SK::Topk,
                          "topk must be in 1..E (E=" + std::to_string(spec.E) + ")");
  if (spec.topk > spec.E)
    return Status::failure("topk=" + std::to_string(spec.topk) +
                           " must be <= E=" + std::to_string(spec.E));
  if (spec.topk > kMaxTopk)
    return specKeyFailure(spec, SK::Topk,
                          "topk must be <= " + std::to_string(kMaxTopk) +
                              " (sorted ids store the slot in bits 24..30)");
  if (!isOneOf(kValidBlock, spec.block))
    return specKeyFailure(spec, SK::Block, "block must be one of " + joinedNumbers(kValidBlock));
  if (!isOneOf(kValidStage, spec.stage))
    return specKeyFailure(spec, SK::Stage,
                          "stage must be 1 (x [M, K], one row per token) or 2 (x [M, topk, K], "
                          "one row per routed (token, slot))");
  if (!isOneOf(kValidEmask, spec.emask))
    return specKeyFailure(spec, SK::Emask,
                          "emask must be 0 (every expert is local) or 1 (the kernel takes "
                          "expert_mask [E])");
  return Status::success();
}

// The MoE front ends of an expert layer: stage 1 quantizes the tokens (K =
// hidden) into the sorted order of the up/gate GEMM, stage 2 the routed rows
// of the down GEMM's input (K = the experts' intermediate size). AITER's MoE
// path: RCEIL scales, shuffled, block 32.
void presetSpecs(const ModelShapes &model, std::vector<KernelSpec> &specs) {
  if (model.experts == 0)
    return;
  for (auto [k, stage] : {std::pair{model.hidden, 1}, std::pair{model.expertIntermediate, 2}})
    for (int bucket : kMBuckets) {
      KernelSpec spec = presetSpec(KernelOp::RotateQuantMoe);
      spec.K = k;
      spec.M = bucket;
      spec.topk = model.topk;
      spec.E = model.experts;
      spec.block = 32;
      spec.stage = stage;
      spec.scale = ScaleRule::Rceil;
      spec.layout = ScaleLayout::A4W4Shuffle;
      specs.push_back(spec);
    }
}

// What bindings show as the op's help (Python's docstring, docs/python.md).
constexpr const char kDescription[] = R"(Rotates and MX-quantizes the tokens of a MoE layer and sorts their
routing as AITER's fused MoE expects, in one launch.

`x` is [m, K] bf16 (stage 1, one row per token) or [m, topk, K] (stage=2,
one row per routed (token, slot)); `topk_ids` [m, topk] int32 and
`topk_weights` [m, topk] float32 are the router's choice. `spec` is a
rotate_quant_moe spec (docs/spec.md); keyword arguments may stand in for
or add to its keys (``e=128, rs=128, scale="rceil",
layout="a4w4_shuffle", block=32``); K defaults to x's last dimension and
topk to topk_ids.shape[1]; E must be given. `r` is the learned rotation;
`expert_mask` ([E] int32, nonzero = local) goes with emask=1. Returns
(q, s, sorted_ids, sorted_weights, sorted_expert_ids, num_valid_ids) in
docs/templates.md's formats (s holds the valid sorted rows' scales; rows
past them are not written), or writes them into ``out=(...)``. Ids
outside [0, E) are refused on the emu device (the C API reads them).)";

} // namespace

extern const OpDeclaration kOpDeclaration = {KernelOp::RotateQuantMoe,
                                             "rotate_quant_moe",
                                             keyList(kKeys),
                                             keyList(kRequired),
                                             /*writesA6W6Tiles=*/false,
                                             fillDefaults,
                                             validate,
                                             kDescription,
                                             presetSpecs};

} // namespace mxf::rotate_quant_moe
