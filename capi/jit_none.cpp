//===- jit_none.cpp - libmxforge_runtime's contexts never compile ----------===//
//
// The runtime-only library links no LLVM and no MLIR. Its kernel table still
// reads the disk cache that libmxforge and `mxforge compile` fill: entries
// are named by the same toolchain identity and code spec (family_rules.h is
// plain C++), so a kernel JIT-compiled once on a machine is found here too.
// A spec that no bundle and no cache entry holds is an error naming it.
//
//===----------------------------------------------------------------------===//

#include "capi/capi_internal.h"

#include "runtime/kernel_table/toolchain_identity.h"
#include "templates/family_rules.h"

namespace mxf::capi {

std::optional<mxf::JitCompiler> contextCompiler(int codeObjectVersion) {
  mxf::JitCompiler reader;
  reader.identity = mxf::toolchainIdentity(codeObjectVersion);
  reader.codeSpec = mxf::codeSpecFor;
  // No compile: the table stops after the cache.
  return reader;
}

Result<std::vector<KernelInfo>> codeObjectKernels(const std::vector<uint8_t> &) {
  return Result<std::vector<KernelInfo>>::failure(
      "reading a code object's metadata needs libmxforge.so (it links LLVM); "
      "libmxforge_runtime.so launches bundles and cache entries only");
}

} // namespace mxf::capi

extern "C" int mxf_library_has_jit(void) { return 0; }
