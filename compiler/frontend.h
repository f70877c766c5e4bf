//===- frontend.h - The compiler's MLIR contexts and parsing ------*- C++ -*-===//
//
// Contexts that hold every dialect a compile touches: the pipeline's upstream
// dialects and the mxf dialect, whose ops the template families of
// templates/registry.h lower (the compiler links them directly; there is
// nothing to install at start-up). This header exposes MLIR types;
// compiler.h does not.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_COMPILER_FRONTEND_H
#define MXFORGE_COMPILER_FRONTEND_H

#include "compiler/compiler.h"
#include "support/status.h"
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

/// Everything a compile needs in a registry: the upstream dialects of the
/// pipeline, their ConvertToLLVM interfaces and LLVM IR translations, plus
/// the mxf dialect.
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
