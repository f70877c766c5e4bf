//===- e2e_check.h - What a rotate_quant launch must leave in memory -*- C++ -*-===//
//
// Builds the complete expected image of the q and s buffers after a launch
// with m rows (reference bytes where the kernel writes, the poison where it
// must not), compares it byte for byte with what the emulator left, and
// names every mismatch by row, byte and region, so that a failure reads as a
// diagnosis rather than a count.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_E2E_E2E_CHECK_H
#define MXFORGE_TESTS_E2E_E2E_CHECK_H

#include "numerics/options.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mxf::e2e {

/// The shapes of the output buffers (as the kernel signature gives them for
/// the M bucket).
struct OutputShape {
  size_t k = 0;
  size_t bucket = 0;     // rows of q (pad256 of them for the A6W6 tiles)
  size_t qCols = 0;      // K*bits/8 (the A6W6 tiles: their row bytes)
  size_t sRows = 0;      // bucket (plain) or pad256(bucket) (a4w4_shuffle, A6W6 tiles)
  size_t sCols = 0;      // K/32 (plain), pad8(K/32) (a4w4_shuffle), the A6W6 tiles' row bytes
  ScaleLayout layout = ScaleLayout::Plain;
};

/// Where a byte of an output buffer is, and what it must hold there.
enum class Region : uint8_t {
  Code,         // q, row < m: the reference code byte
  CodePastM,    // q, row >= m: untouched (poison)
  Scale,        // s, row < m: the reference scale byte
  ScalePadding, // s (a4w4_shuffle, A6W6), row in [m, pad256(m)) or a padding block: 0x7F
  ScalePastM,   // s, a row the kernel must not touch (poison)
  CodePadding,  // q (A6W6 tiles), row in [m, pad256(m)), K padding or a guard tile: 0
};
constexpr size_t kNumRegions = 6;
const char *regionName(Region region);

struct ExpectedOutputs {
  std::vector<uint8_t> q, s;
  std::vector<Region> qRegion, sRegion;
  /// (row, column) of each byte of s in logical scale coordinates (the
  /// a4w4 shuffle and the A6W6 tiles scatter them).
  std::vector<std::pair<uint32_t, uint32_t>> sCoordinates;
  /// (row, byte of the row) of each byte of q, where a layout scatters them
  /// (the A6W6 tiles); empty when q is row-major.
  std::vector<std::pair<uint32_t, uint32_t>> qCoordinates;
  /// Bytes the kernel must store: every Code, Scale and ScalePadding byte.
  uint64_t bytesWritten = 0;
};

/// The expected buffers after a launch with m rows, from the reference's
/// codes [m, K*bits/8] and plain scales [m, K/32]. `poison` is what both
/// buffers held before the launch. With the A6W6 tiles every byte of both
/// buffers (at m rows) is written: codes and scales at numerics'
/// a6w6CodeOffset / a6w6ScaleOffset, padding 0 and 0x7F.
ExpectedOutputs expectedOutputs(const OutputShape &shape, size_t m,
                                const std::vector<uint8_t> &refCodes,
                                const std::vector<uint8_t> &refPlainScales, uint8_t poison);

struct Mismatch {
  const char *buffer; // "q" or "s"
  size_t row = 0;     // logical row
  size_t byte = 0;    // byte within the row (q) or scale column (s)
  size_t offset = 0;  // offset in the buffer
  uint8_t got = 0, expected = 0;
  Region region = Region::Code;
};

struct Comparison {
  size_t mismatches = 0;
  size_t byRegion[kNumRegions] = {};
  std::vector<Mismatch> first; // the first few, q before s

  bool ok() const { return mismatches == 0; }
  /// "N mismatching bytes (code 3, scale 1); first: q row 0 byte 17
  /// (code): got 0x12, expected 0x13; ..."
  std::string describe() const;
};

Comparison compareOutputs(const ExpectedOutputs &expected, const OutputShape &shape,
                          const std::vector<uint8_t> &q, const std::vector<uint8_t> &s,
                          size_t keepFirst = 8);

} // namespace mxf::e2e

#endif // MXFORGE_TESTS_E2E_E2E_CHECK_H
