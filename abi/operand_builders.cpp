//===- operand_builders.cpp - Pieces every op's operand list uses ----------===//
//
// Shapes follow numerics/reference.h and ../shared/docs/MX_LAYOUTS.md, through
// the numerics/ functions that define them (packedBytes, a4w4ShuffledShape,
// a6w6Shape), so the IR can never disagree with the reference about a
// buffer's size.
//
//===----------------------------------------------------------------------===//

#include "abi/operand_builders.h"

#include "numerics/a6w6.h"
#include "numerics/layouts.h"
#include "numerics/packing.h"
#include "numerics/quantize.h"
#include "numerics/reference.h"

namespace mxf::abi_detail {

std::string str(int64_t value) { return std::to_string(value); }

const char *fmtName(ElemFormat format) { return formatInfo(format).specName; }

/// The scale matrix of `rows` rows of K channels in `layout`; shuffled rows
/// are padded to `rowPadding` (256 dense/weights, 32 MoE-sorted).
KernelOperand scaleOperand(const char *name, const KernelSpec &spec, int64_t rows,
                           const std::string &rowsWhy, size_t rowPadding, bool written) {
  const size_t cols = static_cast<size_t>(spec.K) / kMxBlock;
  KernelOperand op{name, OperandElement::I8, {}, written, ""};
  if (spec.layout == ScaleLayout::Plain) {
    op.shape = {rows, static_cast<int64_t>(cols)};
    op.derivation = rowsWhy + ", K=" + str(spec.K) + ", layout=plain ([rows, K/32])";
  } else {
    ScaleShape padded = a4w4ShuffledShape(static_cast<size_t>(rows), cols, rowPadding);
    op.shape = {static_cast<int64_t>(padded.rows), static_cast<int64_t>(padded.cols)};
    op.derivation = rowsWhy + ", K=" + str(spec.K) + ", layout=a4w4_shuffle (rows padded to " +
                    std::to_string(rowPadding) + ", K/32 columns padded to 8)";
  }
  return op;
}

/// Packed codes: rows x packedBytes(fmt, K).
KernelOperand codesOperand(const char *name, const KernelSpec &spec, int64_t rows,
                           const std::string &rowsWhy, bool written,
                           const char *rowStrideArg) {
  const int bits = formatInfo(spec.fmt).bits;
  return {name,
          OperandElement::I8,
          {rows, static_cast<int64_t>(packedBytes(spec.fmt, static_cast<size_t>(spec.K)))},
          written,
          rowsWhy + ", K=" + str(spec.K) + ", fmt=" + fmtName(spec.fmt) + " (" + str(bits) +
              "-bit codes, K*" + str(bits) + "/8 bytes per row)",
          rowStrideArg};
}

KernelOperand bf16Rows(const char *name, int64_t rows, int64_t cols, const std::string &why,
                       bool written, const char *rowStrideArg) {
  return {name, OperandElement::Bf16, {rows, cols}, written, why, rowStrideArg};
}

/// `op` with its meaning for messages and listings.
KernelOperand meant(KernelOperand op, std::string meaning) {
  op.meaning = std::move(meaning);
  return op;
}

std::string codesMeaning(const KernelSpec &spec) {
  return std::string("packed ") + fmtName(spec.fmt) + " codes";
}
std::string scalesMeaning(const KernelSpec &spec) {
  return std::string("E8M0 scales, ") + scaleLayoutName(spec.layout);
}

/// layout=mxfp6_c0c1_256_padk2: q and s as AITER's A6W6 operand tiles
/// (numerics/a6w6.h), each a dense matrix of pad256(rows) rows whose row
/// tiles are 256-row x 128-K tiles plus two K guard tiles. Dense: a tile
/// layout has no row stride.
void addA6W6Tiles(const KernelSpec &spec, int64_t rows, const std::string &rowsWhy,
                  std::vector<KernelOperand> &ops) {
  const A6W6Shape tiles = a6w6Shape(size_t(rows), size_t(spec.K));
  const std::string why = rowsWhy + ", K=" + str(spec.K) +
                          ", layout=mxfp6_c0c1_256_padk2 (rows padded to 256; per row tile " +
                          str(int64_t(tiles.kTilesPerRow)) + " K tiles = ceil(K/128) + 2 guard";
  ops.push_back(meant({"q",
                       OperandElement::I8,
                       {int64_t(tiles.paddedRows()), int64_t(tiles.codeRowBytes())},
                       true,
                       why + ", 24576 bytes each)"},
                      codesMeaning(spec) + ", AITER A6W6 tiles (C0 16 B + C1 8 B per block)"));
  ops.push_back(meant({"s",
                       OperandElement::I8,
                       {int64_t(tiles.paddedRows()), int64_t(tiles.scaleRowBytes())},
                       true,
                       why + ", 1024 scale bytes each)"},
                      "E8M0 scales, AITER A6W6 tiles (pad byte 127)"));
}

void addRotationInputs(const KernelSpec &spec, std::vector<KernelOperand> &ops) {
  const int64_t rs = spec.RS;
  if (spec.rot == RotationKind::Learned)
    ops.push_back(meant(
        {"r", OperandElement::Bf16, {rs, rs}, false, "RS=" + str(rs) + ", rot=learned ([RS, RS])"},
        spec.rconv == RotationConvention::XRt ? "bf16 rotation R[out][in] (y = x.R^T)"
                                              : "bf16 rotation R[in][out]"));
  else if (spec.rot == RotationKind::LearnedPerBlock)
    ops.push_back(meant(
        {"r",
         OperandElement::Bf16,
         {spec.K / rs, rs, rs},
         false,
         "K=" + str(spec.K) + ", RS=" + str(rs) + ", rot=learned_per_block ([K/RS, RS, RS])"},
        spec.rconv == RotationConvention::XRt ? "bf16 rotation per block R_b[out][in] (y = x.R_b^T)"
                                              : "bf16 rotation per block R_b[in][out]"));
  // Stochastic rounding's seed: device memory, so a captured graph picks up
  // a new seed per step without re-capture (docs/abi.md).
  if (kernelHasSeedOperand(spec))
    ops.push_back(meant({"seed", OperandElement::I32, {1}, false, "round=sr ([1])"},
                        "stochastic rounding seed (one u32; numerics srRandomForElement)"));
  // Selective rotation's mask: device memory too, so a captured graph picks
  // up a recalibrated mask; each layer's launch passes only its index.
  if (spec.select == RotationSelect::Mask)
    ops.push_back(meant({"layer_mask",
                         OperandElement::I32,
                         {spec.layers},
                         false,
                         "select=mask, layers=" + str(spec.layers) + " ([layers])"},
                        "per-layer rotation mask: entry `layer` nonzero rotates"));
}

} // namespace mxf::abi_detail
