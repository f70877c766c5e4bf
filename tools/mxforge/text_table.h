//===- text_table.h - Aligned plain-text tables -------------------*- C++ -*-===//
//
// The CLI's tables (demo today; benchmark and compare reports later): a
// header row, a rule, and rows padded to each column's widest cell.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TOOLS_MXFORGE_TEXT_TABLE_H
#define MXFORGE_TOOLS_MXFORGE_TEXT_TABLE_H

#include <string>
#include <vector>

namespace mxf::cli {

class TextTable {
public:
  enum class Align { Left, Right };

  void addColumn(std::string header, Align align = Align::Right);
  /// One cell per column (missing cells print empty, extra ones are dropped).
  void addRow(std::vector<std::string> cells);
  size_t numRows() const { return rows_.size(); }
  /// The whole table, each line ending in '\n', trailing spaces trimmed.
  std::string render() const;

private:
  struct Column {
    std::string header;
    Align align;
  };
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

} // namespace mxf::cli

#endif // MXFORGE_TOOLS_MXFORGE_TEXT_TABLE_H
