//===- serializer.h - rocdl-stage MLIR -> linked gfx950 code object -*- C++ -*-===//
//
// Internal to compiler/. Takes the module after the rocdl stage (LLVM and
// ROCDL dialects inside one gpu.module) the rest of the way, in process:
//
//   llvm:  translate the gpu.module to LLVM IR, set triple, data layout and
//          the amdhsa_code_object_version flag, run the LLVM O3 pipeline with
//          the AMDGPU TargetMachine (gfx950, no feature string: xnack and
//          sramecc stay "any");
//   asm:   AMDGPU code generation into memory (an object; assembly text too
//          when someone will read it);
//   hsaco: lld as a library (-shared --no-undefined) in a private temporary
//          directory that is removed on every path.
//
// TargetMachines and their code generation pipelines come from a pool
// (gfx950_target.h): made once, reused by later compiles on any thread, one
// compile at a time.
//
// LLVM reports errors through the LLVMContext's diagnostic handler, which
// exits the process by default; ours records them instead.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_COMPILER_SERIALIZER_H
#define MXFORGE_COMPILER_SERIALIZER_H

#include "abi/launch_record.h"
#include "compiler/compiler.h"
#include "support/status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm
namespace mlir {
class ModuleOp;
} // namespace mlir

namespace mxf::compiler {

class StageDumper;

struct SerializeOptions {
  int codeObjectVersion = 5; // 5 or 6
  /// Llvm, Asm or Hsaco; earlier stages are not the serializer's.
  CompileStage stopAfter = CompileStage::Hsaco;
  StageDumper *dumper = nullptr;             // optional
  llvm::raw_ostream *diagnosticStream = nullptr; // echo LLVM/lld warnings here
  bool freshCodeGenPipeline = false; // CompileOptions::freshCodeGenPipeline
  /// Embedded in the code object's kLaunchRecordSection when set (a spec's
  /// compile); `compile --input` has none.
  const LaunchRecord *launchRecord = nullptr;
  /// The kernel's explicit arguments' names in order (abi/operands.h), given
  /// to the LLVM IR arguments so that the code object's metadata carries
  /// them (`.name`: what `mxforge inspect` and other readers show); null
  /// for `compile --input`.
  const std::vector<std::string> *argumentNames = nullptr;
};

struct SerializeOutput {
  std::vector<uint8_t> hsaco; // when stopAfter is Hsaco
  std::string text;           // the LLVM IR or assembly when stopAfter is Llvm or Asm
  CompileStage failedStage = CompileStage::Llvm; // meaningful on failure only
};

/// Serializes the single gpu.module of `module`, which must hold exactly one
/// kernel (an llvm.func marked rocdl.kernel).
Status serializeGpuModule(mlir::ModuleOp module, const SerializeOptions &options,
                          SerializeOutput &output);

/// Links one relocatable AMDGPU object into a code object with lld. lld wants
/// files: a private directory from llvm::sys::fs::createUniqueDirectory
/// (under $TMPDIR when set, else /dev/shm when writable, else /tmp) holds
/// them and is removed before returning, on success and failure alike.
/// lld's output becomes part of the error message. lld keeps global state,
/// so links are serialized by a lock (they take ~0.3 ms).
Result<std::vector<uint8_t>> linkCodeObject(std::string_view object,
                                            llvm::raw_ostream *diagnosticStream = nullptr);

} // namespace mxf::compiler

#endif // MXFORGE_COMPILER_SERIALIZER_H
