//===- op_abi.cpp - rotate_quant_moe's kernel ABI ---------------------------===//
//
// Plain C++, linked into mxforge_abi (abi/op_abi.h): rotate_quant_moe's
// operands: x, [r], [seed], [layer_mask], the routing, [expert_mask], then the codes, the
// sorted scales and AITER's moe_sorting outputs.
//
//===----------------------------------------------------------------------===//

#include "abi/op_abi.h"
#include "abi/operand_builders.h"

#include "numerics/packing.h"
#include "numerics/reference.h"
#include "numerics/formats.h"

namespace mxf::rotate_quant_moe {
namespace {

using namespace abi_detail;

void operands(const KernelSpec &spec, int64_t rows, const std::string &R,
              std::vector<KernelOperand> &ops) {
  const int64_t k = spec.K, m = rows;
  const std::string mWhy = R + "=" + str(m);
  const int64_t topk = spec.topk, capacity = moeCapacity(spec, m), blocks = moeBlocks(spec, m);
  const std::string sortWhy = R + "=" + str(m) + ", topk=" + str(topk) + ", E=" + str(spec.E) +
                              ", block=" + str(spec.block);
  const std::string capWhy =
      sortWhy + " (capacity " + R + "*topk + E*block - topk = " + str(capacity) + ")";
  const std::string routeWhy = mWhy + ", topk=" + str(topk) + " ([" + R + ", topk])";
  const bool routed = spec.stage == 2;
  if (!routed) {
    ops.push_back(meant(bf16Rows("x", m, k, mWhy + ", K=" + str(k) + " ([" + R + ", K])",
                                 false, "x_stride"),
                        "bf16 activations, one row per token"));
  } else {
    // Stage 2 reads the stage-1 GEMM's output, a fresh dense tensor
    // [m, topk, K] (AITER's a2): no row stride.
    ops.push_back(meant({"x",
                         OperandElement::Bf16,
                         {m, topk, k},
                         false,
                         mWhy + ", topk=" + str(topk) + ", K=" + str(k) + ", stage=2 ([" + R +
                             ", topk, K])"},
                        "bf16 activations, one row per routed (token, slot)"));
  }
  addRotationInputs(spec, ops);
  ops.push_back(meant({"topk_ids", OperandElement::I32, {m, topk}, false, routeWhy},
                      "expert id per (token, slot)"));
  ops.push_back(meant({"topk_weights", OperandElement::F32, {m, topk}, false, routeWhy},
                      "routing weight per (token, slot)"));
  if (spec.emask == 1)
    ops.push_back(meant({"expert_mask",
                         OperandElement::I32,
                         {spec.E},
                         false,
                         "E=" + str(spec.E) + ", emask=1 ([E])"},
                        "nonzero for the experts this rank sorts"));
  if (!routed) {
    ops.push_back(meant(codesOperand("q", spec, m, mWhy + " (token order)", true, "q_stride"),
                        codesMeaning(spec) + ", token order"));
  } else {
    const int bits = formatInfo(spec.fmt).bits;
    ops.push_back(meant({"q",
                         OperandElement::I8,
                         {m, topk, static_cast<int64_t>(packedBytes(spec.fmt, size_t(k)))},
                         true,
                         mWhy + ", topk=" + str(topk) + ", K=" + str(k) + ", fmt=" +
                             fmtName(spec.fmt) + ", stage=2 ([" + R + ", topk, K*" +
                             str(bits) + "/8] bytes)"},
                        codesMeaning(spec) + ", (token, slot) order"));
  }
  ops.push_back(meant(scaleOperand("s", spec, capacity,
                                   "capacity=" + str(capacity) + " (" + sortWhy +
                                       ", sorted order)",
                                   kMoeRowPadding, true),
                      std::string("E8M0 scales, sorted order, ") +
                          scaleLayoutName(spec.layout)));
  ops.push_back(meant({"sorted_ids", OperandElement::I32, {capacity}, true, capWhy},
                      "(topk_pos << 24) | token, by expert"));
  ops.push_back(meant({"sorted_weights", OperandElement::F32, {capacity}, true, capWhy},
                      "topk_weights of each sorted entry (0 for padding)"));
  ops.push_back(meant({"sorted_expert_ids",
                       OperandElement::I32,
                       {blocks},
                       true,
                       capWhy + ", ceil(capacity/block) = " + str(blocks) + " blocks"},
                      "local expert of each block (-1 past num_valid_ids[0])"));
  ops.push_back(meant({"num_valid_ids", OperandElement::I32, {2}, true,
                       "two i32 (AITER's num_valid_ids)"},
                      "valid entries of sorted_ids, then m"));
}

using E = OperandElement;

constexpr OperandSlot kSlots[] = {
    {"x", E::Bf16, false, false, kRanks2 | kRanks3},
    {"r", E::Bf16, false, true, kRanks2 | kRanks3},
    {"seed", E::I32, false, true, kRanks1},
    {"layer_mask", E::I32, false, true, kRanks1},
    {"topk_ids", E::I32, false, false, kRanks2},
    {"topk_weights", E::F32, false, false, kRanks2},
    {"expert_mask", E::I32, false, true, kRanks1},
    {"q", E::I8, true, false, kRanks2 | kRanks3},
    {"s", E::I8, true, false, kRanks2},
    {"sorted_ids", E::I32, true, false, kRanks1},
    {"sorted_weights", E::F32, true, false, kRanks1},
    {"sorted_expert_ids", E::I32, true, false, kRanks1},
    {"num_valid_ids", E::I32, true, false, kRanks1},
};
// K from x's last dimension ([m, K], or [m, topk, K] at stage 2), topk from
// the routing's width.
constexpr ShapeKey kShapeKeys[] = {{spec_detail::SpecKey::K, "x", -1},
                                   {spec_detail::SpecKey::Topk, "topk_ids", 1}};

// The sorted outputs follow AITER's capacity m*topk + E*block - topk
// (moeCapacity): the scales pad it to 32 rows, the expert ids count blocks.
void rowExtents(const KernelSpec &spec, std::vector<RowExtent> &extents) {
  static_assert(kMoeRowPadding == 32, "the label below names the padding");
  const int64_t offset = int64_t(spec.E) * spec.block - spec.topk;
  extents.push_back({"capacity", spec.topk, offset, 1, 1});
  extents.push_back({"pad32(capacity)", spec.topk, offset, 1, int64_t(kMoeRowPadding)});
  extents.push_back({"ceil(capacity/block)", spec.topk, offset, spec.block, 1});
}

} // namespace

extern const OpAbi kOpAbi = {KernelOp::RotateQuantMoe,
                             /*rowsFrom=*/"x",
                             /*srSeedOperand=*/true,
                             operands,
                             spanOf(kSlots),
                             spanOf(kShapeKeys),
                             rowExtents};

} // namespace mxf::rotate_quant_moe
