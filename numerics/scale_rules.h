//===- scale_rules.h - E8M0 block scale rules --------------------*- C++ -*-===//
//
// How the shared scale byte of a 32-element block is chosen from the block's
// absolute maximum. Each rule is the exact arithmetic of GFX950_SEMANTICS.md
// section B, generalised over the element format (emax, mbits, max value).
// docs/numerics.md lists each rule's formula and the special-block results.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_NUMERICS_SCALE_RULES_H
#define MXFORGE_NUMERICS_SCALE_RULES_H

#include "numerics/formats.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace mxf {

enum class ScaleRule : uint8_t {
  Floor,      // OCP MX: floor(log2 amax) - emax
  Even,       // AITER Triton / Quark EVEN: round amax's mantissa, then floor
  Rceil,      // ceil of (amax / maxValue), the division correctly rounded
  RceilRecip, // as Rceil but amax * f32(1/maxValue), as AITER's HIP kernels
  Ceil,       // ceil(log2 amax) - emax
  Even126,    // seed 003 round_e2m3: EVEN on the exponent field, clamped
              // to [2^-126, 2^127]
  A6W6,       // AITER A6W6's FLOOR on the exponent field: amax = 0 -> 2^0,
              // Inf/NaN -> 2^127 (numerics/a6w6.h a6w6ScaleByte)
};
constexpr ScaleRule kAllScaleRules[] = {ScaleRule::Floor,      ScaleRule::Even,
                                        ScaleRule::Rceil,      ScaleRule::RceilRecip,
                                        ScaleRule::Ceil,       ScaleRule::Even126,
                                        ScaleRule::A6W6};

const char *scaleRuleName(ScaleRule rule); // spec spelling: floor, even, ...
std::optional<ScaleRule> parseScaleRule(std::string_view name);

/// The E8M0 byte for a block whose absolute maximum is `amax` (amax >= 0, or
/// NaN).
uint8_t computeScaleByte(ScaleRule rule, ElemFormat format, float amax);

} // namespace mxf

#endif // MXFORGE_NUMERICS_SCALE_RULES_H
