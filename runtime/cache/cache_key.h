//===- cache_key.h - What a cached code object depends on ---------*- C++ -*-===//
//
// The cache key is SHA-256 over everything that changes the bytes a compile
// produces: the canonical spec, mxforge's version, the LLVM version, the
// target (processor and features), the code object version and the template
// revision. Missing any one of them is how Triton's users got stale or mixed
// entries (DESIGN.md, "what the anchors' users suffer"). Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_CACHE_CACHE_KEY_H
#define MXFORGE_RUNTIME_CACHE_CACHE_KEY_H

#include "support/sha256.h"

#include <string>

namespace mxf {

struct CacheKeyInputs {
  std::string canonicalSpec;  // printSpec(spec)
  std::string mxforgeVersion; // mxforgeVersion()
  std::string llvmVersion;    // LLVM_VERSION_STRING of the compiler, e.g. "22.1.2"
  std::string target;         // e.g. "amdgcn-amd-amdhsa--gfx950" (xnack, sramecc "any")
  int codeObjectVersion = 5;
  int templateRevision = 0;   // kTemplateRevision
};

/// SHA-256 of a fixed tag and each field as `name=value\n`, in the order
/// above. The encoding is unambiguous (no field may contain a newline; a
/// field that does makes the key differ from any legal one, never collide).
Sha256Digest cacheKey(const CacheKeyInputs &inputs);

} // namespace mxf

#endif // MXFORGE_RUNTIME_CACHE_CACHE_KEY_H
