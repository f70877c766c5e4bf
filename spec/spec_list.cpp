//===- spec_list.cpp - A file of specs, one per line ----------------------===//

#include "spec/spec_list.h"

#include <map>

namespace mxf {
namespace {

std::string_view trim(std::string_view text) {
  const char *space = " \t\r\v\f";
  size_t begin = text.find_first_not_of(space);
  if (begin == std::string_view::npos)
    return {};
  size_t end = text.find_last_not_of(space);
  return text.substr(begin, end - begin + 1);
}

} // namespace

Result<SpecList> parseSpecList(std::string_view text, const std::string &fileName) {
  SpecList list;
  std::string errors;
  std::map<std::string, size_t> firstLine; // canonical text -> line
  size_t lineNumber = 0;
  while (!text.empty()) {
    ++lineNumber;
    size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    if (size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    line = trim(line);
    if (line.empty())
      continue;
    const std::string where = fileName + ":" + std::to_string(lineNumber) + ": ";
    Result<KernelSpec> spec = parseSpec(line);
    if (!spec.ok()) {
      errors += (errors.empty() ? "" : "\n") + where + spec.error();
      continue;
    }
    std::string canonical = printSpec(spec.value());
    auto [it, inserted] = firstLine.emplace(canonical, lineNumber);
    if (!inserted) {
      list.notes.push_back(where + "duplicate of line " + std::to_string(it->second) +
                           ", ignored");
      continue;
    }
    if (list.specs.size() == kMaxSpecListEntries)
      return Result<SpecList>::failure(where + "more than " +
                                       std::to_string(kMaxSpecListEntries) + " specs");
    list.specs.push_back(spec.value());
  }
  if (!errors.empty())
    return Result<SpecList>::failure(errors);
  if (list.specs.empty())
    return Result<SpecList>::failure(fileName + ": no specs (one per line, '#' comments)");
  return list;
}

} // namespace mxf
