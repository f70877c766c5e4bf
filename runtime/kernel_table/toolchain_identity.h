//===- toolchain_identity.h - What a compile here depends on ------*- C++ -*-===//
//
// The mxforge version, the LLVM it was built with, the target, the code
// object version and the template revision: with the code spec they name a
// disk-cache entry. Plain C++ (llvm-config.h is only macros), so that the
// runtime-only library finds the entries the JIT wrote.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_KERNEL_TABLE_TOOLCHAIN_IDENTITY_H
#define MXFORGE_RUNTIME_KERNEL_TABLE_TOOLCHAIN_IDENTITY_H

#include "runtime/kernel_table/kernel_table.h"

namespace mxf {

ToolchainIdentity toolchainIdentity(int codeObjectVersion = 5);

} // namespace mxf

#endif // MXFORGE_RUNTIME_KERNEL_TABLE_TOOLCHAIN_IDENTITY_H
