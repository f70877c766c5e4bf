//===- kernel_name.h - The spec's part of a kernel's name --------*- C++ -*-===//
//
// abi's kernelName is "mxf_<op>" followed by these parts; each key says in
// spec/key_table.cpp how it shows (K4096, hadamard, selflag, ...).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SPEC_KERNEL_NAME_H
#define MXFORGE_SPEC_KERNEL_NAME_H

#include "spec/kernel_spec.h"

#include <string>

namespace mxf {

/// Appends `_<part>` for every key of the op that shows in a kernel's name,
/// in the op's canonical key order, so that the name reads like the spec
/// text. Enum spellings are unambiguous in their position: no value of a key
/// is a value of the next key with a suffix, which the unit test checks by
/// comparing the names of a grid of specs.
void appendKernelNameParts(std::string &name, const KernelSpec &spec);

} // namespace mxf

#endif // MXFORGE_SPEC_KERNEL_NAME_H
