//===- operands.cpp - The kernel ABI: names, operands, by-value arguments -===//
//
// Shapes follow numerics/reference.h and ../shared/docs/MX_LAYOUTS.md, through
// the numerics/ functions that define them (packedBytes, a4w4ShuffledShape,
// moeSortedCapacity), so the IR can never disagree with the reference about
// a buffer's size.
//
//===----------------------------------------------------------------------===//

#include "abi/operands.h"

#include "abi/op_abi.h"
#include "abi/operand_builders.h"

#include "numerics/a6w6.h"
#include "numerics/layouts.h"
#include "numerics/moe_sorting.h"
#include "numerics/packing.h"
#include "numerics/quantize.h"
#include "numerics/reference.h"
#include "spec/kernel_name.h"

#include <cstdio>
#include <cstring>

namespace mxf {

using namespace abi_detail;

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

uint64_t kernelRequiredBytes(const KernelSpec &spec, int64_t rows) {
  uint64_t bytes = 0;
  for (const KernelOperand &operand : kernelOperands(spec, rows))
    if (!operand.workspace)
      bytes += operandSpanBytes(operand, operand.rowElements());
  return bytes;
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

bool kernelHasRowsOperand(KernelOp op) {
  const OpAbi *abi = opAbi(op);
  return abi && abi->rowsFrom != nullptr;
}

std::vector<RowExtent> kernelRowExtents(const KernelSpec &spec) {
  static_assert(kA4W4RowPadding == 256, "the label below names the padding");
  const int64_t tileRows = static_cast<int64_t>(kA4W4RowPadding);
  std::vector<RowExtent> extents = {{"rows", 1, 0, 1, 1}, {"pad256(rows)", 1, 0, 1, tileRows}};
  const OpAbi *abi = opAbi(spec.op);
  if (abi && abi->rowExtents)
    abi->rowExtents(spec, extents);
  return extents;
}

bool kernelHasSeedOperand(const KernelSpec &spec) {
  const OpAbi *abi = opAbi(spec.op);
  return spec.round == Rounding::Sr && abi && abi->srSeedOperand;
}

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
  for (const ValueArg &value : kernelValueArgs(spec))
    args.push_back({value.name, value.meaning, /*isF32=*/true});
  return args;
}

Span<ValueArg> kernelValueArgs(const KernelSpec &spec) {
  const OpAbi *abi = opAbi(spec.op);
  return abi ? abi->values : Span<ValueArg>{};
}

Status checkLaunchValues(const KernelSpec &spec, const LaunchValues &values) {
  const Span<ValueArg> declared = kernelValueArgs(spec);
  for (const auto &[name, value] : values) {
    bool known = false;
    for (const ValueArg &arg : declared)
      known |= name == arg.name;
    if (known)
      continue;
    std::string names;
    for (const ValueArg &arg : declared)
      names += std::string(names.empty() ? "" : ", ") + arg.name;
    return Status::failure("'" + name + "' is not a value of " + kernelOpName(spec.op) +
                           (declared.empty() ? std::string(" (it takes none)")
                                             : " (its values: " + names + ")"));
  }
  for (const ValueArg &arg : declared) {
    auto given = values.find(arg.name);
    if (given == values.end())
      return Status::failure(std::string(kernelOpName(spec.op)) + " needs the by-value '" +
                             arg.name + "' at launch (" + arg.meaning + ")");
    if (Status accepted = arg.check(given->second); !accepted.ok())
      return Status::failure(std::string(arg.name) + "=" + formatLaunchValue(given->second) + ": " +
                             accepted.message());
  }
  return Status::success();
}

std::string formatLaunchValue(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

uint32_t launchValueBits(double value) {
  const float rounded = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &rounded, sizeof bits);
  return bits;
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
  if (const OpAbi *abi = opAbi(spec.op))
    abi->operands(spec, rows, R, ops);
  return ops;
}
} // namespace

} // namespace mxf
