//===- op_registry.cpp - Every op's declaration, by KernelOp ---------------===//
//
// One line per family; the declarations themselves live in the families'
// folders (op_declaration.h).
//
//===----------------------------------------------------------------------===//

#include "spec/op_declaration.h"

#include <iterator>

namespace mxf {

const OpDeclaration *opDeclaration(KernelOp op) {
  static const OpDeclaration *const kOps[] = {
      &kRotateQuantOp,
      &kRotateQuantMoeOp,
      &kRotateQuantGemmOp,
      &kQuantWeightOp,
  };
  static_assert(std::size(kOps) == std::size(kAllKernelOps), "one declaration per KernelOp");
  const size_t index = static_cast<size_t>(op);
  if (index >= std::size(kOps))
    return nullptr;
  return kOps[index]->op == op ? kOps[index] : nullptr;
}

} // namespace mxf
