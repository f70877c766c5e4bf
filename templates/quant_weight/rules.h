//===- rules.h - quant_weight's family rules (plain C++) ----------*- C++ -*-===//
//
// The weight kernel is the rotating quantizer of rotate_quant run over a
// weight matrix: N rows (a spec key, so a build-time constant) instead of
// the launch's m, w at a row stride, and the codes in the spec's weight
// layout (docs/templates.md, "quant_weight").
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_QUANT_WEIGHT_RULES_H
#define MXFORGE_TEMPLATES_QUANT_WEIGHT_RULES_H

#include "templates/family_rules.h"

#include <cstdint>

namespace mxf {

/// The most weight elements (N * K) one launch quantizes: 65536 x 65536.
/// Larger matrices are quantized in row slices (one launch per slice).
constexpr uint64_t kMaxQuantWeightElements = uint64_t(1) << 32;

/// Whether the quant_weight template can generate `spec`; one line naming
/// the key otherwise.
struct QuantizerFamily;

Status checkQuantWeightSupported(const KernelSpec &spec);

/// quant_weight's decisions for the rotating quantizer.
const QuantizerFamily &quantWeightQuantizer();

namespace quant_weight {
/// quant_weight's rules. Every key is a code key (N and K included), so a
/// spec is its own tiling class.
FamilyRules rules();
} // namespace quant_weight

} // namespace mxf

#endif // MXFORGE_TEMPLATES_QUANT_WEIGHT_RULES_H
