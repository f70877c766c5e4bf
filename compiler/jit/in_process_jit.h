//===- in_process_jit.h - The compiler as a KernelTable's JIT -----*- C++ -*-===//
//
// Links the MLIR/LLVM compiler (compiler/compiler.h) with mxforge's spec
// frontend into a JitCompiler for KernelTable. Kept apart from the table so
// that a runtime-only engine links the table without MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_COMPILER_JIT_IN_PROCESS_JIT_H
#define MXFORGE_COMPILER_JIT_IN_PROCESS_JIT_H

#include "runtime/kernel_table/kernel_table.h"

namespace mxf {

/// The identity of this build's compiler: mxforge and LLVM versions, the
/// gfx950 target with xnack/sramecc "any", the template revision.
/// compileSpec with the default spec frontend (installed on first use).
JitCompiler inProcessJit(int codeObjectVersion = 5);

} // namespace mxf

#endif // MXFORGE_COMPILER_JIT_IN_PROCESS_JIT_H
