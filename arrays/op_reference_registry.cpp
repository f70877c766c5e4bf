//===- op_reference_registry.cpp - Every op's reference, by KernelOp -------===//
//
// One line per family; the declarations live in the families' folders
// (arrays/op_reference.h).
//
//===----------------------------------------------------------------------===//

#include "arrays/op_reference.h"

#include <iterator>

namespace mxf::arrays {

const OpReference *opReference(KernelOp op) {
  static const OpReference *const kOps[] = {
      &kRotateQuantReference,
      &kRotateQuantMoeReference,
      &kRotateQuantGemmReference,
      &kQuantWeightReference,
  };
  static_assert(std::size(kOps) == std::size(kAllKernelOps), "one reference per KernelOp");
  const size_t index = static_cast<size_t>(op);
  if (index >= std::size(kOps))
    return nullptr;
  return kOps[index]->op == op ? kOps[index] : nullptr;
}

size_t elementCount(const std::vector<size_t> &shape) {
  size_t count = 1;
  for (size_t dim : shape)
    count *= dim; // shapes here come from a validated spec: no overflow
  return count;
}

} // namespace mxf::arrays
