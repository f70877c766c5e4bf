//===- stochastic.cpp - Stochastic rounding as gfx950 does it -------------===//

#include "numerics/stochastic.h"

#include <cmath>

namespace mxf {

/// murmur3's 32-bit finaliser: a cheap bijective mixer a kernel can compute
/// with a handful of VALU ops.
uint32_t fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

uint32_t prngNext(uint32_t state) {
  return (state << 1) ^ ((state & 0x80000000u) ? 197u : 0u);
}

uint8_t encodeElemSr(ElemFormat format, float x, uint8_t scaleByte, uint32_t random) {
  const FormatInfo &info = formatInfo(format);
  if (!std::isfinite(x) || scaleByte == 0xFF)
    return encodeElemRne(format, x, scaleByte); // same special-case handling
  const uint8_t sign = std::signbit(x) ? uint8_t(1u << (info.bits - 1)) : 0;
  double v = std::ldexp(std::fabs(double(x)), 127 - int(scaleByte));
  if (v == 0.0)
    return sign;
  const int minNormalExp = 1 - info.bias;
  int exp;
  std::frexp(v, &exp);
  int unbiased = std::max(exp - 1, minNormalExp);
  const int fractionBits = 23 - info.mbits;
  // v in units of 2^-fractionBits of the grid's quantum; floor() is the
  // truncation of bits that denormal alignment shifts out.
  double aligned = std::floor(std::ldexp(v, fractionBits - (unbiased - info.mbits)));
  uint64_t sum = uint64_t(aligned) + (random >> (9 + info.mbits));
  double value = std::ldexp(double(sum >> fractionBits), unbiased - info.mbits);
  if (value > info.maxValue)
    value = info.maxValue;
  // value lies on the grid, so RNE encoding is exact and only encodes it.
  return uint8_t(sign | encodeElemRne(format, float(value), 127));
}

uint32_t srRandomForElement(uint32_t seed, uint64_t index) {
  uint64_t pair = index / 2;
  uint32_t base = fmix32(seed ^ fmix32(uint32_t(pair) ^ fmix32(uint32_t(pair >> 32) + 0x9E3779B9u)));
  return (index & 1) ? prngNext(base) : base;
}

} // namespace mxf
