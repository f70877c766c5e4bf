//===- pipeline.h - The MLIR pass pipeline: mxf -> gpu -> rocdl ---*- C++ -*-===//
//
// Internal to compiler/ (pulls in MLIR pass headers only in pipeline.cpp):
// the two MLIR stages of a compile, each run by its own PassManager so that a
// caller can stop after either and so that errors name the stage that failed.
//
//   gpu:   the spec frontend's lowering (mxf-lower-to-gpu), if any;
//   rocdl: on the gpu.module, rocdlPipelineText():
//          lower-affine, convert-scf-to-cf, expand-strided-metadata,
//          convert-vector-to-llvm (vector ops first: convert-gpu-to-rocdl
//          leaves e.g. vector.extract_strided_slice alone),
//          convert-amdgpu-to-rocdl{chipset=gfx950},
//          convert-gpu-to-rocdl{chipset=gfx950 use-bare-ptr-memref-call-conv=true},
//          reconcile-unrealized-casts.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_COMPILER_PIPELINE_H
#define MXFORGE_COMPILER_PIPELINE_H

#include "support/status.h"

#include <functional>
#include <string>

namespace mlir {
class DialectRegistry;
class ModuleOp;
class OpPassManager;
} // namespace mlir

namespace mxf::compiler {

class StageDumper;

/// The chip every compile targets (DESIGN.md: gfx950 exactly; the generic
/// gfx9-4-generic target lacks its instructions).
inline constexpr const char *kChipset = "gfx950";

/// How a module gets from the mxf stage to the gpu stage: a textual pass list
/// on builtin.module (looked up in MLIR's pass registry) or a callback that
/// adds the passes itself. Both empty: nothing to lower.
struct Lowering {
  std::string pipeline;
  std::function<void(mlir::OpPassManager &)> addPasses;
  bool empty() const { return pipeline.empty() && !addPasses; }
};

/// Runs `lowering` on `module` (the gpu stage). Diagnostics go to the
/// context's handler; the returned message says what failed. The module is
/// verified after every pass with `verifyEachPass`, else once at the end.
Status runLowering(mlir::ModuleOp module, const Lowering &lowering, StageDumper &dumper,
                   bool verifyEachPass);

/// Runs the conversions to the LLVM and ROCDL dialects (the rocdl stage);
/// verification as for runLowering.
Status runRocdlConversion(mlir::ModuleOp module, StageDumper &dumper, bool verifyEachPass);

/// The rocdl stage as a textual pipeline, as mlir-opt would take it.
std::string rocdlPipelineText();

/// Every dialect the pipeline can meet or create, with the ConvertToLLVM
/// interfaces that convert-gpu-to-rocdl looks for and the LLVM IR
/// translations of builtin, llvm, rocdl and gpu.
void registerPipelineDialects(mlir::DialectRegistry &registry);

} // namespace mxf::compiler

#endif // MXFORGE_COMPILER_PIPELINE_H
