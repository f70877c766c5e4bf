//===- reference_arrays.cpp - Names, dtypes and shapes of op arrays -------===//
//
// Shapes follow numerics/reference.h and ../shared/docs/MX_LAYOUTS.md: codes
// [rows, packed bytes per row], scales [rows, K/32] or, shuffled, the padded
// [pad(rows), pad8(K/32)] (rows padded to 256, or to 32 for MoE-sorted rows).
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/reference_arrays.h"

#include "numerics/layouts.h"
#include "numerics/moe_sorting.h"
#include "numerics/packing.h"
#include "numerics/quantize.h"
#include "numerics/reference.h"

namespace mxf::cli {
namespace {

using Shape = std::vector<size_t>;

bool hasMBucket(KernelOp op) { return op != KernelOp::QuantWeight; }

Shape scaleShape(ScaleLayout layout, size_t rows, size_t cols, size_t rowPadding) {
  if (layout == ScaleLayout::Plain)
    return {rows, cols};
  ScaleShape padded = a4w4ShuffledShape(rows, cols, rowPadding);
  return {padded.rows, padded.cols};
}

/// The learned rotation input, when the spec has one.
void addRotationInput(const KernelSpec &spec, std::vector<ArraySpec> &inputs) {
  const size_t rs = static_cast<size_t>(spec.RS);
  if (spec.rot == RotationKind::Learned)
    inputs.push_back({"r", NpyDType::U16, {rs, rs}, "bf16 rotation R[in][out]"});
  else if (spec.rot == RotationKind::LearnedPerBlock)
    inputs.push_back({"r",
                      NpyDType::U16,
                      {static_cast<size_t>(spec.K) / rs, rs, rs},
                      "bf16 rotation per block R_b[in][out]"});
}

/// q and s of rows quantized like rotate_quant.
void addQuantizedOutputs(const KernelSpec &spec, size_t rows, std::vector<ArraySpec> &outputs) {
  const size_t k = static_cast<size_t>(spec.K);
  outputs.push_back({"q",
                     NpyDType::U8,
                     {rows, packedBytes(spec.fmt, k)},
                     std::string("packed ") + formatInfo(spec.fmt).specName + " codes"});
  outputs.push_back({"s", NpyDType::U8,
                     scaleShape(spec.layout, rows, k / kMxBlock, kA4W4RowPadding),
                     std::string("E8M0 scales, ") + scaleLayoutName(spec.layout)});
}

const ArraySpec *findIn(const std::vector<ArraySpec> &arrays, llvm::StringRef name) {
  for (const ArraySpec &array : arrays)
    if (array.name == name)
      return &array;
  return nullptr;
}

} // namespace

const ArraySpec *ReferenceSignature::findInput(llvm::StringRef name) const {
  return findIn(inputs, name);
}
const ArraySpec *ReferenceSignature::findOutput(llvm::StringRef name) const {
  return findIn(outputs, name);
}

std::string joinArrayNames(const std::vector<ArraySpec> &arrays) {
  std::string out;
  for (const ArraySpec &array : arrays) {
    if (!out.empty())
      out += ", ";
    out += array.name;
  }
  return out;
}

Result<ReferenceSignature> referenceSignature(const KernelSpec &spec, int m) {
  if (Status s = validateSpec(spec); !s.ok())
    return Result<ReferenceSignature>::failure("invalid spec: " + s.message());
  if (hasMBucket(spec.op) && (m < 1 || m > spec.M))
    return Result<ReferenceSignature>::failure(
        "M=" + std::to_string(m) + " is outside 1.." + std::to_string(spec.M) +
        ": a kernel for the M bucket M=" + std::to_string(spec.M) +
        " serves 1 <= M <= " + std::to_string(spec.M));

  const size_t k = static_cast<size_t>(spec.K), n = static_cast<size_t>(spec.N);
  const size_t mRows = static_cast<size_t>(m), cols = k / kMxBlock;
  ReferenceSignature sig;
  switch (spec.op) {
  case KernelOp::RotateQuant:
    sig.rows = mRows;
    sig.inputs.push_back({"x", NpyDType::U16, {mRows, k}, "bf16 activations"});
    addRotationInput(spec, sig.inputs);
    addQuantizedOutputs(spec, mRows, sig.outputs);
    break;
  case KernelOp::RotateQuantMoe: {
    sig.rows = mRows;
    sig.inputs.push_back({"x", NpyDType::U16, {mRows, k}, "bf16 activations"});
    addRotationInput(spec, sig.inputs);
    sig.inputs.push_back({"topk_ids",
                          NpyDType::I32,
                          {mRows, static_cast<size_t>(spec.topk)},
                          "expert id per (token, slot)"});
    const size_t capacity = moeSortedCapacity(m, spec.topk, spec.E, spec.block);
    const size_t block = static_cast<size_t>(spec.block);
    sig.outputs.push_back(
        {"q",
         NpyDType::U8,
         {mRows, packedBytes(spec.fmt, k)},
         std::string("packed ") + formatInfo(spec.fmt).specName + " codes, token order"});
    sig.outputs.push_back(
        {"s", NpyDType::U8, scaleShape(spec.layout, capacity, cols, kMoeRowPadding),
         std::string("E8M0 scales, sorted order, ") + scaleLayoutName(spec.layout)});
    sig.outputs.push_back(
        {"sorted_ids", NpyDType::I32, {capacity}, "(topk_pos << 24) | token, by expert"});
    sig.outputs.push_back({"sorted_expert_ids",
                           NpyDType::I32,
                           {(capacity + block - 1) / block},
                           "expert of each block (-1 past num_valid_ids)"});
    sig.outputs.push_back({"num_valid_ids", NpyDType::I32, {1}, "valid entries of sorted_ids"});
    break;
  }
  case KernelOp::RotateQuantGemm:
    sig.rows = mRows;
    sig.inputs.push_back({"x", NpyDType::U16, {mRows, k}, "bf16 activations"});
    addRotationInput(spec, sig.inputs);
    sig.inputs.push_back(
        {"w_q",
         NpyDType::U8,
         {n, k / 2},
         std::string("packed fp4 weight codes, ") + weightLayoutName(spec.wlayout)});
    sig.inputs.push_back({"w_s", NpyDType::U8, scaleShape(spec.layout, n, cols, kA4W4RowPadding),
                          std::string("E8M0 weight scales, ") + scaleLayoutName(spec.layout)});
    sig.outputs.push_back({"y", NpyDType::U16, {mRows, n}, "bf16 x.W^T"});
    break;
  case KernelOp::QuantWeight:
    sig.rows = n;
    sig.inputs.push_back({"w", NpyDType::U16, {n, k}, "bf16 weights"});
    addRotationInput(spec, sig.inputs);
    addQuantizedOutputs(spec, n, sig.outputs);
    sig.outputs.front().meaning += std::string(", ") + weightLayoutName(spec.wlayout);
    break;
  }
  return sig;
}

} // namespace mxf::cli
