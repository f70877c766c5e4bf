//===- op_abi.cpp - quant_weight's kernel ABI -------------------------------===//
//
// Plain C++, linked into mxforge_abi (abi/op_abi.h): quant_weight's operands:
// w, [r], then q and s; no row count (it always processes its N rows).
//
//===----------------------------------------------------------------------===//

#include "abi/op_abi.h"
#include "abi/operand_builders.h"
#include "numerics/reference.h"

namespace mxf::quant_weight {
namespace {

using namespace abi_detail;

// The weights have no launch rows: always N of them.
void operands(const KernelSpec &spec, int64_t /*rows*/, const std::string & /*rowsName*/,
              std::vector<KernelOperand> &ops) {
  const int64_t k = spec.K, n = spec.N;
  const std::string nWhy = "N=" + str(n);
  ops.push_back(
      meant(bf16Rows("w", n, k, nWhy + ", K=" + str(k) + " ([N, K])", false, "w_stride"),
            "bf16 weights"));
  addRotationInputs(spec, ops);
  KernelOperand q = codesOperand("q", spec, n, nWhy, true);
  q.derivation += std::string(", wlayout=") + weightLayoutName(spec.wlayout);
  ops.push_back(meant(std::move(q),
                      codesMeaning(spec) + ", " + weightLayoutName(spec.wlayout)));
  ops.push_back(
      meant(scaleOperand("s", spec, n, nWhy, kA4W4RowPadding, true), scalesMeaning(spec)));
}

using E = OperandElement;

constexpr OperandSlot kSlots[] = {
    {"w", E::Bf16, false, false, kRanks2},
    {"r", E::Bf16, false, true, kRanks2 | kRanks3},
    {"q", E::I8, true, false, kRanks2},
    {"s", E::I8, true, false, kRanks2},
};
constexpr ShapeKey kShapeKeys[] = {{spec_detail::SpecKey::K, "w", 1},
                                   {spec_detail::SpecKey::N, "w", 0}};

} // namespace

extern const OpAbi kOpAbi = {KernelOp::QuantWeight,
                             /*rowsFrom=*/nullptr,
                             /*srSeedOperand=*/false,
                             operands,
                             spanOf(kSlots),
                             spanOf(kShapeKeys)};

} // namespace mxf::quant_weight
