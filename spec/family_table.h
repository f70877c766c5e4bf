//===- family_table.h - A per-family table looked up by KernelOp -*- C++ -*-===//
//
// Each layer keeps one entry per family (spec/op_registry.cpp,
// abi/op_abi_registry.cpp, arrays/op_reference_registry.cpp), made from
// templates/families.def in KernelOp order; this is their one lookup.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SPEC_FAMILY_TABLE_H
#define MXFORGE_SPEC_FAMILY_TABLE_H

#include "spec/kernel_spec.h"

#include <cstddef>
#include <iterator>

namespace mxf {

/// The entry of `op` in a table of one entry per family in KernelOp order
/// (each entry's `op` names its family); null for a value outside KernelOp.
template <typename Entry, size_t Count>
const Entry *familyEntry(const Entry *const (&entries)[Count], KernelOp op) {
  static_assert(Count == std::size(kAllKernelOps), "one entry per KernelOp");
  const size_t index = static_cast<size_t>(op);
  if (index >= Count)
    return nullptr;
  return entries[index]->op == op ? entries[index] : nullptr;
}

} // namespace mxf

#endif // MXFORGE_SPEC_FAMILY_TABLE_H
