//===- registry.cpp - The template families the compiler can generate -----===//

#include "templates/registry.h"

#include "templates/rotate_quant/family.h"

namespace mxf {

llvm::ArrayRef<TemplateFamily> templateFamilies() {
  // One line per family (docs/templates.md, "Adding a template family").
  static const TemplateFamily families[] = {
      rotateQuantFamily(),
  };
  return families;
}

const TemplateFamily *findTemplateFamily(KernelOp op) {
  for (const TemplateFamily &family : templateFamilies())
    if (family.op == op)
      return &family;
  return nullptr;
}

Status checkCompilable(const KernelSpec &spec) {
  if (Status valid = validateSpec(spec); !valid.ok())
    return valid;
  const TemplateFamily *family = findTemplateFamily(spec.op);
  if (!family)
    return Status::failure(printSpec(spec) + " is valid, but no template generates " +
                           kernelOpName(spec.op) + " yet");
  return family->checkSupported(spec);
}

Result<KernelSpec> codeSpecFor(const KernelSpec &spec) {
  if (Status compilable = checkCompilable(spec); !compilable.ok())
    return compilable;
  return findTemplateFamily(spec.op)->codeSpec(spec);
}

} // namespace mxf
