//===- lower_mxf_to_gpu.cpp - The mxf-lower-to-gpu pass -------------------===//

#include "templates/lower_mxf_to_gpu.h"

#include "templates/registry.h"

#include "dialects/mxf/mxf_api.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mxf {
namespace {

struct MxfLowerToGpuPass
    : public mlir::PassWrapper<MxfLowerToGpuPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MxfLowerToGpuPass)

  llvm::StringRef getArgument() const final { return "mxf-lower-to-gpu"; }
  llvm::StringRef getDescription() const final {
    return "Build each mxf kernel op's gpu.func from its template (gfx950)";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const final {
    registry.insert<mlir::gpu::GPUDialect>();
  }

  void runOnOperation() final {
    mlir::ModuleOp module = getOperation();
    llvm::SmallVector<std::pair<mlir::func::FuncOp, mlir::Operation *>> kernels;
    module.walk([&](mlir::func::FuncOp func) {
      func.walk([&](mlir::Operation *op) {
        if (isMxfKernelOp(op))
          kernels.push_back({func, op});
      });
    });
    if (kernels.empty())
      return;
    mlir::OpBuilder b(module.getContext());
    module->setAttr(mlir::gpu::GPUDialect::getContainerModuleAttrName(), b.getUnitAttr());
    auto gpuModule = module.lookupSymbol<mlir::gpu::GPUModuleOp>(kKernelGpuModuleName);
    if (!gpuModule) {
      b.setInsertionPointToEnd(module.getBody());
      gpuModule = mlir::gpu::GPUModuleOp::create(b, module.getLoc(), kKernelGpuModuleName);
    }
    for (auto [func, op] : kernels) {
      Result<KernelSpec> spec = trySpecFromOp(op);
      if (!spec.ok()) {
        op->emitOpError() << spec.error();
        return signalPassFailure();
      }
      const TemplateFamily *family = findTemplateFamily(spec.value().op);
      if (!family) {
        op->emitOpError() << "no template generates " << kernelOpName(spec.value().op) << " yet";
        return signalPassFailure();
      }
      Status built = family->buildKernel(gpuModule, spec.value(), func.getSymName());
      if (!built.ok()) {
        op->emitOpError() << built.message();
        return signalPassFailure();
      }
      func.erase();
    }
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createMxfLowerToGpuPass() {
  return std::make_unique<MxfLowerToGpuPass>();
}

void registerMxfLowerToGpuPass() { mlir::PassRegistration<MxfLowerToGpuPass>(); }

} // namespace mxf
