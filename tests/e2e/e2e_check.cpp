//===- e2e_check.cpp - What a rotate_quant launch must leave in memory ----===//
//
// The expected s image is built from the reference's *plain* scales with
// a4w4ScaleIndex directly (not with shuffleScalesA4W4), so that each byte
// carries its logical (row, column) and region; the test cross-checks it
// against the reference's own shuffled output once per run.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_check.h"

#include "numerics/a6w6.h"
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
    return "layout padding, must be 0x7F";
  case Region::CodePadding:
    return "A6W6 padding (row past m, K past K, guard tile), must be 0";
  case Region::ScalePastM:
    return "s outside the written rows, must stay poison";
  }
  return "?";
}

namespace {

/// The A6W6 tiles: every (row, block) of pad256(m) rows and of the padded
/// K plus the guard tiles, placed by numerics' offsets; each byte's logical
/// coordinate is recorded, so a mismatch names its row and block.
ExpectedOutputs expectedA6W6Tiles(const OutputShape &shape, size_t m,
                                  const std::vector<uint8_t> &refCodes,
                                  const std::vector<uint8_t> &refPlainScales) {
  const size_t blocks = shape.k / 32, blockBytes = 24;
  ExpectedOutputs out;
  const size_t rows = shape.bucket, paddedBlocks = shape.sCols; // 4 blocks of K per 128
  out.q.assign(rows * shape.qCols, 0);
  out.qRegion.assign(out.q.size(), Region::CodePadding);
  out.qCoordinates.resize(out.q.size());
  out.s.assign(shape.sRows * shape.sCols, kScalePadByte);
  out.sRegion.assign(out.s.size(), Region::ScalePadding);
  out.sCoordinates.resize(out.s.size());
  for (size_t row = 0; row < rows; ++row)
    for (size_t block = 0; block < paddedBlocks; ++block) {
      const bool data = row < m && block < blocks;
      for (size_t j = 0; j < blockBytes; ++j) {
        const size_t at = a6w6CodeOffset(row, block, j, shape.k);
        assert(at < out.q.size());
        out.qCoordinates[at] = {uint32_t(row), uint32_t(block * blockBytes + j)};
        if (data) {
          out.q[at] = refCodes[row * blocks * blockBytes + block * blockBytes + j];
          out.qRegion[at] = Region::Code;
        }
      }
      const size_t at = a6w6ScaleOffset(row, block, shape.k);
      assert(at < out.s.size());
      out.sCoordinates[at] = {uint32_t(row), uint32_t(block)};
      if (data) {
        out.s[at] = refPlainScales[row * blocks + block];
        out.sRegion[at] = Region::Scale;
      }
    }
  out.bytesWritten = out.q.size() + out.s.size();
  return out;
}

} // namespace

ExpectedOutputs expectedOutputs(const OutputShape &shape, size_t m,
                                const std::vector<uint8_t> &refCodes,
                                const std::vector<uint8_t> &refPlainScales, uint8_t poison) {
  if (shape.layout == ScaleLayout::A6W6Tiles)
    return expectedA6W6Tiles(shape, m, refCodes, refPlainScales);
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
  for (size_t r = 0; r < kNumRegions; ++r)
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
    if (q[i] != expected.q[i]) {
      const bool scattered = !expected.qCoordinates.empty();
      record({"q", scattered ? expected.qCoordinates[i].first : i / shape.qCols,
              scattered ? expected.qCoordinates[i].second : i % shape.qCols, i, q[i],
              expected.q[i], expected.qRegion[i]});
    }
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] != expected.s[i])
      record({"s", expected.sCoordinates[i].first, expected.sCoordinates[i].second, i, s[i],
              expected.s[i], expected.sRegion[i]});
  return result;
}

} // namespace mxf::e2e
