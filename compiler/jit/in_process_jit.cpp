//===- in_process_jit.cpp - The compiler as a KernelTable's JIT -----------===//

#include "compiler/jit/in_process_jit.h"

#include "compiler/compiler.h"
#include "compiler/dump.h"
#include "templates/registry.h"
#include "compiler/jit/kernel_override.h"
#include "runtime/kernel_table/toolchain_identity.h"
#include "abi/operands.h"
#include "support/printable.h"

#include <cstdlib>
#include <sys/stat.h>

namespace mxf {

namespace {

/// An environment variable's value, or "" when unset.
std::string environment(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

} // namespace

JitCompiler inProcessJit(int codeObjectVersion) {
  JitCompiler jit;
  jit.identity = toolchainIdentity(codeObjectVersion);
  // Read once, when the context (or table) is made, as Triton reads its
  // TRITON_* variables: a compile in flight never sees a half-changed setup.
  const std::string dumpRoot = compiler::dumpRootFromEnvironment();
  jit.compile = [codeObjectVersion, dumpRoot](const KernelSpec &spec) {
    CompileOptions options;
    options.codeObjectVersion = codeObjectVersion;
    // The numbered stage files of --dump-dir, one folder per kernel. Only
    // compiles dump: a kernel from a bundle or the cache has no stages here.
    if (Status s = compiler::useDumpRoot(dumpRoot, spec, options.dumpDir); !s.ok())
      return Result<CodeObject>::failure(s.message());
    return compileSpec(spec, options);
  };
  jit.codeSpec = codeSpecFor;
  // Each family's relative compile cost (FamilyRules::compileCost).
  jit.compileCost = [](const KernelSpec &spec) {
    const FamilyRules *rules = findFamilyRules(spec.op);
    return rules ? rules->compileCost : 1;
  };
  if (const std::string overrides = environment("MXFORGE_KERNEL_OVERRIDE_DIR"); !overrides.empty())
    jit.overrideCode = [overrides](CodeObject produced) {
      return applyKernelOverride(overrides, std::move(produced), printCacheWarning);
    };
  return jit;
}

} // namespace mxf
