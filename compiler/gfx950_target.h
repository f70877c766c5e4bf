//===- gfx950_target.h - The pooled gfx950 TargetMachine and codegen -*- C++ -*-===//
//
// Internal to compiler/. One Gfx950Target is an AMDGPU TargetMachine for
// gfx950 plus the legacy pass manager that generates objects with it, built
// at its first use and run again for every later module.
//
// Why keep the pass manager: building the ~300 passes of AMDGPU code
// generation costs ~0.5 ms, and a fresh pipeline allocates and faults in its
// working memory again (the three register allocators' LiveRegMatrix alone
// is 3 x 1.2 MB). Run again, the passes keep that memory: code generation
// of an RS=64 kernel takes 7.1 instead of 10.1 ms. LLVM supports running
// one codegen pass manager on several modules (llc -run-twice checks that
// the output does not change); the spec matrix test compiles every spec
// with a reused and with a fresh pipeline and compares the bytes.
//
// Assembly text always gets a fresh pipeline: the assembly streamer
// remembers its current section across runs and would leave out the second
// module's `.text`. It is only made for dumps and --emit asm.
//
// Targets live in a pool (object_pool.h): one compile at a time per target,
// warm for the next compile on any thread. Pooling the TargetMachine itself
// pays too: a new one brings a subtarget with empty register caches
// (MCRegisterInfo::getCachedAliasesOf and the like) that code generation
// fills again, ~2 ms per compile. Nothing it keeps changes the code: every
// kernel gets the same CPU, feature string and options.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_COMPILER_GFX950_TARGET_H
#define MXFORGE_COMPILER_GFX950_TARGET_H

#include "support/status.h"

#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
class raw_svector_ostream;
namespace legacy {
class PassManager;
} // namespace legacy
} // namespace llvm

namespace mxf::compiler {

/// Registers the AMDGPU target with LLVM's TargetRegistry, once per process
/// (thread-safe; later calls cost an atomic load).
void initializeAmdgpuTarget();

class Gfx950Target {
public:
  /// A new target (TargetMachine for amdgcn-amd-amdhsa, gfx950, no feature
  /// string: xnack and sramecc stay "any"; code generation at O3).
  static Result<std::unique_ptr<Gfx950Target>> create();
  ~Gfx950Target();
  Gfx950Target(const Gfx950Target &) = delete;
  Gfx950Target &operator=(const Gfx950Target &) = delete;

  llvm::TargetMachine &machine() { return *machine_; }

  /// Generates a relocatable object for `module` into `object` (replacing
  /// its contents) with the kept pipeline, or with a fresh one when
  /// `freshPipeline` is set. Errors LLVM reports go to the module's
  /// LLVMContext; after any, call forgetPipeline().
  Status emitObject(llvm::Module &module, bool freshPipeline, llvm::SmallVectorImpl<char> &object);

  /// Generates assembly text for `module` with a fresh pipeline.
  Status emitAssembly(llvm::Module &module, llvm::SmallVectorImpl<char> &assembly);

  /// Drops the kept pipeline (after a failed code generation, whose passes
  /// may have stopped half way); the next object builds a new one.
  void forgetPipeline();

private:
  explicit Gfx950Target(std::unique_ptr<llvm::TargetMachine> machine);

  std::unique_ptr<llvm::TargetMachine> machine_;
  // The kept pipeline writes into objectBuffer_ through objectStream_; both
  // must outlive it (members are destroyed in reverse order).
  llvm::SmallVector<char, 0> objectBuffer_;
  std::unique_ptr<llvm::raw_svector_ostream> objectStream_;
  std::unique_ptr<llvm::legacy::PassManager> objectPipeline_;
};

/// A Gfx950Target lent from the process-wide pool for one compile, made on
/// first use, returned on destruction.
class Gfx950TargetLease {
public:
  Gfx950TargetLease();
  ~Gfx950TargetLease();
  Gfx950TargetLease(const Gfx950TargetLease &) = delete;
  Gfx950TargetLease &operator=(const Gfx950TargetLease &) = delete;

  /// The target, or null with `error` set when LLVM cannot make one.
  Gfx950Target *get(std::string &error);

private:
  std::unique_ptr<Gfx950Target> target_;
};

} // namespace mxf::compiler

#endif // MXFORGE_COMPILER_GFX950_TARGET_H
