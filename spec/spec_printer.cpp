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
#include <charconv>
#include <vector>

namespace mxf {
namespace {

using spec_detail::SpecKey;

void appendInt(std::string &out, int value) {
  char digits[16];
  auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), value);
  (void)ec; // 16 bytes hold any int
  out.append(digits, end);
}

// formatInfo() and scaleRuleName() promise nothing for a value outside their
// enum (a spec built in code may hold one); only call them on a real value.
const char *formatSpelling(ElemFormat fmt) {
  for (ElemFormat known : kAllElemFormats)
    if (known == fmt)
      return formatInfo(fmt).specName;
  return "?";
}
const char *scaleSpelling(ScaleRule rule) {
  for (ScaleRule known : kAllScaleRules)
    if (known == rule)
      return scaleRuleName(rule);
  return "?";
}

} // namespace

namespace spec_detail {

void appendSpecValue(std::string &out, const KernelSpec &spec, SpecKey key) {
  switch (key) {
  case SpecKey::K:
    return appendInt(out, spec.K);
  case SpecKey::RS:
    return appendInt(out, spec.RS);
  case SpecKey::Rot:
    out += rotationKindName(spec.rot);
    return;
  case SpecKey::M:
    return appendInt(out, spec.M);
  case SpecKey::Topk:
    return appendInt(out, spec.topk);
  case SpecKey::E:
    return appendInt(out, spec.E);
  case SpecKey::Block:
    return appendInt(out, spec.block);
  case SpecKey::Stage:
    return appendInt(out, spec.stage);
  case SpecKey::Emask:
    return appendInt(out, spec.emask);
  case SpecKey::N:
    return appendInt(out, spec.N);
  case SpecKey::Fmt:
    out += formatSpelling(spec.fmt);
    return;
  case SpecKey::Scale:
    out += scaleSpelling(spec.scale);
    return;
  case SpecKey::Round:
    out += roundingName(spec.round);
    return;
  case SpecKey::Rconv:
    out += rotationConventionName(spec.rconv);
    return;
  case SpecKey::Inter:
    out += intermediateName(spec.inter);
    return;
  case SpecKey::Layout:
    out += scaleLayoutName(spec.layout);
    return;
  case SpecKey::Wlayout:
    out += weightLayoutName(spec.wlayout);
    return;
  case SpecKey::Arch:
    out += spec.arch;
    return;
  case SpecKey::Select:
    out += rotationSelectName(spec.select);
    return;
  case SpecKey::Layers:
    return appendInt(out, spec.layers);
  }
}

} // namespace spec_detail

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
