//===- test_exhaustive_conversion.cpp - Every bf16 through every format ---===//
//
// The conversion under test rounds on a computed grid; the definition here
// is written separately and differently: list every code's value, take the
// nearest one (ties to the code with an even mantissa, i.e. an even code),
// saturate beyond the largest finite value. Special inputs follow the
// choices of docs/numerics.md, restated here from the table, not the code.
//
//===----------------------------------------------------------------------===//

#include "numerics/formats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace mxf {
namespace {

struct CodeValue {
  uint8_t code;
  long double value;
};

/// Every non-negative finite code of a format with its value, from first
/// principles (sign, exponent, mantissa fields), not from decodeElem.
std::vector<CodeValue> positiveFiniteCodes(ElemFormat format) {
  const FormatInfo &info = formatInfo(format);
  std::vector<CodeValue> table;
  for (uint32_t code = 0; code < (1u << (info.bits - 1)); ++code) {
    uint32_t e = code >> info.mbits, m = code & ((1u << info.mbits) - 1);
    uint32_t eMax = (1u << info.ebits) - 1;
    if (format == ElemFormat::E4M3 && e == eMax && m == (1u << info.mbits) - 1)
      continue; // NaN
    if (format == ElemFormat::E5M2 && e == eMax)
      continue; // Inf / NaN
    long double value = e == 0 ? std::ldexp((long double)m, 1 - info.bias - info.mbits)
                               : std::ldexp(1.0L + (long double)m / (1u << info.mbits),
                                            int(e) - info.bias);
    table.push_back({uint8_t(code), value});
  }
  return table;
}

uint8_t slowEncode(ElemFormat format, const std::vector<CodeValue> &table, float x,
                   uint8_t scale) {
  const FormatInfo &info = formatInfo(format);
  const uint8_t sign = std::signbit(x) ? uint8_t(1u << (info.bits - 1)) : 0;
  const CodeValue &largest = table.back();
  if (std::isnan(x) || scale == 0xFF) { // NaN in, or NaN scale: NaN if it exists, else +-max
    if (format == ElemFormat::E4M3)
      return sign | 0x7F;
    if (format == ElemFormat::E5M2)
      return sign | 0x7E;
    return sign | largest.code;
  }
  if (std::isinf(x)) // Inf in: Inf for e5m2, else +-max
    return sign | (format == ElemFormat::E5M2 ? 0x7C : largest.code);
  long double v = std::ldexp(std::fabs((long double)x), 127 - int(scale));
  if (v >= largest.value)
    return sign | largest.code;
  const CodeValue *best = &table[0];
  for (const CodeValue &candidate : table) {
    long double d = std::fabs(candidate.value - v), bestD = std::fabs(best->value - v);
    if (d < bestD || (d == bestD && (candidate.code & 1) == 0 && (best->code & 1) == 1))
      best = &candidate;
  }
  return sign | best->code;
}

class ExhaustiveConversion : public ::testing::TestWithParam<ElemFormat> {};

TEST_P(ExhaustiveConversion, EveryBf16AtManyScalesMatchesTheValueTable) {
  const ElemFormat format = GetParam();
  const std::vector<CodeValue> table = positiveFiniteCodes(format);
  // Scales from the bottom (0: inputs are multiplied by 2^127) to the top,
  // including NaN (255) and those around 1.0.
  const uint8_t scales[] = {0, 1, 60, 118, 124, 125, 126, 127, 128, 129, 130, 140, 200, 254, 255};
  size_t checked = 0;
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    float x = bf16ToF32(uint16_t(bits));
    for (uint8_t scale : scales) {
      uint8_t expected = slowEncode(format, table, x, scale);
      ASSERT_EQ(encodeElemRne(format, x, scale), expected)
          << formatInfo(format).specName << " bf16 0x" << std::hex << bits << " scale "
          << std::dec << int(scale);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 65536u * std::size(scales));
}

TEST_P(ExhaustiveConversion, DequantOfEveryCodeAtEveryScale) {
  const ElemFormat format = GetParam();
  const FormatInfo &info = formatInfo(format);
  for (uint32_t code = 0; code < (1u << info.bits); ++code)
    for (uint32_t scale = 0; scale < 256; ++scale) {
      double value = decodeElem(format, uint8_t(code));
      float got = dequantElem(format, uint8_t(code), uint8_t(scale));
      if (scale == 255 || std::isnan(value)) {
        ASSERT_TRUE(std::isnan(got)) << code << " " << scale;
        continue;
      }
      // The exact product (long double) rounded once to f32; overflow is Inf.
      float expected = float(std::ldexp((long double)value, int(scale) - 127));
      ASSERT_EQ(f32Bits(got), f32Bits(expected)) << code << " " << scale;
      ASSERT_EQ(std::signbit(got), std::signbit(value));
    }
}

INSTANTIATE_TEST_SUITE_P(AllFormats, ExhaustiveConversion, ::testing::ValuesIn(kAllElemFormats),
                         [](const auto &info) { return std::string(formatInfo(info.param).specName); });

} // namespace
} // namespace mxf
