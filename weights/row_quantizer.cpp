//===- row_quantizer.cpp - numerics' quantizeRow + packCodes, fast --------===//
//
// Nearest-even conversion for formats whose largest binade starts at 4
// (E2M1: 0, 0.5, ..., 6; E2M3: 0, 0.125, ..., 7.5). With v = |x| * 2^(127-b)
// the reference rounds v on the grid of its binade: quantum 2^-m below 2
// (the subnormals share it), 2^(1-m) in [2, 4), 2^(2-m) from 4 up, and
// saturates above the largest value. Because codes are monotone in value
// with one code per quantum step, the code is
//     v < 2: rint(v 2^m),  v < 4: rint(v 2^(m-1)) + 2^m,
//     else:  min(rint(v 2^(m-2)) + 2^(m+1), max code),
// ties to even at each step exactly as the reference's nearbyint. In f32,
// |x| * 2^(127-b) is exact whenever the result is normal; a subnormal or
// zero result means v < 2^-126, which is code 0 either way, and overflow
// means saturation either way. rint is (t + 2^23) - 2^23, exact for
// 0 <= t < 2^22 under the default rounding mode (no -ffast-math here).
//
//===----------------------------------------------------------------------===//

#include "weights/row_quantizer.h"

#include "numerics/a6w6.h"
#include "numerics/packing.h"
#include "numerics/stochastic.h"

#include <cmath>
#include <cstring>

namespace mxf::weights {
namespace {

bool hasEmax2(ElemFormat format) {
  return format == ElemFormat::E2M1 || format == ElemFormat::E2M3;
}

/// Nearest-even integer of 0 <= t < 2^22 (g++ does not reassociate float
/// arithmetic without -ffast-math, so the two operations stay).
inline float rintSmall(float t) { return (t + 8388608.0f) - 8388608.0f; }

float powerOfTwo(int e) { return std::ldexp(1.0f, e); } // exact for -149 <= e <= 127

struct Emax2Constants {
  float stepLow, stepMid, stepHigh; // 2^m, 2^(m-1), 2^(m-2)
  float offsetMid, offsetHigh;      // 2^m, 2^(m+1)
  float maxCode;
  uint8_t signBit;
};

Emax2Constants constantsFor(ElemFormat format) {
  const int m = formatInfo(format).mbits;
  const int bits = formatInfo(format).bits;
  Emax2Constants c;
  c.stepLow = powerOfTwo(m);
  c.stepMid = powerOfTwo(m - 1);
  c.stepHigh = powerOfTwo(m - 2);
  c.offsetMid = powerOfTwo(m);
  c.offsetHigh = powerOfTwo(m + 1);
  c.maxCode = float((1 << (bits - 1)) - 1);
  c.signBit = uint8_t(1u << (bits - 1));
  return c;
}

/// The codes of one 32-element block at one scale byte (not 0xFF).
void encodeBlockEmax2(const Emax2Constants &c, const float *x, uint8_t scaleByte,
                      uint8_t *codes) {
  const float scale = powerOfTwo(127 - int(scaleByte));
  for (size_t i = 0; i < kMxBlock; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &x[i], sizeof bits);
    const bool nan = (bits & 0x7FFFFFFFu) > 0x7F800000u;
    float v = std::fabs(x[i]) * scale;
    v = v < 16.0f ? v : 16.0f; // beyond 8 every format here saturates
    const float low = rintSmall(v * c.stepLow);
    const float mid = rintSmall(v * c.stepMid) + c.offsetMid;
    float high = rintSmall(v * c.stepHigh) + c.offsetHigh;
    high = high < c.maxCode ? high : c.maxCode;
    float code = v < 2.0f ? low : (v < 4.0f ? mid : high);
    code = nan ? c.maxCode : code; // fp4/fp6 have no NaN: saturate, keep the sign
    // Signed conversion: SSE2 has it as one vector instruction; unsigned
    // would keep the loop scalar.
    const int32_t sign = int32_t(bits >> 31) * int32_t(c.signBit);
    codes[i] = uint8_t(int32_t(code) | sign);
  }
}

/// packCodes for the widths of MX formats, vectorisable.
void packRow(ElemFormat format, const uint8_t *codes, size_t k, uint8_t *out) {
  switch (formatInfo(format).bits) {
  case 4:
    for (size_t i = 0; i < k / 2; ++i)
      out[i] = uint8_t((codes[2 * i] & 0xF) | ((codes[2 * i + 1] & 0xF) << 4));
    return;
  case 6:
    for (size_t i = 0; i < k / 4; ++i) {
      const uint32_t word = uint32_t(codes[4 * i] & 0x3F) | (uint32_t(codes[4 * i + 1] & 0x3F) << 6) |
                            (uint32_t(codes[4 * i + 2] & 0x3F) << 12) |
                            (uint32_t(codes[4 * i + 3] & 0x3F) << 18);
      out[3 * i] = uint8_t(word);
      out[3 * i + 1] = uint8_t(word >> 8);
      out[3 * i + 2] = uint8_t(word >> 16);
    }
    return;
  default:
    packCodes(format, codes, k, out);
  }
}

} // namespace

