//===- family.h - The rotate_quant template family ----------------*- C++ -*-===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_FAMILY_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_FAMILY_H

#include "templates/registry.h"

namespace mxf {

/// rotate_quant's registry entry. Tiling class: the code does not depend on
/// M at all (rows come from the grid and the m argument), so every M shares
/// one class, M = kLargestMBucket, and one code object.
TemplateFamily rotateQuantFamily();

/// The launch record of a supported rotate_quant spec, from its tiling.
LaunchRecord rotateQuantLaunchRecord(const KernelSpec &spec);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_FAMILY_H
