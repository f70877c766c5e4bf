//===- registry.h - The template families the compiler can generate -*- C++ -*-===//
//
// One entry per kernel op that has a template (docs/templates.md, "Adding a
// template family"). An entry says what its template can compile, which
// code a spec really needs (its tiling class: specs that differ only in what
// the code does not depend on share one code object), how that code is
// launched, and builds the gpu.func. The compiler links this table directly.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_REGISTRY_H
#define MXFORGE_TEMPLATES_REGISTRY_H

#include "abi/launch_record.h"
#include "numerics/status.h"
#include "spec/kernel_spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::gpu {
class GPUModuleOp;
} // namespace mlir::gpu

namespace mxf {

struct TemplateFamily {
  KernelOp op;
  /// Whether the template can generate a valid spec; the message names the
  /// key and why not.
  Status (*checkSupported)(const KernelSpec &spec);
  /// The spec the code is compiled for: `spec` with every key the code does
  /// not depend on set to its class's value (M to the class's row limit).
  KernelSpec (*codeSpec)(const KernelSpec &spec);
  /// How a supported code spec's kernel is launched.
  LaunchRecord (*launchRecord)(const KernelSpec &codeSpec);
  /// Appends the kernel's gpu.func, named `kernelName`, to `module`.
  Status (*buildKernel)(mlir::gpu::GPUModuleOp module, const KernelSpec &codeSpec,
                        llvm::StringRef kernelName);
};

/// Every registered family.
llvm::ArrayRef<TemplateFamily> templateFamilies();
/// The family of `op`, or null.
const TemplateFamily *findTemplateFamily(KernelOp op);

/// Whether some template can compile `spec`: validateSpec first, then the
/// family's checkSupported; the message says which ("valid, but no template
/// generates rotate_quant_moe yet", "... does not support fmt=fp6_e2m3 yet").
Status checkCompilable(const KernelSpec &spec);
/// The code spec of a compilable spec (checkCompilable first).
Result<KernelSpec> codeSpecFor(const KernelSpec &spec);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_REGISTRY_H
