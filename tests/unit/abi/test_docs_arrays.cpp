//===- test_docs_arrays.cpp - docs/cli.md's arrays table is abi/'s --------===//
//
// The table of arrays in docs/cli.md ("| op | array | in/out | dtype | shape |")
// is written for readers; this test fails when it names other arrays, other
// roles or other element types than abi/operands.h declares for each op.
//
//===----------------------------------------------------------------------===//

#include "abi/operands.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace mxf {
namespace {

/// (array, "in" | "out", .npy dtype)
using Row = std::tuple<std::string, std::string, std::string>;

std::vector<std::string> cells(const std::string &line) {
  std::vector<std::string> out;
  std::string cell;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '|' && line[i - 1] != '\\') {
      size_t b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
      out.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return out;
}

std::string unquote(std::string text) {
  if (text.size() >= 2 && text.front() == '`' && text.back() == '`')
    text = text.substr(1, text.size() - 2);
  return text;
}

/// The table's rows by op; "learned" holds the rows for every op with a
/// learned rotation.
std::map<std::string, std::set<Row>> docsTable() {
  std::ifstream in(std::string(MXFORGE_SOURCE_DIR) + "/docs/cli.md");
  EXPECT_TRUE(in.good()) << "cannot read docs/cli.md";
  std::map<std::string, std::set<Row>> table;
  std::string line, op;
  bool inTable = false;
  while (std::getline(in, line)) {
    if (line.rfind("| op | array | in/out | dtype | shape |", 0) == 0) {
      inTable = true;
      continue;
    }
    if (!inTable)
      continue;
    if (line.rfind("|", 0) != 0)
      break;
    std::vector<std::string> c = cells(line);
    if (c.size() < 4 || c[1].rfind("---", 0) == 0 || c[0].rfind("---", 0) == 0)
      continue;
    if (!c[0].empty())
      op = c[0] == "all ops with a learned rotation" ? "learned" : unquote(c[0]);
    std::string dtype = unquote(c[3]);
    if (dtype.rfind("\\|", 0) == 0)
      dtype = dtype.substr(1);
    table[op].insert({unquote(c[1]), c[2], dtype});
  }
  return table;
}

std::string npyDtype(OperandElement element) {
  switch (element) {
  case OperandElement::Bf16:
    return "<u2";
  case OperandElement::I8:
    return "|u1";
  case OperandElement::I32:
    return "<i4";
  case OperandElement::F32:
    return "<f4";
  }
  return "?";
}

TEST(DocsArrays, TheCliTableNamesWhatAbiDeclares) {
  const std::map<std::string, std::set<Row>> table = docsTable();
  ASSERT_EQ(table.size(), 5u) << "four ops and the learned-rotation row";
  // One spec per op with a learned rotation, so r is among the operands.
  for (const char *text : {"rotate_quant:K=4096,RS=32,rot=learned,M=4",
                           // emask=1, so expert_mask is among them; stage=2 has the
                           // same arrays in other shapes.
                           "rotate_quant_moe:K=4096,RS=32,rot=learned,M=4,topk=2,E=8,emask=1",
                           "rotate_quant_moe:K=4096,RS=32,rot=learned,M=4,topk=2,E=8,stage=2,"
                           "emask=1",
                           "rotate_quant_gemm:K=4096,N=64,RS=32,rot=learned,M=4",
                           "quant_weight:K=4096,N=64,RS=32,rot=learned"}) {
    SCOPED_TRACE(text);
    Result<KernelSpec> spec = parseSpec(text);
    ASSERT_TRUE(spec.ok()) << spec.error();
    std::set<Row> declared;
    // A workspace (rotate_quant_gemm's ws) is no array of the CLI's: the
    // launcher zeroes one.
    for (const KernelOperand &op : kernelOperands(spec.value(), 2))
      if (!op.workspace)
        declared.insert({op.name, op.written ? "out" : "in", npyDtype(op.element)});
    auto documented = table.find(kernelOpName(spec.value().op));
    ASSERT_NE(documented, table.end());
    std::set<Row> expected = documented->second;
    expected.insert(table.at("learned").begin(), table.at("learned").end());
    EXPECT_EQ(declared, expected);
  }
}

TEST(DocsArrays, TheParserSeesAChangedTable) {
  // Negative control: a row the ABI does not have is a difference.
  std::map<std::string, std::set<Row>> table = docsTable();
  ASSERT_TRUE(table.count("rotate_quant"));
  std::set<Row> changed = table["rotate_quant"];
  changed.insert({"sorted_weights", "out", "<f4"});
  EXPECT_NE(changed, table["rotate_quant"]);
  EXPECT_EQ(table["rotate_quant"].size(), 3u) << "x, q, s";
}

} // namespace
} // namespace mxf
