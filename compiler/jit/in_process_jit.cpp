//===- in_process_jit.cpp - The compiler as a KernelTable's JIT -----------===//

#include "compiler/jit/in_process_jit.h"

#include "compiler/compiler.h"
#include "templates/registry.h"
#include "support/version.h"
#include "abi/versions.h"

#include "llvm/Config/llvm-config.h"

namespace mxf {

ToolchainIdentity inProcessToolchain(int codeObjectVersion) {
  ToolchainIdentity identity;
  identity.mxforgeVersion = mxforgeVersion();
  identity.llvmVersion = LLVM_VERSION_STRING;
  identity.target = kBundleTarget;
  identity.codeObjectVersion = codeObjectVersion;
  identity.templateRevision = kTemplateRevision;
  return identity;
}

JitCompiler inProcessJit(int codeObjectVersion) {
  JitCompiler jit;
  jit.identity = inProcessToolchain(codeObjectVersion);
  jit.compile = [codeObjectVersion](const KernelSpec &spec) {
    CompileOptions options;
    options.codeObjectVersion = codeObjectVersion;
    return compileSpec(spec, options);
  };
  jit.codeSpec = codeSpecFor;
  return jit;
}

} // namespace mxf
