//===- mxf_api.h - KernelSpec <-> mxf IR, without MLIR's heavy headers -*- C++ -*-===//
//
// The entry points the compiler, the templates and the tools use to go from a
// KernelSpec to mxf IR and back. Only forward declarations of MLIR classes
// here (plus the tiny OwningOpRef header), so including this costs little;
// callers that touch the returned ModuleOp include mlir/IR/BuiltinOps.h.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_DIALECTS_MXF_MXF_API_H
#define MXFORGE_DIALECTS_MXF_MXF_API_H

#include "support/status.h"
#include "spec/kernel_spec.h"

#include "mlir/IR/OwningOpRef.h"

namespace mlir {
class DialectRegistry;
class MLIRContext;
class ModuleOp;
class Operation;
} // namespace mlir

namespace mxf {

/// Name of the function attribute that holds the canonical spec text of the
/// kernel a func.func wraps (verified by the dialect against the op inside).
inline constexpr const char kSpecAttrName[] = "mxf.spec";

/// Adds the mxf dialect to `registry` (for contexts built from a registry,
/// e.g. mxforge-opt). buildMxfModule loads what it needs by itself.
void registerMxfDialect(mlir::DialectRegistry &registry);

/// Builds
///   module {
///     func.func @<kernelName(spec)>(<memref operands>, %rows: i32)
///         attributes {mxf.spec = "<printSpec(spec)>"} {
///       mxf.<op> <...spec...> x(%arg0 : ...) ... rows(%argN)
///       return
///     }
///   }
/// with the arguments of kernelOperands(spec) (abi/operands.h) in order, then the row count for every op but
/// quant_weight. Loads the func and mxf dialects into `context`. The module
/// verifies. Returns null (and emits nothing) when validateSpec rejects the
/// spec; use tryBuildMxfModule for the reason.
mlir::OwningOpRef<mlir::ModuleOp> buildMxfModule(const KernelSpec &spec,
                                                 mlir::MLIRContext &context);

/// As buildMxfModule, with the validateSpec message on failure.
Status tryBuildMxfModule(const KernelSpec &spec, mlir::MLIRContext &context,
                         mlir::OwningOpRef<mlir::ModuleOp> &module);

/// Whether `op` is an mxf kernel op (every op of the dialect is one).
bool isMxfKernelOp(mlir::Operation *op);

/// The KernelSpec an mxf kernel op's attributes spell (the inverse of
/// buildMxfModule: specFromOp(op of buildMxfModule(s)) == s). Fails, naming
/// the op, for an op that is not an mxf kernel op. A spec read from an op
/// that has not been verified may fail validateSpec.
Result<KernelSpec> trySpecFromOp(mlir::Operation *op);

/// trySpecFromOp for callers that know `op` is an mxf kernel op (asserts;
/// a default KernelSpec with K=0, which validateSpec rejects, otherwise).
KernelSpec specFromOp(mlir::Operation *op);

} // namespace mxf

#endif // MXFORGE_DIALECTS_MXF_MXF_API_H
