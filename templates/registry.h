//===- registry.h - The template families the compiler can generate -*- C++ -*-===//
//
// One entry per kernel op that has a template (docs/templates.md, "Adding a
// template family"). An entry has the family's rules (family_rules.h: what
// its template can compile, which code a spec really needs, how that code is
// launched) and builds the gpu.func. The compiler links this table directly.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_REGISTRY_H
#define MXFORGE_TEMPLATES_REGISTRY_H

#include "templates/family_rules.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::gpu {
class GPUModuleOp;
} // namespace mlir::gpu

namespace mxf {

/// A family: its plain-C++ rules (family_rules.h) and the builder of its
/// gpu.func.
struct TemplateFamily {
  FamilyRules rules;
  /// Appends the kernel's gpu.func, named `kernelName`, to `module`.
  Status (*buildKernel)(mlir::gpu::GPUModuleOp module, const KernelSpec &codeSpec,
                        llvm::StringRef kernelName);
};

llvm::ArrayRef<TemplateFamily> templateFamilies();
const TemplateFamily *findTemplateFamily(KernelOp op);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_REGISTRY_H
