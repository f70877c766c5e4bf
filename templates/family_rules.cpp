//===- family_rules.cpp - One line per template family's rules ------------===//

#include "templates/family_rules.h"

#include "templates/quant_weight/rules.h"
#include "templates/rotate_quant/rules.h"
#include "templates/rotate_quant_moe/rules.h"
#include "templates/rotate_quant_gemm/rules.h"

namespace mxf {

const std::vector<FamilyRules> &familyRules() {
  // One line per family (docs/templates.md, "Adding a template family");
  // registry.cpp pairs each with its kernel builder.
  static const std::vector<FamilyRules> rules = {
      rotateQuantRules(),
      quantWeightRules(),
      rotateQuantMoeRules(),
      rotateQuantGemmRules(),
  };
  return rules;
}

const FamilyRules *findFamilyRules(KernelOp op) {
  for (const FamilyRules &rules : familyRules())
    if (rules.op == op)
      return &rules;
  return nullptr;
}

Status checkCompilable(const KernelSpec &spec) {
  if (Status valid = validateSpec(spec); !valid.ok())
    return valid;
  const FamilyRules *rules = findFamilyRules(spec.op);
  if (!rules)
    return Status::failure(printSpec(spec) + " is valid, but no template generates " +
                           kernelOpName(spec.op) + " yet");
  return rules->checkSupported(spec);
}

Result<KernelSpec> codeSpecFor(const KernelSpec &spec) {
  if (Status compilable = checkCompilable(spec); !compilable.ok())
    return compilable;
  return findFamilyRules(spec.op)->codeSpec(spec);
}

} // namespace mxf
