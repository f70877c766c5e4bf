//===- registry.cpp - The template families the compiler can generate -----===//

#include "templates/registry.h"

#include "llvm/Support/ErrorHandling.h"

#include <iterator>

namespace mxf {

// Each family's registry entry, defined in its family.cpp.
#define MXF_FAMILY(Op, folder)                                                                     \
  namespace folder {                                                                               \
  TemplateFamily family();                                                                         \
  }
#include "templates/families.def"
#undef MXF_FAMILY

llvm::ArrayRef<TemplateFamily> templateFamilies() {
  // One per line of templates/families.def (docs/templates.md, "Adding a
  // template family").
  static const TemplateFamily families[] = {
#define MXF_FAMILY(Op, folder) folder::family(),
#include "templates/families.def"
#undef MXF_FAMILY
  };
  // Every family has its rules in familyRules() and a builder here, in the
  // same order: one list of ops, checked once.
  static const bool agree = [] {
    const std::vector<FamilyRules> &rules = familyRules();
    if (rules.size() != std::size(families))
      return false;
    for (size_t i = 0; i < rules.size(); ++i)
      if (rules[i].op != families[i].rules.op)
        return false;
    return true;
  }();
  if (!agree)
    llvm::report_fatal_error("templates: familyRules() and templateFamilies() list different ops");
  return families;
}

const TemplateFamily *findTemplateFamily(KernelOp op) {
  for (const TemplateFamily &family : templateFamilies())
    if (family.rules.op == op)
      return &family;
  return nullptr;
}

} // namespace mxf
