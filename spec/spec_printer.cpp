//===- spec_printer.cpp - The canonical text of a kernel spec --------------===//
//
// Writes every key of the op in canonical order, defaults included, so that
// equal specs are equal strings (the cache key depends on it). Prints any
// spec, valid or not; an enum value outside its enum prints as "?", which
// parseSpec then rejects.
//
//===----------------------------------------------------------------------===//

#include "spec/kernel_spec.h"

#include "spec/spec_keys.h"

#include <algorithm>
#include <vector>

namespace mxf {

using spec_detail::SpecKey;

std::string printSpec(const KernelSpec &spec) {
  std::string out;
  out.reserve(192); // the longest canonical spec (moe) is ~150 characters
  out += kernelOpName(spec.op);
  out += ':';
  bool first = true;
  for (SpecKey key : spec_detail::opKeys(spec.op)) {
    if (!spec_detail::keyPrinted(spec, key))
      continue;
    if (!first)
      out += ',';
    first = false;
    out += spec_detail::specKeyName(key);
    out += '=';
    spec_detail::appendSpecValue(out, spec, key);
  }
  return out;
}

std::string printSpecShort(const KernelSpec &spec) {
  const std::string canonical = printSpec(spec);
  const std::string head = canonical.substr(0, canonical.find(':') + 1);
  std::vector<std::string> items;
  for (size_t at = head.size(); at < canonical.size();) {
    const size_t comma = std::min(canonical.find(',', at), canonical.size());
    items.push_back(canonical.substr(at, comma - at));
    at = comma + 1;
  }
  auto join = [&](const std::vector<std::string> &kept) {
    std::string text = head;
    for (size_t i = 0; i < kept.size(); ++i)
      text += (i ? "," : "") + kept[i];
    return text;
  };
  // Drop one item at a time, keeping the drop when the rest still means the
  // same spec (a default that depends on another key, such as rot's on RS,
  // stays when dropping it would change the spec).
  for (size_t i = 0; i < items.size();) {
    std::vector<std::string> fewer = items;
    fewer.erase(fewer.begin() + long(i));
    Result<KernelSpec> parsed = parseSpec(join(fewer));
    if (parsed.ok() && parsed.value() == spec)
      items = std::move(fewer);
    else
      ++i;
  }
  return join(items);
}

} // namespace mxf
