//===- in_process_jit.cpp - The compiler as a KernelTable's JIT -----------===//

#include "compiler/jit/in_process_jit.h"

#include "compiler/compiler.h"
#include "templates/registry.h"
#include "compiler/jit/toolchain_identity.h"

namespace mxf {

JitCompiler inProcessJit(int codeObjectVersion) {
  JitCompiler jit;
  jit.identity = toolchainIdentity(codeObjectVersion);
  jit.compile = [codeObjectVersion](const KernelSpec &spec) {
    CompileOptions options;
    options.codeObjectVersion = codeObjectVersion;
    return compileSpec(spec, options);
  };
  jit.codeSpec = codeSpecFor;
  return jit;
}

} // namespace mxf
