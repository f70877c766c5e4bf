//===- rules.h - rotate_quant's family rules (plain C++) ----------*- C++ -*-===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_RULES_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_RULES_H

#include "templates/family_rules.h"

namespace mxf {

/// rotate_quant's rules. Tiling class: the code does not depend on M at all
/// (rows come from the grid and the m argument), so every M shares one
/// class, M = kLargestMBucket, and one code object.
FamilyRules rotateQuantRules();

/// The code spec of every M bucket: M = kLargestMBucket (the code reads m
/// from its argument). rotate_quant_moe's code spec too.
KernelSpec rotateQuantCodeSpec(const KernelSpec &spec);

/// The launch record of a supported rotate_quant spec, from its tiling.
LaunchRecord rotateQuantLaunchRecord(const KernelSpec &spec);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_RULES_H
