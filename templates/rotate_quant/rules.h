//===- rules.h - rotate_quant's family rules ---------------------*- C++ -*-===//
//
// The rotating quantizer over the activation rows (templates/common/
// rotating_quantizer/), x and q at their row strides, a4w4_shuffle padding
// filled by the kernel.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_RULES_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_RULES_H

#include "templates/family_rules.h"

namespace mxf {

struct QuantizerFamily;

/// Whether the rotate_quant template can generate `spec` (a valid spec may
/// still be outside what the template supports); the message says which key.
Status checkRotateQuantSupported(const KernelSpec &spec);

/// rotate_quant's decisions for the rotating quantizer.
const QuantizerFamily &rotateQuantQuantizer();

LaunchRecord rotateQuantLaunchRecord(const KernelSpec &spec);

namespace rotate_quant {
/// rotate_quant's rules. Tiling class: the code does not depend on M at all
/// (rows come from the grid and the m argument), so every M shares one
/// class, M = kLargestMBucket, and one code object.
FamilyRules rules();
} // namespace rotate_quant

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_RULES_H
