//===- rules.h - rmsnorm_rotate_quant's family rules -------------*- C++ -*-===//
//
// The rotating quantizer's dense body with the norm in front
// (norm_front_end.h): rotate_quant's geometry and register budget, the
// partial sums' LDS added.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_RMSNORM_ROTATE_QUANT_RULES_H
#define MXFORGE_TEMPLATES_RMSNORM_ROTATE_QUANT_RULES_H

#include "templates/family_rules.h"

#include <cstdint>

namespace mxf {

struct QuantizerFamily;

/// The most LDS a workgroup of this family takes (rotation and partials):
/// 64 KiB, so that two workgroups share a CU's 160 KiB.
constexpr int64_t kMaxNormWorkgroupLds = 64 * 1024;

/// Whether the template can generate `spec`; the message says which key.
Status checkRmsnormRotateQuantSupported(const KernelSpec &spec);

/// rmsnorm_rotate_quant's decisions for the rotating quantizer.
const QuantizerFamily &rmsnormRotateQuantQuantizer();

namespace rmsnorm_rotate_quant {
/// Its rules. Tiling class: as rotate_quant's, every M shares one code
/// object (M = kLargestMBucket).
FamilyRules rules();
} // namespace rmsnorm_rotate_quant

} // namespace mxf

#endif // MXFORGE_TEMPLATES_RMSNORM_ROTATE_QUANT_RULES_H