uint8_t encodeEmax2Rne(ElemFormat format, float x, uint8_t scaleByte) {
  const Emax2Constants c = constantsFor(format);
  if (scaleByte == 0xFF) // NaN scale: saturate with the sign (as the reference)
    return uint8_t((std::signbit(x) ? c.signBit : 0) | uint8_t(c.maxCode));
  float block[kMxBlock] = {x};
  uint8_t codes[kMxBlock];
  encodeBlockEmax2(c, block, scaleByte, codes);
  return codes[0];
}

RowQuantizer::RowQuantizer(const QuantConfig &config, size_t k)
    : config_(config), k_(k), codes_(k) {}

void RowQuantizer::quantize(const float *values, uint64_t row, uint8_t *packed,
                            uint8_t *scales) {
  const ElemFormat format = config_.format;
  const bool fast = hasEmax2(format) && config_.rounding == Rounding::Rne;
  const Emax2Constants c = fast ? constantsFor(format) : Emax2Constants{};
  for (size_t block = 0; block < k_ / kMxBlock; ++block) {
    const float *v = values + block * kMxBlock;
    // even126 encodes -0.0 as +0 (numerics elementToEncode); amax is the same.
    float signFixed[kMxBlock];
    if (config_.rule == ScaleRule::Even126) {
      for (size_t i = 0; i < kMxBlock; ++i)
        signFixed[i] = elementToEncode(config_.rule, v[i]);
      v = signFixed;
    }
    // amax as the reference's blockAmax: max |v|, or the first NaN's |v|
    // (its payload matters to some scale rules), found by the reference.
    float amax = 0.0f;
    uint32_t anyNaN = 0;
    for (size_t i = 0; i < kMxBlock; ++i) {
      const float mag = std::fabs(v[i]);
      anyNaN |= uint32_t(mag != mag);
      amax = mag > amax ? mag : amax;
    }
    if (anyNaN)
      amax = blockAmax(v, kMxBlock);
    const uint8_t scale = computeScaleByte(config_.rule, format, amax);
    scales[block] = scale;
    uint8_t *codes = codes_.data() + block * kMxBlock;
    if (fast && scale != 0xFF) {
      encodeBlockEmax2(c, v, scale, codes);
      continue;
    }
    for (size_t i = 0; i < kMxBlock; ++i) {
      const size_t column = block * kMxBlock + i;
      codes[i] = config_.rounding == Rounding::Rne ? encodeElemRne(format, v[i], scale)
                 : config_.rounding == Rounding::Rna
                     ? encodeE2M3HalfAway(v[i], scale) // fp6_e2m3 only (the spec's rule)
                     : encodeElemSr(format, v[i], scale,
                                    srRandomForElement(config_.seed, row * k_ + column));
    }
  }
  packRow(format, codes_.data(), k_, packed);
}

} // namespace mxf::weights
