//===- op_spec.cpp - rotate_quant_moe's op as the spec layer knows it ------===//
//
// Plain C++, linked into mxforge_spec (spec/op_declaration.h): the keys of
// rotate_quant_moe in canonical order (docs/spec.md), which are required,
// its default scale layout and the rules of its routing keys.
//
//===----------------------------------------------------------------------===//

#include "spec/op_declaration.h"

namespace mxf::rotate_quant_moe {
namespace {

using SK = spec_detail::SpecKey;

constexpr SK kKeys[] = {SK::K,     SK::RS,    SK::Rot,   SK::Rconv, SK::M,     SK::Topk,
                        SK::E,     SK::Block, SK::Stage, SK::Emask, SK::Fmt,   SK::Scale,
                        SK::Round, SK::Inter, SK::Layout, SK::Arch};
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

} // namespace

extern const OpDeclaration kOpDeclaration = {KernelOp::RotateQuantMoe,
                                             "rotate_quant_moe",
                                             keyList(kKeys),
                                             keyList(kRequired),
                                             /*writesA6W6Tiles=*/false,
                                             fillDefaults,
                                             validate};

} // namespace mxf::rotate_quant_moe
