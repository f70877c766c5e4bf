//===- quantizer_tiling.h - The tiling of any rotating-quantizer spec (tests) -*- C++ -*-===//
//
// The shared tiling takes the family's decisions; tests that hold specs of
// several families find them through the family's rules.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_SUPPORT_QUANTIZER_TILING_H
#define MXFORGE_TESTS_SUPPORT_QUANTIZER_TILING_H

#include "templates/common/rotating_quantizer/tiling.h"
#include "templates/family_rules.h"

#include <cassert>

namespace mxf::testing {

/// The quantizer decisions of `spec`'s family (precondition: it has them).
inline const QuantizerFamily &quantizerFamilyOf(const KernelSpec &spec) {
  const FamilyRules *rules = findFamilyRules(spec.op);
  assert(rules && rules->quantizer && "not a family of the rotating quantizer");
  return *rules->quantizer;
}

inline KernelTiling quantizerTilingOf(const KernelSpec &spec) {
  return chooseRotatingQuantizerTiling(spec, quantizerFamilyOf(spec));
}

} // namespace mxf::testing

#endif // MXFORGE_TESTS_SUPPORT_QUANTIZER_TILING_H
