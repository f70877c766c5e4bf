//===- expected_keys.cpp - What a reader of an op's outputs expects -------===//

#include "spec/expected_keys.h"

#include "spec/spec_keys.h"

#include <string>
#include <vector>

namespace mxf {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(separator, start), text.size());
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

} // namespace

Status checkSpecKeys(const KernelSpec &spec, std::string_view expected) {
  using namespace spec_detail;
  const std::string printed = printSpec(spec);
  const std::string printedKeys = printed.substr(printed.find(':') + 1);
  for (std::string_view item : split(expected, ',')) {
    const size_t equals = item.find('=');
    if (equals == std::string_view::npos || equals == 0)
      return Status::failure("expected '" + escaped(item) + "': give key=value");
    const std::string_view name = item.substr(0, equals);
    std::optional<SpecKey> key = parseSpecKey(name);
    if (!key)
      return Status::failure("expected '" + escaped(item) + "': no spec key '" + escaped(name) +
                             "'");
    if (!opHasKey(spec.op, *key))
      return Status::failure("expected '" + escaped(item) + "': " + kernelOpName(spec.op) +
                             " has no key " + specKeyName(*key) + " (its keys: " +
                             joinedKeys(spec.op) + ")");
    // The expected value as a spec spells it: the spec with that key
    // replaced, parsed (so "a4w4_shuffle" and 32 are checked as values).
    std::string text = std::string(kernelOpName(spec.op)) + ":";
    for (std::string_view part : split(printedKeys, ','))
      if (part.substr(0, part.find('=')) != specKeyName(*key))
        text += std::string(part) + ",";
    text += std::string(specKeyName(*key)) + "=" + std::string(item.substr(equals + 1));
    Result<KernelSpec> wanted = parseSpec(text);
    if (!wanted.ok())
      return Status::failure("expected '" + escaped(item) + "': " + wanted.error());
    std::string have, want;
    appendSpecValue(have, spec, *key);
    appendSpecValue(want, wanted.value(), *key);
    if (have != want)
      return Status::failure(std::string(kernelOpName(spec.op)) + " writes " + specKeyName(*key) +
                             "=" + have + ", the reader expects " + specKeyName(*key) + "=" +
                             want + ": " + printed);
  }
  return Status::success();
}

} // namespace mxf
