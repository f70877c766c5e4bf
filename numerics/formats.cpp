//===- formats.cpp - MX element formats, E8M0 scales and bf16 -------------===//
//
// The scaled conversion works in double: x * 2^(127 - b) is exact there for
// every f32 x and every byte b (24 significant bits, exponents within
// +-(149 + 127)), so the only rounding is the one to the element grid.
//
//===----------------------------------------------------------------------===//

#include "numerics/formats.h"

#include <cmath>
#include <cstring>

namespace mxf {
namespace {

const FormatInfo kFormats[] = {
    //  name        bits eb mb bias emax max     inf    nan
    {"fp4", 4, 2, 1, 1, 2, 6.0, false, false},
    {"fp6_e2m3", 6, 2, 3, 1, 2, 7.5, false, false},
    {"fp6_e3m2", 6, 3, 2, 3, 4, 28.0, false, false},
    {"fp8_e4m3", 8, 4, 3, 7, 8, 448.0, false, true},
    {"fp8_e5m2", 8, 5, 2, 15, 15, 57344.0, true, true},
};

uint8_t signBit(const FormatInfo &info) { return uint8_t(1u << (info.bits - 1)); }

/// Code of the largest finite magnitude (positive).
uint8_t maxFiniteCode(ElemFormat format) {
  switch (format) {
  case ElemFormat::E2M1: return 0x7;
  case ElemFormat::E2M3: return 0x1F;
  case ElemFormat::E3M2: return 0x1F;
  case ElemFormat::E4M3: return 0x7E; // 0x7F is NaN
  case ElemFormat::E5M2: return 0x7B; // 0x7C is Inf
  }
  return 0;
}

uint8_t nanCode(ElemFormat format) { return format == ElemFormat::E4M3 ? 0x7F : 0x7E; }

/// Round the non-negative, finite magnitude v (exact in double) to the
/// format's grid, nearest-even, and return the positive code; saturates.
uint8_t roundMagnitudeRne(ElemFormat format, double v) {
  const FormatInfo &info = formatInfo(format);
  if (v == 0.0)
    return 0;
  const int minNormalExp = 1 - info.bias;
  int exp; // v = f * 2^exp, f in [0.5, 1)
  std::frexp(v, &exp);
  int unbiased = std::max(exp - 1, minNormalExp);
  // Quantum of the grid at v's binade (subnormals share the smallest one).
  double quantum = std::ldexp(1.0, unbiased - info.mbits);
  double steps = v / quantum; // exact: a power-of-two division
  double rounded = std::nearbyint(steps); // default FP environment: ties to even
  double value = rounded * quantum;
  if (value > info.maxValue)
    return maxFiniteCode(format);
  if (value == 0.0)
    return 0;
  // Encode value: find its exponent field and mantissa field.
  int vexp;
  std::frexp(value, &vexp);
  int e = vexp - 1; // value in [2^e, 2^(e+1))
  if (e < minNormalExp) { // subnormal: exponent field 0
    uint32_t mant = uint32_t(value / std::ldexp(1.0, minNormalExp - info.mbits));
    return uint8_t(mant);
  }
  uint32_t field = uint32_t(e + info.bias);
  uint32_t mant = uint32_t((value / std::ldexp(1.0, e) - 1.0) * (1u << info.mbits));
  return uint8_t((field << info.mbits) | mant);
}

} // namespace

const FormatInfo &formatInfo(ElemFormat format) { return kFormats[static_cast<int>(format)]; }

std::optional<ElemFormat> parseElemFormat(std::string_view specName) {
  for (ElemFormat format : kAllElemFormats)
    if (specName == formatInfo(format).specName)
      return format;
  return std::nullopt;
}

double decodeElem(ElemFormat format, uint8_t code) {
  const FormatInfo &info = formatInfo(format);
  code &= uint8_t((1u << info.bits) - 1);
  bool negative = code & signBit(info);
  uint32_t magnitude = code & (signBit(info) - 1);
  uint32_t field = magnitude >> info.mbits;
  uint32_t mant = magnitude & ((1u << info.mbits) - 1);
  double value;
  uint32_t allOnes = (1u << info.ebits) - 1;
  if (format == ElemFormat::E4M3 && magnitude == 0x7F) {
    value = NAN;
  } else if (info.hasInf && field == allOnes) {
    value = mant == 0 ? INFINITY : NAN;
  } else if (field == 0) {
    value = std::ldexp(double(mant), 1 - info.bias - info.mbits);
  } else {
    value = std::ldexp(1.0 + double(mant) / (1u << info.mbits), int(field) - info.bias);
  }
  return negative ? -value : value;
}

uint8_t encodeElemRne(ElemFormat format, float x, uint8_t scaleByte) {
  const FormatInfo &info = formatInfo(format);
  uint8_t sign = std::signbit(x) ? signBit(info) : 0;
  if (std::isnan(x) || scaleByte == 0xFF) {
    // fp4/fp6 have no NaN: HOST saturates to +-max (GFX950_SEMANTICS C2).
    return info.hasNaN ? uint8_t(sign | nanCode(format)) : uint8_t(sign | maxFiniteCode(format));
  }
  if (std::isinf(x)) // Inf only exists in e5m2; everywhere else saturate.
    return uint8_t(sign | (info.hasInf ? 0x7C : maxFiniteCode(format)));
  double v = std::ldexp(std::fabs(double(x)), 127 - int(scaleByte));
  return uint8_t(sign | roundMagnitudeRne(format, v));
}

float dequantElem(ElemFormat format, uint8_t code, uint8_t scaleByte) {
  if (scaleByte == 0xFF)
    return NAN;
  // code * 2^(b-127) is exact in double; the cast to float rounds nearest
  // even when the product falls below f32's normal range.
  return float(std::ldexp(decodeElem(format, code), int(scaleByte) - 127));
}

double e8m0Value(uint8_t scaleByte) {
  return scaleByte == 0xFF ? NAN : std::ldexp(1.0, int(scaleByte) - 127);
}

uint32_t f32Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float f32FromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

float bf16ToF32(uint16_t bits) { return f32FromBits(uint32_t(bits) << 16); }

uint16_t f32ToBf16(float value) {
  uint32_t bits = f32Bits(value);
  if (std::isnan(value))
    return uint16_t((bits >> 16) | 0x0040); // keep sign and payload top, force quiet
  uint32_t lsb = (bits >> 16) & 1;
  bits += 0x7FFF + lsb; // round to nearest, ties to even; overflow carries to Inf
  return uint16_t(bits >> 16);
}

} // namespace mxf
