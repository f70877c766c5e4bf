//===- mxforge_passes.h - The passes mxforge-opt offers ----------*- C++ -*-===//
//
// One hook for every pass mxforge-opt can run. The lowering of mxf ops lives
// in templates/ (which depends on the dialect, not the other way round), so
// its registration belongs here, at tool level, next to the upstream passes.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TOOLS_MXFORGE_OPT_MXFORGE_PASSES_H
#define MXFORGE_TOOLS_MXFORGE_OPT_MXFORGE_PASSES_H

namespace mxf {

/// Registers MLIR's passes (canonicalize, cse, convert-amdgpu-to-rocdl,
/// convert-gpu-to-rocdl, convert-vector-to-llvm, convert-arith-to-llvm,
/// convert-scf-to-cf, reconcile-unrealized-casts, ...) and mxforge's own
/// (add `mxf-lower-to-gpu` from templates/ in mxforge_passes.cpp).
/// Idempotent: safe to call more than once.
void registerMxforgePasses();

} // namespace mxf

#endif // MXFORGE_TOOLS_MXFORGE_OPT_MXFORGE_PASSES_H
