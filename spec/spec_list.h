//===- spec_list.h - A file of specs, one per line ----------------*- C++ -*-===//
//
// The input of `mxforge bundle --specs FILE`: one spec per line; `#` starts a
// comment; blank lines are skipped. Every bad line is reported (not just the
// first) as `FILE:LINE: <parse error>`, so a long list is fixed in one pass.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SPEC_SPEC_LIST_H
#define MXFORGE_SPEC_SPEC_LIST_H

#include "support/status.h"
#include "spec/kernel_spec.h"

#include <string>
#include <string_view>
#include <vector>

namespace mxf {

struct SpecList {
  std::vector<KernelSpec> specs; // in file order, duplicates removed
  /// `FILE:LINE: duplicate of line N` for each repeated spec (not errors).
  std::vector<std::string> notes;
};

/// At most this many specs per list (a bundle of every matrix spec of every
/// model is a few thousand).
constexpr size_t kMaxSpecListEntries = 100000;

Result<SpecList> parseSpecList(std::string_view text, const std::string &fileName);

} // namespace mxf

#endif // MXFORGE_SPEC_SPEC_LIST_H
