//===- reference_arrays.cpp - Names, dtypes and shapes of op arrays -------===//
//
// The arrays are the kernel's operands at m rows (abi/operands.h): one table
// for the kernel, the reference runner and the CLI.
//
//===----------------------------------------------------------------------===//

#include "arrays/reference_arrays.h"

#include "abi/operands.h"

namespace mxf::arrays {
namespace {

bool hasMBucket(KernelOp op) { return kernelHasRowsOperand(op); }

/// The .npy dtype of an operand element (bf16 travels as its bit pattern).
NpyDType npyDTypeOf(OperandElement element) {
  switch (element) {
  case OperandElement::Bf16:
    return NpyDType::U16;
  case OperandElement::I8:
    return NpyDType::U8;
  case OperandElement::I32:
    return NpyDType::I32;
  case OperandElement::F32:
    return NpyDType::F32;
  }
  return NpyDType::U8;
}

const ArraySpec *findIn(const std::vector<ArraySpec> &arrays, std::string_view name) {
  for (const ArraySpec &array : arrays)
    if (array.name == name)
      return &array;
  return nullptr;
}

} // namespace

const ArraySpec *ReferenceSignature::findInput(std::string_view name) const {
  return findIn(inputs, name);
}
const ArraySpec *ReferenceSignature::findOutput(std::string_view name) const {
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

  ReferenceSignature sig;
  sig.rows = hasMBucket(spec.op) ? size_t(m) : size_t(spec.N);
  // The kernel's operands at m rows are the reference's arrays (abi/).
  for (const KernelOperand &operand : kernelOperands(spec, m)) {
    if (operand.workspace) // the kernel's scratch: no array of the reference's
      continue;
    ArraySpec array{operand.name, npyDTypeOf(operand.element), {}, operand.meaning};
    for (int64_t extent : operand.shape)
      array.shape.push_back(size_t(extent));
    (operand.written ? sig.outputs : sig.inputs).push_back(std::move(array));
  }
  return sig;
}

} // namespace mxf::arrays
