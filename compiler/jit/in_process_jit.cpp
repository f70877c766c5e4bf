//===- in_process_jit.cpp - The compiler as a KernelTable's JIT -----------===//

#include "compiler/jit/in_process_jit.h"

#include "compiler/compiler.h"
#include "compiler/default_frontend.h"
#include "support/version.h"
#include "templates/template_revision.h"

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
  installDefaultSpecFrontend();
  JitCompiler jit;
  jit.identity = inProcessToolchain(codeObjectVersion);
  jit.compile = [codeObjectVersion](const KernelSpec &spec) {
    CompileOptions options;
    options.codeObjectVersion = codeObjectVersion;
    return compileSpec(spec, options);
  };
  return jit;
}

} // namespace mxf
