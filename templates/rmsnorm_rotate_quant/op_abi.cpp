//===- op_abi.cpp - rmsnorm_rotate_quant's kernel ABI -----------------------===//
//
// Plain C++, linked into mxforge_abi (abi/op_abi.h): x, [residual], gamma,
// [r], [seed], [layer_mask], then q and s (or AITER's A6W6 tiles) and, with
// add=1, residual_out; by value after the row count, the strides and
// any selection: eps (f32).
//
//===----------------------------------------------------------------------===//

#include "abi/op_abi.h"
#include "abi/operand_builders.h"
#include "numerics/reference.h"

#include <cmath>

namespace mxf::rmsnorm_rotate_quant {
namespace {

using namespace abi_detail;

void operands(const KernelSpec &spec, int64_t rows, const std::string &R,
              std::vector<KernelOperand> &ops) {
  const int64_t k = spec.K, m = rows;
  const std::string mWhy = R + "=" + str(m);
  const std::string rowsWhy = mWhy + ", K=" + str(k) + " ([" + R + ", K])";
  ops.push_back(meant(bf16Rows("x", m, k, rowsWhy, false, "x_stride"), "bf16 activations"));
  if (spec.add)
    ops.push_back(meant(bf16Rows("residual", m, k, rowsWhy + ", add=1", false,
                                 "residual_stride"),
                        "bf16 residual stream, added to x before the norm"));
  KernelOperand gamma{"gamma", OperandElement::Bf16, {k}, false, "K=" + str(k) + " ([K])"};
  ops.push_back(meant(gamma, "the norm's bf16 gain"));
  addRotationInputs(spec, ops);
  if (spec.layout == ScaleLayout::A6W6Tiles) {
    addA6W6Tiles(spec, m, mWhy, ops);
  } else {
    ops.push_back(meant(codesOperand("q", spec, m, mWhy, true, "q_stride"), codesMeaning(spec)));
    ops.push_back(
        meant(scaleOperand("s", spec, m, mWhy, kA4W4RowPadding, true), scalesMeaning(spec)));
  }
  if (spec.add)
    ops.push_back(meant(bf16Rows("residual_out", m, k, rowsWhy + ", add=1", true),
                        "x + residual in bf16: the next layer's residual (dense rows)"));
}

Status checkEps(double eps) {
  // 0 is allowed (a norm without epsilon); a negative, huge or non-finite
  // eps is a caller's mistake the kernel would turn into NaN rows.
  if (!std::isfinite(eps) || eps < 0 || eps > 1)
    return Status::failure("eps must be a finite value in [0, 1] (the norm's epsilon, "
                           "typically 1e-6 or 1e-5)");
  return Status::success();
}

using E = OperandElement;

constexpr OperandSlot kSlots[] = {
    {"x", E::Bf16, false, false, kRanks2},
    {"residual", E::Bf16, false, true, kRanks2},
    {"gamma", E::Bf16, false, false, kRanks1},
    {"r", E::Bf16, false, true, kRanks2 | kRanks3},
    {"seed", E::I32, false, true, kRanks1},
    {"layer_mask", E::I32, false, true, kRanks1},
    {"q", E::I8, true, false, kRanks2},
    {"s", E::I8, true, false, kRanks2},
    {"residual_out", E::Bf16, true, true, kRanks2},
};
constexpr ShapeKey kShapeKeys[] = {{spec_detail::SpecKey::K, "x", 1}};
constexpr ValueArg kValues[] = {
    {"eps", "the norm's epsilon, added to mean(z^2) (f32, in [0, 1])", checkEps, 1e-6}};

} // namespace

extern const OpAbi kOpAbi = {KernelOp::RmsnormRotateQuant,
                             /*rowsFrom=*/"x",
                             /*srSeedOperand=*/true,
                             operands,
                             spanOf(kSlots),
                             spanOf(kShapeKeys),
                             /*rowExtents=*/nullptr,
                             spanOf(kValues)};

} // namespace mxf::rmsnorm_rotate_quant
