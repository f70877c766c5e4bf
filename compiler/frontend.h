//===- frontend.h - Plugging spec -> mxf IR into the compiler -----*- C++ -*-===//
//
// The compiler does not know how a spec becomes IR: the mxf dialect
// (dialects/) builds the module and the kernel templates (templates/) lower
// it to the gpu stage. Both sit above compiler/ in DESIGN.md's dependency
// order, so they are handed in at start-up as a SpecFrontend instead of
// being linked in:
//
//   mxf::SpecFrontend frontend;
//   frontend.hasTemplate = [](mxf::KernelOp op) { return op == mxf::KernelOp::RotateQuant; };
//   frontend.registerDialects = [](mlir::DialectRegistry &r) { r.insert<mxf::MxfDialect>(); };
//   frontend.buildModule = mxf::buildMxfModule;
//   frontend.addLoweringPasses = [](mlir::OpPassManager &pm) { pm.addPass(...); };
//   mxf::setSpecFrontend(std::move(frontend));
//
// This header exposes MLIR types; compiler.h does not.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_COMPILER_FRONTEND_H
#define MXFORGE_COMPILER_FRONTEND_H

#include "compiler/compiler.h"
#include "numerics/status.h"
#include "spec/kernel_spec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace mlir {
class DialectRegistry;
class MLIRContext;
class OpPassManager;
} // namespace mlir

namespace mxf {

struct SpecFrontend {
  /// Which ops have a kernel template. Null: every op.
  std::function<bool(KernelOp)> hasTemplate;
  /// Adds the dialects (and their interfaces) of the modules buildModule
  /// makes; applied to every compiler context, so `compile --input` parses
  /// mxf ops too.
  std::function<void(mlir::DialectRegistry &)> registerDialects;
  /// Builds the mxf-stage module of a validated spec in `context`. Errors
  /// emitted as MLIR diagnostics on `context` end up in the compile error.
  std::function<Result<mlir::OwningOpRef<mlir::ModuleOp>>(const KernelSpec &,
                                                          mlir::MLIRContext &)>
      buildModule;
  /// The mxf -> gpu lowering: a callback that adds passes to a pass manager
  /// on builtin.module (preferred: needs no global pass registry), or else a
  /// textual pass list looked up in MLIR's pass registry
  /// ("mxf-lower-to-gpu").
  std::function<void(mlir::OpPassManager &)> addLoweringPasses;
  std::string loweringPipeline = "mxf-lower-to-gpu";
  /// compileModule / compileMlirText run the lowering above when the module
  /// holds an op of this dialect (and no explicit lowering was asked for).
  std::string dialectNamespace = "mxf";
};

/// Installs the frontend every later compile uses (replacing any earlier
/// one). Meant for start-up; safe at any time (compiles in flight keep the
/// frontend they started with).
void setSpecFrontend(SpecFrontend frontend);
/// Back to no frontend: compileSpec reports that no template is registered.
void clearSpecFrontend();
/// The installed frontend, or null.
std::shared_ptr<const SpecFrontend> currentSpecFrontend();

/// Everything a compile needs in a registry: the upstream dialects of the
/// pipeline, their ConvertToLLVM interfaces and LLVM IR translations, plus
/// the current frontend's dialects.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// A context with registerCompilerDialects() and multithreading disabled
/// (kernels are small: a thread pool costs more than it saves, and dumps
/// need a single thread).
std::unique_ptr<mlir::MLIRContext> createCompilerContext();

/// Parses and verifies MLIR text into `context`. Errors carry the
/// diagnostics (`<bufferName>:<line>:<col>: error: ...`).
Result<mlir::OwningOpRef<mlir::ModuleOp>> parseMlirModule(std::string_view text,
                                                          const std::string &bufferName,
                                                          mlir::MLIRContext &context);

} // namespace mxf

#endif // MXFORGE_COMPILER_FRONTEND_H
