//===- test_docs_spec.cpp - docs/spec.md's key lists are spec/'s ----------===//
//
// docs/spec.md names the keys three times for readers: the grammar's `key`
// and `op` alternatives, the Keys table and the canonical-order table. Each
// drifted once (the grammar lacked rconv, select, layers, stage and emask
// for months, issue 31); this test fails when any of them names other keys
// or ops than spec/kernel_spec.h's specKeys() and kAllKernelOps, or when the
// canonical-order table lists an op's keys in another order.
//
//===----------------------------------------------------------------------===//

#include "spec/kernel_spec.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

namespace mxf {
namespace {

std::string specDoc() {
  std::ifstream in(std::string(MXFORGE_SOURCE_DIR) + "/docs/spec.md");
  EXPECT_TRUE(in.good()) << "cannot read docs/spec.md";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The quoted alternatives of grammar rule `name = "a" | "b" ... ;`.
std::set<std::string> grammarAlternatives(const std::string &doc, const std::string &name) {
  const std::regex rule("\n" + name + "\\s*=([^;]*);");
  std::smatch match;
  EXPECT_TRUE(std::regex_search(doc, match, rule)) << "no grammar rule '" << name << "'";
  std::set<std::string> out;
  const std::string body = match.size() > 1 ? match[1].str() : "";
  const std::regex quoted("\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), quoted);
       it != std::sregex_iterator(); ++it)
    out.insert((*it)[1].str());
  return out;
}

std::set<std::string> keysOfEveryOp() {
  std::set<std::string> keys;
  for (KernelOp op : kAllKernelOps)
    for (std::string_view key : specKeys(op))
      keys.emplace(key);
  return keys;
}

TEST(DocsSpec, TheGrammarNamesEveryKeyAndOpAndNoOther) {
  const std::string doc = specDoc();
  EXPECT_EQ(grammarAlternatives(doc, "key"), keysOfEveryOp());
  std::set<std::string> ops;
  for (KernelOp op : kAllKernelOps)
    ops.insert(kernelOpName(op));
  EXPECT_EQ(grammarAlternatives(doc, "op"), ops);
}

TEST(DocsSpec, TheKeysTableHasARowPerKey) {
  const std::string doc = specDoc();
  std::set<std::string> rows;
  const std::regex row("\n\\| `([A-Za-z]+)` +\\|");
  const size_t table = doc.find("## Keys");
  ASSERT_NE(table, std::string::npos);
  const std::string section = doc.substr(table, doc.find("\n## ", table + 1) - table);
  for (auto it = std::sregex_iterator(section.begin(), section.end(), row);
       it != std::sregex_iterator(); ++it)
    rows.insert((*it)[1].str());
  EXPECT_EQ(rows, keysOfEveryOp());
}

TEST(DocsSpec, TheCanonicalOrderTableIsPrintSpecsOrder) {
  const std::string whole = specDoc();
  const size_t table = whole.find("`printSpec` writes every key of the op");
  ASSERT_NE(table, std::string::npos) << "docs/spec.md lost its canonical-order table";
  const std::string doc = whole.substr(table);
  for (KernelOp op : kAllKernelOps) {
    const std::regex row("\n\\| `" + std::string(kernelOpName(op)) + "` +\\| ([^|]+)\\|");
    std::smatch match;
    ASSERT_TRUE(std::regex_search(doc, match, row)) << "no canonical-order row for "
                                                    << kernelOpName(op);
    std::string listed = std::regex_replace(match[1].str(), std::regex("[\\[\\] ]"), "");
    std::string expected;
    for (std::string_view key : specKeys(op))
      expected += (expected.empty() ? "" : ",") + std::string(key);
    EXPECT_EQ(listed, expected) << kernelOpName(op);
  }
}

/// The two-column rows (`input`, `output`) of the table under `heading`.
std::vector<std::pair<std::string, std::string>> tableRows(const std::string &doc,
                                                           const std::string &heading) {
  std::vector<std::pair<std::string, std::string>> rows;
  const size_t start = doc.find("\n## " + heading + "\n");
  EXPECT_NE(start, std::string::npos) << "docs/spec.md lost its section " << heading;
  if (start == std::string::npos)
    return rows;
  std::istringstream section(doc.substr(start + 1, doc.find("\n## ", start + 1) - start));
  // | `input` | `output` |, or | (empty) | `output` |; inputs keep their spaces.
  for (std::string line; std::getline(section, line);) {
    const std::string emptyInput = "| (empty) | `";
    std::string input;
    size_t outputAt;
    if (line.rfind(emptyInput, 0) == 0) {
      outputAt = emptyInput.size();
    } else if (line.rfind("| `", 0) == 0) {
      const size_t close = line.find("` | `", 3);
      if (close == std::string::npos)
        continue;
      input = line.substr(3, close - 3);
      outputAt = close + 5;
    } else {
      continue;
    }
    if (line.size() < outputAt + 3 || line.compare(line.size() - 3, 3, "` |") != 0)
      continue;
    rows.emplace_back(input, line.substr(outputAt, line.size() - 3 - outputAt));
  }
  return rows;
}

/// `actual` matches `documented`, where "..." in the documentation stands for
/// any text (a key list cut short for the reader).
bool matchesWithEllipses(const std::string &actual, const std::string &documented) {
  size_t at = 0, from = 0;
  while (true) {
    const size_t cut = documented.find("...", from);
    const std::string piece = documented.substr(from, cut - from);
    const size_t found = from == 0 ? (actual.rfind(piece, 0) == 0 ? 0 : std::string::npos)
                                   : actual.find(piece, at);
    if (found == std::string::npos)
      return false;
    at = found + piece.size();
    if (cut == std::string::npos)
      return at == actual.size();
    from = cut + 3;
  }
}

TEST(DocsSpec, EveryExampleCanonicalisesAsShown) {
  const auto rows = tableRows(specDoc(), "Examples");
  ASSERT_GE(rows.size(), 4u) << "the Examples table was not found";
  for (const auto &[input, canonical] : rows) {
    Result<KernelSpec> spec = parseSpec(input);
    ASSERT_TRUE(spec.ok()) << "'" << input << "': " << spec.error();
    EXPECT_EQ(printSpec(spec.value()), canonical) << "'" << input << "'";
  }
}

TEST(DocsSpec, EveryErrorIsTheMessageShown) {
  const auto rows = tableRows(specDoc(), "Errors");
  ASSERT_GE(rows.size(), 20u) << "the Errors table was not found";
  for (const auto &[input, message] : rows) {
    Result<KernelSpec> spec = parseSpec(input);
    ASSERT_FALSE(spec.ok()) << "'" << input << "' is accepted, but docs/spec.md shows an error";
    EXPECT_TRUE(matchesWithEllipses(spec.error(), message))
        << "'" << input << "'\n  real:       " << spec.error() << "\n  documented: " << message;
  }
}

TEST(DocsSpec, TheEllipsisMatcherCanFail) {
  EXPECT_TRUE(matchesWithEllipses("keys: K, RS); did you", "keys: ...); did you"));
  EXPECT_FALSE(matchesWithEllipses("keys: K, RS); did you", "keys: ...); did we"));
  EXPECT_FALSE(matchesWithEllipses("x keys", "keys"));
}

} // namespace
} // namespace mxf
