//===- in_process_jit.cpp - The compiler as a KernelTable's JIT -----------===//

#include "compiler/jit/in_process_jit.h"

#include "compiler/compiler.h"
#include "templates/registry.h"
#include "compiler/jit/kernel_override.h"
#include "compiler/jit/toolchain_identity.h"
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
  const std::string dumpDir = environment("MXFORGE_DUMP_DIR");
  jit.compile = [codeObjectVersion, dumpDir](const KernelSpec &spec) {
    CompileOptions options;
    options.codeObjectVersion = codeObjectVersion;
    // The numbered stage files of --dump-dir, one folder per kernel. Only
    // compiles dump: a kernel from a bundle or the cache has no stages here.
    // Named like the kernel, which is named by its code spec.
    if (!dumpDir.empty()) {
      Result<KernelSpec> code = codeSpecFor(spec);
      options.dumpDir = dumpDir + "/" + fileNameSafe(kernelName(code.ok() ? code.value() : spec));
      // The kernel's folder is a name we chose inside a folder others may
      // write to: a symlink planted there is refused, never followed (the
      // files in it are refused the same way, compiler/dump.cpp).
      struct stat info;
      if (::lstat(options.dumpDir.c_str(), &info) == 0 && S_ISLNK(info.st_mode))
        return Result<CodeObject>::failure("MXFORGE_DUMP_DIR: " + options.dumpDir +
                                           " is a symlink; mxforge does not follow links inside "
                                           "a folder it writes into (remove the link)");
    }
    return compileSpec(spec, options);
  };
  jit.codeSpec = codeSpecFor;
  if (const std::string overrides = environment("MXFORGE_KERNEL_OVERRIDE_DIR"); !overrides.empty())
    jit.overrideCode = [overrides](CodeObject produced) {
      return applyKernelOverride(overrides, std::move(produced), printCacheWarning);
    };
  return jit;
}

} // namespace mxf
