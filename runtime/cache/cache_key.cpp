//===- cache_key.cpp - What a cached code object depends on ---------------===//

#include "runtime/cache/cache_key.h"

namespace mxf {
namespace {

/// Appends `name=value\n`. A backslash or newline inside the value is escaped
/// (`\\`, `\n`), which leaves every legal value (none holds either) as it is
/// and keeps the encoding injective: a value cannot end its own line early and
/// pose as the next field.
void addField(Sha256 &hasher, const char *name, const std::string &value) {
  std::string line = name;
  line += '=';
  for (char c : value) {
    if (c == '\\')
      line += "\\\\";
    else if (c == '\n')
      line += "\\n";
    else
      line += c;
  }
  line += '\n';
  hasher.update(line);
}

} // namespace

Sha256Digest cacheKey(const CacheKeyInputs &inputs) {
  Sha256 hasher;
  // The tag separates these keys from any other SHA-256 of similar text and
  // changes if the set or encoding of the fields ever does.
  hasher.update(std::string_view("mxforge cache key v1\n"));
  addField(hasher, "spec", inputs.canonicalSpec);
  addField(hasher, "mxforge", inputs.mxforgeVersion);
  addField(hasher, "llvm", inputs.llvmVersion);
  addField(hasher, "target", inputs.target);
  addField(hasher, "cov", std::to_string(inputs.codeObjectVersion));
  addField(hasher, "templates", std::to_string(inputs.templateRevision));
  return hasher.finish();
}

} // namespace mxf
