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

} // namespace

extern const OpAbi kOpAbi = {KernelOp::RotateQuant, /*rowsOperand=*/true,
                             /*srSeedOperand=*/true, operands};

} // namespace mxf::rotate_quant
