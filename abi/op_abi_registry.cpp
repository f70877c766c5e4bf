//===- op_abi_registry.cpp - Every op's ABI, by KernelOp -------------------===//
//
// One line per family; the declarations live in the families' folders
// (abi/op_abi.h).
//
//===----------------------------------------------------------------------===//

#include "abi/op_abi.h"

#include <iterator>

namespace mxf {

const OpAbi *opAbi(KernelOp op) {
  static const OpAbi *const kOps[] = {
      &kRotateQuantAbi,
      &kRotateQuantMoeAbi,
      &kRotateQuantGemmAbi,
      &kQuantWeightAbi,
  };
  static_assert(std::size(kOps) == std::size(kAllKernelOps), "one ABI per KernelOp");
  const size_t index = static_cast<size_t>(op);
  if (index >= std::size(kOps))
    return nullptr;
  return kOps[index]->op == op ? kOps[index] : nullptr;
}

} // namespace mxf
