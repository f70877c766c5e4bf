//===- compiler.h - Spec or MLIR module -> gfx950 code object -----*- C++ -*-===//
//
// The compiler's public entry points. Everything runs in this process: MLIR
// passes, translation to LLVM IR, the LLVM O3 pipeline, AMDGPU code
// generation into memory and lld as a library; nothing is spawned and no
// ROCm install is needed (docs/compiler.md).
//
// This header is light on purpose (no MLIR or LLVM includes): the CLI, caches
// and tests include it. Code that builds MLIR itself includes
// compiler/frontend.h.
//
// Thread safety: every function here may be called from several threads at
// once. Each compile owns its MLIRContext, LLVMContext and TargetMachine; the
// only shared state is the one-time LLVM target initialization, the spec
// frontend (set once at start-up) and a lock around lld, which keeps global
// state of its own.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_COMPILER_COMPILER_H
#define MXFORGE_COMPILER_COMPILER_H

#include "abi/code_object.h"
#include "support/status.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm
namespace mlir {
class ModuleOp;
} // namespace mlir

namespace mxf {

struct KernelSpec;

/// The points where a compile can stop and show its work, in pipeline order.
enum class CompileStage {
  Mxf,   // the module as given (mxf ops, or already gpu-level IR)
  Gpu,   // after the spec frontend's lowering (mxf-lower-to-gpu)
  Rocdl, // after the conversions: LLVM + ROCDL dialects inside the gpu.module
  Llvm,  // LLVM IR after the O3 pipeline, as code generation sees it
  Asm,   // gfx950 assembly
  Hsaco, // the linked code object
};

/// "mxf", "gpu", "rocdl", "llvm", "asm", "hsaco".
const char *compileStageName(CompileStage stage);
std::optional<CompileStage> parseCompileStage(std::string_view name);
/// "mxf|gpu|rocdl|llvm|asm|hsaco", for help texts and errors.
std::string compileStageList();

struct CompileOptions {
  /// AMDHSA code object version: 5 (ELF ABI version 3, what ROCm 6 loaders
  /// expect everywhere) or 6 (ABI version 4; LLVM 22's own default).
  int codeObjectVersion = 5;
  /// When set, every stage and every MLIR pass writes its output there as a
  /// numbered file (docs/compiler.md, "Dump directory"). Created if missing.
  std::string dumpDir;
  /// Print the IR after every MLIR pass, and the LLVM IR and assembly, on
  /// `printStream` (stderr when null), as mlir-opt --mlir-print-ir-after-all.
  bool printIrAfterAll = false;
  llvm::raw_ostream *printStream = nullptr;
  /// Also echo every diagnostic (warnings and remarks too) on this stream as
  /// it is emitted. Errors always end up in the returned message; nothing is
  /// printed unless this is set.
  llvm::raw_ostream *diagnosticStream = nullptr;
  /// The last stage to run: one of compileStageName(). Before `hsaco` the
  /// result has no code object; the stage's text goes to `*stageText`
  /// (required then).
  std::string stopAfter = "hsaco";
  std::string *stageText = nullptr;
  /// Passes that take the module from the `mxf` to the `gpu` stage, as a
  /// textual pass list on builtin.module (e.g. "mxf-lower-to-gpu"); the passes
  /// must be in MLIR's pass registry. Empty: compileModule and compileMlirText
  /// use the spec frontend's lowering when the module holds mxf ops, and
  /// none otherwise; compileSpec always uses the frontend's.
  std::string loweringPipeline;
  /// Run MLIR's verifier after every pass, as mlir-opt does. Off, the module
  /// is verified once at the end of each MLIR stage: invalid IR still fails
  /// the compile in the stage that made it, at a fraction of the cost, but
  /// without the name of the pass. Always on with `dumpDir` and
  /// `printIrAfterAll`, whose output should end at the pass that broke the IR.
  bool verifyEachPass = false;
  /// Build AMDGPU code generation's pass pipeline for this compile instead of
  /// running the one a pooled target keeps (compiler/gfx950_target.h). The
  /// code is the same (the spec matrix test checks it for every spec); this
  /// is for that test and for ruling out the reuse when hunting a bug.
  bool freshCodeGenPipeline = false;
};

/// Compiles a module that holds exactly one gpu.module with exactly one
/// kernel. The module is lowered in place, and the compiler's dialect
/// interfaces and translations are added to its context (so no other thread
/// may use that context meanwhile). `specText` names what is being compiled
/// in errors and ends up in CodeObject::spec.
///
/// Errors read `[stage <name>] <specText>: <what failed>`, followed by the
/// MLIR/LLVM/lld diagnostics, one per line.
Result<CodeObject> compileModule(mlir::ModuleOp module, const CompileOptions &options,
                                 const std::string &specText);

/// Parses MLIR text (the registered dialects plus the spec frontend's) and
/// compiles it as compileModule does. `bufferName` (a file name) appears in
/// diagnostics' locations and, unless `specText` is given, in errors.
Result<CodeObject> compileMlirText(std::string_view text, const std::string &bufferName,
                                   const CompileOptions &options,
                                   const std::string &specText = "");

/// Validates `spec`, builds its mxf module with the registered spec frontend
/// (compiler/frontend.h), lowers it with the frontend's lowering and compiles
/// it. Until a frontend handles spec.op, fails with
/// `no kernel template is registered for <op>`.
Result<CodeObject> compileSpec(const KernelSpec &spec, const CompileOptions &options);

} // namespace mxf

#endif // MXFORGE_COMPILER_COMPILER_H
