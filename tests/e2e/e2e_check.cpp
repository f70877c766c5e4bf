//===- e2e_check.cpp - What a rotate_quant launch must leave in memory ----===//
//
// The expected s image is built from the reference's *plain* scales with
// a4w4ScaleIndex directly (not with shuffleScalesA4W4), so that each byte
// carries its logical (row, column) and region; the test cross-checks it
// against the reference's own shuffled output once per run.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_check.h"

#include "numerics/layouts.h"
#include "numerics/reference.h"

#include <fmt/format.h>

#include <cassert>

namespace mxf::e2e {

const char *regionName(Region region) {
  switch (region) {
  case Region::Code:
    return "code";
  case Region::CodePastM:
    return "q row >= M, must stay poison";
  case Region::Scale:
    return "scale";
  case Region::ScalePadding:
    return "a4w4 padding, must be 0x7F";
  case Region::ScalePastM:
    return "s outside the written rows, must stay poison";
  }
  return "?";
}

ExpectedOutputs expectedOutputs(const OutputShape &shape, size_t m,
                                const std::vector<uint8_t> &refCodes,
                                const std::vector<uint8_t> &refPlainScales, uint8_t poison) {
  const size_t scaleCols = shape.k / 32;
  assert(refCodes.size() == m * shape.qCols && refPlainScales.size() == m * scaleCols);
  ExpectedOutputs out;
  out.q.assign(shape.bucket * shape.qCols, poison);
  out.qRegion.assign(out.q.size(), Region::CodePastM);
  for (size_t i = 0; i < m * shape.qCols; ++i) {
    out.q[i] = refCodes[i];
    out.qRegion[i] = Region::Code;
  }
  out.bytesWritten = m * shape.qCols;

  out.s.assign(shape.sRows * shape.sCols, poison);
  out.sRegion.assign(out.s.size(), Region::ScalePastM);
  out.sCoordinates.resize(out.s.size());
  // The kernel writes rows [0, m) plain, or [0, pad256(m)) shuffled (the
  // gemm_a4w4 padding); rows beyond stay untouched.
  const size_t written = shape.layout == ScaleLayout::Plain
                             ? m
                             : std::min(shape.sRows, (m + kA4W4RowPadding - 1) /
                                                         kA4W4RowPadding * kA4W4RowPadding);
  for (size_t row = 0; row < shape.sRows; ++row)
    for (size_t col = 0; col < shape.sCols; ++col) {
      const size_t at = shape.layout == ScaleLayout::Plain ? row * shape.sCols + col
                                                           : a4w4ScaleIndex(row, col, shape.sCols);
      assert(at < out.s.size());
      out.sCoordinates[at] = {uint32_t(row), uint32_t(col)};
      if (row >= written)
        continue;
      ++out.bytesWritten;
      if (row < m && col < scaleCols) {
        out.s[at] = refPlainScales[row * scaleCols + col];
        out.sRegion[at] = Region::Scale;
      } else {
        out.s[at] = kScalePadByte;
        out.sRegion[at] = Region::ScalePadding;
      }
    }
  return out;
}

std::string Comparison::describe() const {
  if (ok())
    return "outputs match";
  std::string text = fmt::format("{} mismatching bytes (", mismatches);
  const char *sep = "";
  for (size_t r = 0; r < 5; ++r)
    if (byRegion[r]) {
      text += fmt::format("{}{} {}", sep, regionName(Region(r)), byRegion[r]);
      sep = ", ";
    }
  text += "); first:";
  for (const Mismatch &mm : first)
    text += fmt::format("\n    {} row {} {} {} (offset {}, {}): got 0x{:02x}, expected 0x{:02x}",
                        mm.buffer, mm.row, mm.buffer[0] == 'q' ? "byte" : "scale column",
                        mm.byte, mm.offset, regionName(mm.region), mm.got, mm.expected);
  return text;
}

Comparison compareOutputs(const ExpectedOutputs &expected, const OutputShape &shape,
                          const std::vector<uint8_t> &q, const std::vector<uint8_t> &s,
                          size_t keepFirst) {
  assert(q.size() == expected.q.size() && s.size() == expected.s.size());
  Comparison result;
  auto record = [&](Mismatch mm) {
    ++result.mismatches;
    ++result.byRegion[size_t(mm.region)];
    if (result.first.size() < keepFirst)
      result.first.push_back(mm);
  };
  for (size_t i = 0; i < q.size(); ++i)
    if (q[i] != expected.q[i])
      record({"q", i / shape.qCols, i % shape.qCols, i, q[i], expected.q[i], expected.qRegion[i]});
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] != expected.s[i])
      record({"s", expected.sCoordinates[i].first, expected.sCoordinates[i].second, i, s[i],
              expected.s[i], expected.sRegion[i]});
  return result;
}

} // namespace mxf::e2e
