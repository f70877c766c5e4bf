//===- text_table.cpp - Aligned plain-text tables -------------------------===//

#include "tools/mxforge/text_table.h"

#include <fmt/format.h>

#include <algorithm>

namespace mxf::cli {

void TextTable::addColumn(std::string header, Align align) {
  columns_.push_back({std::move(header), align});
}

void TextTable::addRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  std::vector<size_t> widths;
  for (size_t c = 0; c < columns_.size(); ++c) {
    size_t width = columns_[c].header.size();
    for (const std::vector<std::string> &row : rows_)
      width = std::max(width, row[c].size());
    widths.push_back(width);
  }
  std::string out;
  auto appendLine = [&](auto cellOf) {
    std::string line;
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (c)
        line += "  ";
      line += columns_[c].align == Align::Left ? fmt::format("{:<{}}", cellOf(c), widths[c])
                                               : fmt::format("{:>{}}", cellOf(c), widths[c]);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line;
    out += '\n';
  };
  appendLine([&](size_t c) { return columns_[c].header; });
  appendLine([&](size_t c) { return std::string(widths[c], '-'); });
  for (const std::vector<std::string> &row : rows_)
    appendLine([&](size_t c) { return row[c]; });
  return out;
}

} // namespace mxf::cli
