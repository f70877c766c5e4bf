//===- family_rules.cpp - One line per template family's rules ------------===//

#include "templates/family_rules.h"


namespace mxf {

// Each family's rules, defined in its rules.cpp.
#define MXF_FAMILY(Op, folder)                                                                     \
  namespace folder {                                                                               \
  FamilyRules rules();                                                                             \
  }
#include "templates/families.def"
#undef MXF_FAMILY

const std::vector<FamilyRules> &familyRules() {
  // One per line of templates/families.def; registry.cpp pairs each with its
  // kernel builder.
  static const std::vector<FamilyRules> rules = {
#define MXF_FAMILY(Op, folder) folder::rules(),
#include "templates/families.def"
#undef MXF_FAMILY
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

Status checkSpecOfFamily(const KernelSpec &spec, KernelOp op) {
  if (Status valid = validateSpec(spec); !valid.ok())
    return valid;
  if (spec.op != op)
    return Status::failure(printSpec(spec) + " is not a " + kernelOpName(op) + " spec");
  return Status::success();
}

Result<KernelSpec> codeSpecFor(const KernelSpec &spec) {
  if (Status compilable = checkCompilable(spec); !compilable.ok())
    return compilable;
  return findFamilyRules(spec.op)->codeSpec(spec);
}

} // namespace mxf
