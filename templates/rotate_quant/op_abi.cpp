//===- op_abi.cpp - rotate_quant's kernel ABI -------------------------------===//
//
// Plain C++, linked into mxforge_abi (abi/op_abi.h): rotate_quant's operands:
// x, [r], [seed], [layer_mask], then q and s (or AITER's A6W6 tiles).
//
//===----------------------------------------------------------------------===//

#include "abi/op_abi.h"
#include "abi/operand_builders.h"
#include "numerics/reference.h"

namespace mxf::rotate_quant {
namespace {

using namespace abi_detail;

void operands(const KernelSpec &spec, int64_t rows, const std::string &R,
              std::vector<KernelOperand> &ops) {
  const int64_t k = spec.K, m = rows;
  const std::string mWhy = R + "=" + str(m);
  ops.push_back(meant(bf16Rows("x", m, k, mWhy + ", K=" + str(k) + " ([" + R + ", K])", false,
                               "x_stride"),
                      "bf16 activations"));
  addRotationInputs(spec, ops);
  if (spec.layout == ScaleLayout::A6W6Tiles) {
    addA6W6Tiles(spec, m, mWhy, ops);
    return;
  }
  ops.push_back(meant(codesOperand("q", spec, m, mWhy, true, "q_stride"), codesMeaning(spec)));
  ops.push_back(
      meant(scaleOperand("s", spec, m, mWhy, kA4W4RowPadding, true), scalesMeaning(spec)));
}

using E = OperandElement;

constexpr OperandSlot kSlots[] = {
    {"x", E::Bf16, false, false, kRanks2},
    {"r", E::Bf16, false, true, kRanks2 | kRanks3},
    {"seed", E::I32, false, true, kRanks1},
    {"layer_mask", E::I32, false, true, kRanks1},
    {"q", E::I8, true, false, kRanks2},
    {"s", E::I8, true, false, kRanks2},
};
constexpr ShapeKey kShapeKeys[] = {{spec_detail::SpecKey::K, "x", 1}};

} // namespace

extern const OpAbi kOpAbi = {KernelOp::RotateQuant,
                             /*rowsFrom=*/"x",
                             /*srSeedOperand=*/true,
                             operands,
                             spanOf(kSlots),
                             spanOf(kShapeKeys)};

} // namespace mxf::rotate_quant
