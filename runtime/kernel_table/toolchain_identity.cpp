//===- toolchain_identity.cpp - What a compile here depends on ------------===//

#include "runtime/kernel_table/toolchain_identity.h"

#include "abi/versions.h"
#include "support/version.h"

#include "llvm/Config/llvm-config.h"

namespace mxf {

ToolchainIdentity toolchainIdentity(int codeObjectVersion) {
  ToolchainIdentity identity;
  identity.mxforgeVersion = mxforgeVersion();
  identity.llvmVersion = LLVM_VERSION_STRING;
  identity.target = kBundleTarget;
  identity.codeObjectVersion = codeObjectVersion;
  identity.templateRevision = kTemplateRevision;
  return identity;
}

} // namespace mxf
