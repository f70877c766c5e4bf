//===- op_abi.cpp - rotate_quant_gemm's kernel ABI --------------------------===//
//
// Plain C++, linked into mxforge_abi (abi/op_abi.h): rotate_quant_gemm's
// operands: x, [r], [layer_mask], the prepared weights w_q and w_s, then y,
// then the workspace ws where the chains are split (abi/gemm_split.h).
//
//===----------------------------------------------------------------------===//

#include "abi/gemm_split.h"
#include "abi/op_abi.h"
#include "abi/operand_builders.h"

#include "numerics/packing.h"
#include "numerics/reference.h"
#include "numerics/formats.h"

namespace mxf::rotate_quant_gemm {
namespace {

using namespace abi_detail;

void operands(const KernelSpec &spec, int64_t rows, const std::string &R,
              std::vector<KernelOperand> &ops) {
  const int64_t k = spec.K, m = rows, n = spec.N;
  const std::string mWhy = R + "=" + str(m);
  const std::string nWhy = "N=" + str(n);
  ops.push_back(meant(bf16Rows("x", m, k, mWhy + ", K=" + str(k) + " ([" + R + ", K])", false,
                               "x_stride"),
                      "bf16 activations"));
  addRotationInputs(spec, ops);
  // fmt=fp4: A4W4's fp4 weights [N, K/2]; fp6_e2m3: W6A16's [N, 3K/4].
  ops.push_back(meant({"w_q",
                       OperandElement::I8,
                       {n, static_cast<int64_t>(packedBytes(spec.fmt, size_t(k)))},
                       false,
                       nWhy + ", K=" + str(k) + ", fmt=" + fmtName(spec.fmt) +
                           ", wlayout=" + weightLayoutName(spec.wlayout) + " (" +
                           str(formatInfo(spec.fmt).bits) + "-bit codes, K*" +
                           str(formatInfo(spec.fmt).bits) + "/8 bytes per row)"},
                      std::string("packed ") + fmtName(spec.fmt) + " weight codes, " +
                          weightLayoutName(spec.wlayout)));
  ops.push_back(meant(scaleOperand("w_s", spec, n, nWhy, kA4W4RowPadding, false),
                      std::string("E8M0 weight scales, ") + scaleLayoutName(spec.layout)));
  ops.push_back(meant(
      bf16Rows("y", m, n, mWhy + ", " + nWhy + " ([" + R + ", N])", true, "y_stride"),
      spec.fmt == ElemFormat::E2M3 ? "bf16 bf16(x.R).W^T (W6A16)" : "bf16 x.W^T"));
  const GemmChainSplit split = gemmChainSplit(spec);
  if (!split.split)
    return;
  KernelOperand ws = meant({"ws",
                            OperandElement::I32,
                            {(m + 15) / 16, split.wordsPerRowTile},
                            false,
                            "ceil(" + R + "/16)=" + str((m + 15) / 16) + " row tiles, " + nWhy +
                                ", K=" + str(k) + " (" + str(split.columnGroups) +
                                " column groups: counters, then 4 chains x " +
                                str(64 * split.tilesPerWave) +
                                " columns x 16 rows of f32 partial sums)"},
                           "zeroed workspace: split-K partial sums and arrival counters, left "
                           "zero by every launch");
  ws.workspace = true;
  ops.push_back(std::move(ws));
}

using E = OperandElement;

constexpr OperandSlot kSlots[] = {
    {"x", E::Bf16, false, false, kRanks2},
    {"r", E::Bf16, false, true, kRanks2 | kRanks3},
    {"layer_mask", E::I32, false, true, kRanks1},
    {"w_q", E::I8, false, false, kRanks2},
    {"w_s", E::I8, false, false, kRanks2},
    {"y", E::Bf16, true, false, kRanks2},
    {"ws", E::I32, false, true, kRanks2},
};
constexpr ShapeKey kShapeKeys[] = {{spec_detail::SpecKey::K, "x", 1},
                                   {spec_detail::SpecKey::N, "w_q", 0}};

// The workspace holds one stripe per 16-row tile.
void rowExtents(const KernelSpec &spec, std::vector<RowExtent> &extents) {
  if (gemmChainSplit(spec).split)
    extents.push_back({"ceil(rows/16)", 1, 0, 16, 1});
}

} // namespace

extern const OpAbi kOpAbi = {KernelOp::RotateQuantGemm,
                             /*rowsFrom=*/"x",
                             /*srSeedOperand=*/false,
                             operands,
                             spanOf(kSlots),
                             spanOf(kShapeKeys),
                             rowExtents};

} // namespace mxf::rotate_quant_gemm
