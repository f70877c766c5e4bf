//===- rules.h - rotate_quant_gemm's family rules (plain C++) -----*- C++ -*-===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_RULES_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_RULES_H

#include "templates/family_rules.h"

namespace mxf {

namespace rotate_quant_gemm {
/// rotate_quant_gemm's rules. As for rotate_quant, the code reads m from its
/// argument and rows from the grid: every M bucket shares the code spec with
/// M = kLargestMBucket; N, K and the layouts are code keys.
FamilyRules rules();
} // namespace rotate_quant_gemm

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_RULES_H
