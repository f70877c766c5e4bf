//===- formats.h - MX element formats, E8M0 scales and bf16 ------*- C++ -*-===//
//
// The element formats of OCP MX as gfx950 implements them
// (../shared/docs/GFX950_SEMANTICS.md section A) and the scaled conversion
// `code = RNE_sat(x * 2^(127 - b))` of section C2, generalised to every
// format. Codes are unpacked: one code per uint8_t, sign in the top bit of the
// format (bit 3 for fp4, bit 5 for fp6, bit 7 for fp8).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_NUMERICS_FORMATS_H
#define MXFORGE_NUMERICS_FORMATS_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace mxf {

enum class ElemFormat : uint8_t {
  E2M1, // fp4
  E2M3, // fp6_e2m3
  E3M2, // fp6_e3m2 (bf6)
  E4M3, // fp8_e4m3 (OCP FN: no Inf, NaN = S.1111.111)
  E5M2, // fp8_e5m2 (IEEE-like)
};
constexpr ElemFormat kAllElemFormats[] = {ElemFormat::E2M1, ElemFormat::E2M3,
                                          ElemFormat::E3M2, ElemFormat::E4M3,
                                          ElemFormat::E5M2};

struct FormatInfo {
  const char *specName; // spelling in kernel specs: fp4, fp6_e2m3, ...
  int bits;             // code width
  int ebits;            // exponent field width
  int mbits;            // mantissa field width
  int bias;
  int emax;             // unbiased exponent of the largest normal value
  double maxValue;      // largest finite magnitude
  bool hasInf;
  bool hasNaN;
};

const FormatInfo &formatInfo(ElemFormat format);
std::optional<ElemFormat> parseElemFormat(std::string_view specName);

/// Value of an unpacked code (sign included); NaN/Inf for such codes.
double decodeElem(ElemFormat format, uint8_t code);

/// The scaled conversion to an element code: x * 2^(127 - scaleByte), rounded
/// to nearest even and saturated to +-max (GFX950_SEMANTICS C2, generalised;
/// the choices for NaN/Inf/NaN-scale are in docs/numerics.md).
uint8_t encodeElemRne(ElemFormat format, float x, uint8_t scaleByte);

/// Dequantization: code * 2^(scaleByte - 127) rounded to f32 (exact for all
/// formats except results below the f32 normal range, which round RNE).
float dequantElem(ElemFormat format, uint8_t code, uint8_t scaleByte);

/// E8M0: 2^(b - 127); 0xFF is NaN.
double e8m0Value(uint8_t scaleByte);

/// bf16 <-> f32. f32 -> bf16 rounds to nearest even; NaN stays a quiet NaN
/// with its sign.
float bf16ToF32(uint16_t bits);
uint16_t f32ToBf16(float value);

uint32_t f32Bits(float value);
float f32FromBits(uint32_t bits);

} // namespace mxf

#endif // MXFORGE_NUMERICS_FORMATS_H
