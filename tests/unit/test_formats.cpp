//===- test_formats.cpp - Element formats, bf16 and E8M0 by hand ----------===//

#include "numerics/formats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mxf {
namespace {

TEST(Formats, E2M1CodeTableMatchesTheIsa) {
  const double expected[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6}; // ISA Table 30
  for (int code = 0; code < 8; ++code) {
    EXPECT_EQ(decodeElem(ElemFormat::E2M1, uint8_t(code)), expected[code]) << code;
    EXPECT_EQ(decodeElem(ElemFormat::E2M1, uint8_t(code | 8)), -expected[code]) << code;
  }
  EXPECT_TRUE(std::signbit(decodeElem(ElemFormat::E2M1, 0x8)));
}

TEST(Formats, ExtremesOfEveryFormat) {
  struct Case {
    ElemFormat format;
    uint8_t maxCode;
    double max;
    double minSubnormal;
    double minNormal;
  } cases[] = {
      {ElemFormat::E2M1, 0x7, 6.0, 0.5, 1.0},
      {ElemFormat::E2M3, 0x1F, 7.5, 0.125, 1.0},
      {ElemFormat::E3M2, 0x1F, 28.0, 0.0625, 0.25},
      {ElemFormat::E4M3, 0x7E, 448.0, std::ldexp(1.0, -9), std::ldexp(1.0, -6)},
      {ElemFormat::E5M2, 0x7B, 57344.0, std::ldexp(1.0, -16), std::ldexp(1.0, -14)},
  };
  for (const Case &c : cases) {
    const FormatInfo &info = formatInfo(c.format);
    SCOPED_TRACE(info.specName);
    EXPECT_EQ(info.maxValue, c.max);
    EXPECT_EQ(decodeElem(c.format, c.maxCode), c.max);
    EXPECT_EQ(decodeElem(c.format, 1), c.minSubnormal);
    EXPECT_EQ(decodeElem(c.format, uint8_t(1u << info.mbits)), c.minNormal);
    EXPECT_EQ(std::ldexp(1.0, info.emax) * (2.0 - std::ldexp(1.0, -info.mbits)) >= c.max, true);
    EXPECT_EQ(encodeElemRne(c.format, float(c.max * 1000), 127), c.maxCode); // saturates
  }
  EXPECT_TRUE(std::isnan(decodeElem(ElemFormat::E4M3, 0x7F)));
  EXPECT_TRUE(std::isnan(decodeElem(ElemFormat::E4M3, 0xFF)));
  EXPECT_EQ(decodeElem(ElemFormat::E5M2, 0x7C), INFINITY);
  EXPECT_EQ(decodeElem(ElemFormat::E5M2, 0xFC), -INFINITY);
  EXPECT_TRUE(std::isnan(decodeElem(ElemFormat::E5M2, 0x7D)));
}

// GFX950_SEMANTICS C2, written exactly as the spec gives it, as a second
// definition of the fp4 conversion.
uint8_t cvtE2m1FromSemanticsDoc(float x, uint8_t b) {
  uint8_t s = std::signbit(x) ? 8 : 0;
  if (std::isnan(x) || b == 0xFF)
    return s | 7;
  if (std::isinf(x))
    return s | 7;
  double v = std::fabs(double(x)) * std::ldexp(1.0, 127 - b);
  uint8_t c = v <= 0.25 ? 0 : v < 0.75 ? 1 : v <= 1.25 ? 2 : v < 1.75 ? 3
            : v <= 2.5  ? 4 : v < 3.5  ? 5 : v <= 5.0  ? 6 : 7;
  return s | c;
}

TEST(Formats, Fp4ConversionSpecialCases) {
  EXPECT_EQ(encodeElemRne(ElemFormat::E2M1, -0.0f, 127), 0x8); // -0 keeps its sign
  EXPECT_EQ(encodeElemRne(ElemFormat::E2M1, 0.0f, 127), 0x0);
  EXPECT_EQ(encodeElemRne(ElemFormat::E2M1, -0.1f, 127), 0x8); // negative underflow
  EXPECT_EQ(encodeElemRne(ElemFormat::E2M1, NAN, 127), 0x7);
  EXPECT_EQ(encodeElemRne(ElemFormat::E2M1, -NAN, 127), 0xF);
  EXPECT_EQ(encodeElemRne(ElemFormat::E2M1, INFINITY, 127), 0x7);
  EXPECT_EQ(encodeElemRne(ElemFormat::E2M1, -INFINITY, 127), 0xF);
  EXPECT_EQ(encodeElemRne(ElemFormat::E2M1, 1.0f, 0xFF), 0x7); // NaN scale
  EXPECT_EQ(encodeElemRne(ElemFormat::E2M1, -1.0f, 0xFF), 0xF);
  // Ties go to the value with the even mantissa: 0.75 lies between 0.5 (code
  // 1) and 1.0 (code 2) and becomes 1.0; 5.0 between 4 and 6 becomes 4.
  const std::pair<float, uint8_t> ties[] = {{0.25f, 0}, {0.75f, 2}, {1.25f, 2}, {1.75f, 4},
                                            {2.5f, 4},  {3.5f, 6},  {5.0f, 6}};
  for (auto [value, code] : ties)
    EXPECT_EQ(encodeElemRne(ElemFormat::E2M1, value, 127), code) << value;
  // The scale divides: byte 128 halves the value before rounding.
  EXPECT_EQ(encodeElemRne(ElemFormat::E2M1, 12.0f, 128), 7);
  EXPECT_EQ(encodeElemRne(ElemFormat::E2M1, 0.75f, 126), 3); // 0.75 * 2 = 1.5
}

TEST(Formats, Fp4ConversionAgreesWithTheSemanticsDocThresholds) {
  const uint8_t scales[] = {0, 1, 2, 3, 100, 120, 126, 127, 128, 129, 150, 200, 250, 253, 254, 255};
  for (uint32_t bits16 = 0; bits16 < 65536; ++bits16) {
    float x = bf16ToF32(uint16_t(bits16));
    for (uint8_t b : scales)
      ASSERT_EQ(encodeElemRne(ElemFormat::E2M1, x, b), cvtE2m1FromSemanticsDoc(x, b))
          << "bf16 0x" << std::hex << bits16 << " scale " << std::dec << int(b);
  }
}

TEST(Formats, Bf16RoundsToNearestEven) {
  EXPECT_EQ(f32ToBf16(1.0f), 0x3F80);
  EXPECT_EQ(f32ToBf16(f32FromBits(0x3F808000)), 0x3F80); // tie, even stays
  EXPECT_EQ(f32ToBf16(f32FromBits(0x3F818000)), 0x3F82); // tie, odd rounds up
  EXPECT_EQ(f32ToBf16(f32FromBits(0x3F808001)), 0x3F81); // above the tie
  EXPECT_EQ(f32ToBf16(f32FromBits(0x7F7FFFFF)), 0x7F80); // overflow to Inf
  EXPECT_EQ(f32ToBf16(-0.0f), 0x8000);
  EXPECT_EQ(f32ToBf16(f32FromBits(0x00000001)), 0x0000); // smallest subnormal rounds to 0
  uint16_t nan = f32ToBf16(f32FromBits(0xFF800001)); // signalling NaN with a low payload
  EXPECT_TRUE(std::isnan(bf16ToF32(nan)));
  EXPECT_EQ(nan & 0x8000, 0x8000);
  for (uint32_t b = 0; b < 65536; ++b) { // bf16 -> f32 -> bf16 is the identity
    float f = bf16ToF32(uint16_t(b));
    if (!std::isnan(f)) {
      ASSERT_EQ(f32ToBf16(f), b);
    }
  }
}

TEST(Formats, E8M0Values) {
  EXPECT_EQ(e8m0Value(127), 1.0);
  EXPECT_EQ(e8m0Value(0), std::ldexp(1.0, -127));
  EXPECT_EQ(e8m0Value(254), std::ldexp(1.0, 127));
  EXPECT_TRUE(std::isnan(e8m0Value(255)));
  EXPECT_EQ(dequantElem(ElemFormat::E2M1, 0x7, 128), 12.0f);
  EXPECT_EQ(dequantElem(ElemFormat::E2M1, 0x1, 0), std::ldexp(1.0f, -128)); // f32 subnormal
  EXPECT_TRUE(std::isnan(dequantElem(ElemFormat::E2M1, 0x1, 255)));
  EXPECT_TRUE(std::signbit(dequantElem(ElemFormat::E2M1, 0x8, 127)));
}

TEST(Formats, SpecNamesRoundTrip) {
  for (ElemFormat format : kAllElemFormats)
    EXPECT_EQ(parseElemFormat(formatInfo(format).specName), format);
  EXPECT_FALSE(parseElemFormat("fp5").has_value());
}

} // namespace
} // namespace mxf
