//===- operands.cpp - The kernel ABI: names, operands, by-value arguments -===//
//
// Shapes follow numerics/reference.h and ../shared/docs/MX_LAYOUTS.md, through
// the numerics/ functions that define them (packedBytes, a4w4ShuffledShape,
// moeSortedCapacity), so the IR can never disagree with the reference about
// a buffer's size.
//
//===----------------------------------------------------------------------===//

#include "abi/operands.h"

#include "numerics/a6w6.h"
#include "numerics/layouts.h"
#include "numerics/moe_sorting.h"
#include "numerics/packing.h"
#include "numerics/quantize.h"
#include "numerics/reference.h"
#include "spec/kernel_name.h"


namespace mxf {
namespace {

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
                           const char *rowStrideArg = nullptr) {
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
                       bool written, const char *rowStrideArg = nullptr) {
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
  if (spec.round == Rounding::Sr &&
      (spec.op == KernelOp::RotateQuant || spec.op == KernelOp::RotateQuantMoe))
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

} // namespace

const char *operandElementName(OperandElement element) {
  switch (element) {
  case OperandElement::Bf16:
    return "bf16";
  case OperandElement::I8:
    return "i8";
  case OperandElement::I32:
    return "i32";
  case OperandElement::F32:
    return "f32";
  }
  return "?";
}

uint64_t elementBytes(OperandElement element) {
  switch (element) {
  case OperandElement::Bf16:
    return 2;
  case OperandElement::I8:
    return 1;
  case OperandElement::I32:
  case OperandElement::F32:
    return 4;
  }
  return 1;
}

int64_t KernelOperand::rowElements() const {
  int64_t n = 1;
  for (size_t d = 1; d < shape.size(); ++d)
    n *= shape[d];
  return n;
}

uint64_t operandSpanBytes(const KernelOperand &operand, int64_t rowStride) {
  const uint64_t element = elementBytes(operand.element);
  if (operand.shape.empty())
    return element;
  const uint64_t rows = uint64_t(operand.shape[0]);
  if (rows == 0)
    return 0;
  const uint64_t row = uint64_t(operand.rowElements());
  if (!operand.strided())
    return rows * row * element;
  return ((rows - 1) * uint64_t(rowStride) + row) * element;
}

bool kernelHasRowsOperand(KernelOp op) { return op != KernelOp::QuantWeight; }

const char *selectionArgName(const KernelSpec &spec) {
  switch (spec.select) {
  case RotationSelect::Off:
    return nullptr;
  case RotationSelect::Flag:
    return "rotate";
  case RotationSelect::Mask:
    return "layer";
  }
  return nullptr;
}

Status checkSelectionValue(const KernelSpec &spec, std::optional<int64_t> value) {
  const char *name = selectionArgName(spec);
  if (!name) {
    if (value)
      return Status::failure(printSpec(spec) +
                             " always rotates (select=off): it takes no rotate or layer value");
    return Status::success();
  }
  if (!value)
    return Status::failure(std::string("select=") + rotationSelectName(spec.select) +
                           " needs the by-value '" + name + "' at launch (" +
                           (spec.select == RotationSelect::Flag
                                ? "nonzero rotates, 0 does not"
                                : "the layer's index into layer_mask, 0.." +
                                      str(spec.layers - 1)) +
                           ")");
  if (spec.select == RotationSelect::Mask && (*value < 0 || *value >= spec.layers))
    return Status::failure("layer=" + std::to_string(*value) + " is outside 0.." +
                           str(spec.layers - 1) + " (layer_mask has layers=" + str(spec.layers) +
                           " entries)");
  if (spec.select == RotationSelect::Flag && (*value < INT32_MIN || *value > INT32_MAX))
    return Status::failure("rotate=" + std::to_string(*value) + " does not fit the kernel's i32");
  return Status::success();
}

int64_t maxLaunchRows(const KernelSpec &spec) {
  return kernelHasRowsOperand(spec.op) ? spec.M : spec.N;
}

Status checkLaunchRows(const KernelSpec &spec, int64_t m) {
  if (!kernelHasRowsOperand(spec.op)) {
    if (m == spec.N)
      return Status::success();
    return Status::failure("M=" + std::to_string(m) + ": " + kernelOpName(spec.op) +
                           " always processes its N=" + std::to_string(spec.N) +
                           " rows; launch it with m = N");
  }
  if (m < 1 || m > spec.M)
    return Status::failure("M=" + std::to_string(m) + " is outside 1.." + std::to_string(spec.M) +
                           " (the bucket of " + printSpec(spec) + ")");
  return Status::success();
}

Status checkLaunchRows(const KernelSpec &spec, const LaunchRecord &record, int64_t m) {
  if (!kernelHasRowsOperand(spec.op))
    return checkLaunchRows(spec, m);
  return record.checkRows(m); // the class's limit, which the record carries
}

std::vector<ScalarArg> kernelScalarArgs(const KernelSpec &spec) {
  std::vector<ScalarArg> args;
  if (kernelHasRowsOperand(spec.op))
    args.push_back({"m", "rows of this launch (1 <= m <= the code object's limit)"});
  for (const KernelOperand &operand : kernelOperands(spec))
    if (operand.strided())
      args.push_back({operand.rowStrideArg, operand.element == OperandElement::I8
                                                ? "row stride in bytes (>= the row's bytes)"
                                                : "row stride in elements (>= K)"});
  if (const char *name = selectionArgName(spec))
    args.push_back({name, spec.select == RotationSelect::Flag
                              ? "nonzero: rotate; 0: quantize x unrotated (select=flag)"
                              : "index into layer_mask, 0 <= layer < layers (select=mask)"});
  return args;
}

int64_t moeCapacity(const KernelSpec &spec, int64_t rows) {
  return static_cast<int64_t>(moeSortedCapacity(size_t(rows), spec.topk, spec.E, spec.block));
}

int64_t moeBlocks(const KernelSpec &spec, int64_t rows) {
  return spec.block > 0 ? (moeCapacity(spec, rows) + spec.block - 1) / spec.block : 0;
}

std::string kernelName(const KernelSpec &spec) {
  std::string name = std::string("mxf_") + kernelOpName(spec.op);
  appendKernelNameParts(name, spec);
  return name;
}

namespace {
std::vector<KernelOperand> operandsAt(const KernelSpec &spec, int64_t rows, const std::string &R);
} // namespace

// The derivations name the bucket M for the static shapes and m for a
// launch's rows.
std::vector<KernelOperand> kernelOperands(const KernelSpec &spec) {
  return operandsAt(spec, spec.M, "M");
}

std::vector<KernelOperand> kernelOperands(const KernelSpec &spec, int64_t rows) {
  return operandsAt(spec, rows, "m");
}

Result<KernelOperand> findKernelOperand(const KernelSpec &spec, int64_t rows,
                                        const std::string &name) {
  std::string names;
  for (KernelOperand &operand : kernelOperands(spec, rows)) {
    if (name == operand.name)
      return std::move(operand);
    names += names.empty() ? "" : ", ";
    names += operand.name;
  }
  return Result<KernelOperand>::failure("'" + name + "' is not an operand of " + printSpec(spec) +
                                        " (its operands: " + names + ")");
}

namespace {
std::vector<KernelOperand> operandsAt(const KernelSpec &spec, int64_t rows, const std::string &R) {
  std::vector<KernelOperand> ops;
  const int64_t k = spec.K, m = rows, n = spec.N;
  const std::string mWhy = R + "=" + str(m);
  const std::string nWhy = "N=" + str(n);
  switch (spec.op) {
  case KernelOp::RotateQuant:
    ops.push_back(meant(bf16Rows("x", m, k, mWhy + ", K=" + str(k) + " ([" + R + ", K])", false,
                                 "x_stride"),
                        "bf16 activations"));
    addRotationInputs(spec, ops);
    if (spec.layout == ScaleLayout::A6W6Tiles) {
      addA6W6Tiles(spec, m, mWhy, ops);
      break;
    }
    ops.push_back(meant(codesOperand("q", spec, m, mWhy, true, "q_stride"), codesMeaning(spec)));
    ops.push_back(
        meant(scaleOperand("s", spec, m, mWhy, kA4W4RowPadding, true), scalesMeaning(spec)));
    break;
  case KernelOp::RotateQuantMoe: {
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
    break;
  }
  case KernelOp::RotateQuantGemm:
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
    break;
  case KernelOp::QuantWeight: {
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
    break;
  }
  }
  return ops;
}
} // namespace

} // namespace mxf
