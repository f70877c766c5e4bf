//===- default_frontend.cpp - mxforge's own spec frontend -----------------===//

#include "compiler/default_frontend.h"

#include "compiler/frontend.h"
#include "dialects/mxf/mxf_api.h"
#include "templates/lower_mxf_to_gpu.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <mutex>

namespace mxf {

void installDefaultSpecFrontend() {
  static std::once_flag once;
  std::call_once(once, [] {
    SpecFrontend frontend;
    // Only rotate_quant has a template so far (docs/templates.md).
    frontend.hasTemplate = [](KernelOp op) { return op == KernelOp::RotateQuant; };
    frontend.registerDialects = registerMxfDialect;
    frontend.buildModule = [](const KernelSpec &spec, mlir::MLIRContext &context)
        -> Result<mlir::OwningOpRef<mlir::ModuleOp>> {
      mlir::OwningOpRef<mlir::ModuleOp> module;
      if (Status built = tryBuildMxfModule(spec, context, module); !built.ok())
        return built;
      return module;
    };
    frontend.addLoweringPasses = [](mlir::OpPassManager &pm) {
      pm.addPass(createMxfLowerToGpuPass());
    };
    setSpecFrontend(std::move(frontend));
  });
}

} // namespace mxf
