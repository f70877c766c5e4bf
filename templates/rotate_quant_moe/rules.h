//===- rules.h - rotate_quant_moe's family rules (plain C++) ------*- C++ -*-===//
//
// The MoE front end: the rotating quantizer plus AITER's token
// sort, with the scales scattered to the sorted rows, in one launch
// (docs/templates.md, "rotate_quant_moe").
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_RULES_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_RULES_H

#include "templates/family_rules.h"

namespace mxf {

/// LDS one workgroup may use (rotation staging plus the sorter): the 64 KiB
/// HIP grants a workgroup without an opt-in.
constexpr int64_t kMaxMoeWorkgroupLds = 64 * 1024;

struct QuantizerFamily;

/// Whether the rotate_quant_moe template can generate `spec`; one line
/// naming the key otherwise.
Status checkRotateQuantMoeSupported(const KernelSpec &spec);

/// rotate_quant_moe's decisions for the rotating quantizer (the sorter's
/// LDS as its front end's).
const QuantizerFamily &rotateQuantMoeQuantizer();

namespace rotate_quant_moe {
/// rotate_quant_moe's rules. The code does not depend on M (m is an
/// argument, every workgroup sorts what the launch gives it), so every M
/// shares one class, M = kLargestMBucket.
FamilyRules rules();
} // namespace rotate_quant_moe

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_RULES_H
