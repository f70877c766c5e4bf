//===- family_rules.h - What each template family accepts and launches -*- C++ -*-===//
//
// The plain-C++ half of a template family (docs/templates.md): which specs
// it can generate, the code spec of a spec (its tiling class) and how that
// code is launched. Kept apart from the MLIR half (registry.h, which builds
// the gpu.func) so that the runtime-only library can name cache entries by
// code spec and check launch geometry without linking MLIR or LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_FAMILY_RULES_H
#define MXFORGE_TEMPLATES_FAMILY_RULES_H

#include "abi/launch_record.h"
#include "support/status.h"
#include "spec/kernel_spec.h"

#include <vector>

namespace mxf {

struct QuantizerFamily;

struct FamilyRules {
  KernelOp op;
  /// Whether the template can generate a valid spec; the message names the
  /// key and why not.
  Status (*checkSupported)(const KernelSpec &spec);
  /// The spec the code is compiled for: `spec` with every key the code does
  /// not depend on set to its class's value (M to the class's row limit).
  KernelSpec (*codeSpec)(const KernelSpec &spec);
  /// How a supported code spec's kernel is launched.
  LaunchRecord (*launchRecord)(const KernelSpec &codeSpec);
  /// A family of the rotating quantizer: its decisions
  /// (templates/common/rotating_quantizer/quantizer_family.h); null for
  /// families built otherwise.
  const QuantizerFamily *quantizer = nullptr;
  /// Relative cold-compile time of one kernel, for scheduling a start-up
  /// compile (longest first); only the order matters. Measured per family
  /// (issue 32, whole process on the device host): rotate_quant 56-72 ms,
  /// rotate_quant_gemm 111-160 ms, rotate_quant_moe 165-175 ms.
  int compileCost = 1;
};

/// One entry per op that has a template, in registry order.
const std::vector<FamilyRules> &familyRules();
const FamilyRules *findFamilyRules(KernelOp op);

/// validateSpec, then whether a template generates the spec (one line
/// naming the key otherwise).
Status checkCompilable(const KernelSpec &spec);

/// The checks every family's checkSupported starts with: validateSpec, then
/// that `spec` is a spec of `op` ("<spec> is not a <op> spec").
Status checkSpecOfFamily(const KernelSpec &spec, KernelOp op);
/// The code spec of a compilable spec.
Result<KernelSpec> codeSpecFor(const KernelSpec &spec);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_FAMILY_RULES_H
