//===- jit_full.cpp - libmxforge's contexts compile: the in-process JIT ----===//

#include "capi/capi_internal.h"

#include "codeobj/hsaco_reader.h"
#include "compiler/jit/in_process_jit.h"

namespace mxf::capi {

std::optional<mxf::JitCompiler> contextCompiler(int codeObjectVersion) {
  return mxf::inProcessJit(codeObjectVersion);
}

Result<std::vector<KernelInfo>> codeObjectKernels(const std::vector<uint8_t> &hsaco) {
  return codeobj::readKernelInfos(hsaco);
}

} // namespace mxf::capi

extern "C" int mxf_library_has_jit(void) { return 1; }
