//===- exact_accumulator.cpp - Exact sums rounded once --------------------===//

#include "numerics/exact_accumulator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace mxf {
namespace {

using Limbs = std::array<uint64_t, 34>;

bool lessThan(const Limbs &a, const Limbs &b) {
  for (size_t i = a.size(); i-- > 0;)
    if (a[i] != b[i])
      return a[i] < b[i];
  return false;
}

Limbs subtract(const Limbs &a, const Limbs &b) { // a >= b
  Limbs out{};
  uint64_t borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t d = a[i] - b[i] - borrow;
    borrow = (a[i] < b[i] || (a[i] == b[i] && borrow)) ? 1 : 0;
    out[i] = d;
  }
  return out;
}

bool bitAt(const Limbs &v, int index) {
  if (index < 0)
    return false;
  return (v[size_t(index) / 64] >> (index % 64)) & 1;
}

bool anyBitBelow(const Limbs &v, int index) { // any bit at positions < index
  if (index <= 0)
    return false;
  size_t full = size_t(index) / 64;
  for (size_t i = 0; i < full; ++i)
    if (v[i])
      return true;
  int rest = index % 64;
  return rest && (v[full] & ((uint64_t(1) << rest) - 1));
}

int topBit(const Limbs &v) { // -1 when zero
  for (size_t i = v.size(); i-- > 0;)
    if (v[i])
      return int(i * 64) + 63 - __builtin_clzll(v[i]);
  return -1;
}

} // namespace

void ExactAccumulator::addBits(Magnitude &target, uint64_t mantissa, int bitPosition) {
  size_t limb = size_t(bitPosition) / 64;
  int shift = bitPosition % 64;
  unsigned __int128 wide = (unsigned __int128)mantissa << shift;
  uint64_t parts[2] = {uint64_t(wide), uint64_t(wide >> 64)};
  uint64_t carry = 0;
  for (size_t i = limb; i < kLimbs && (i < limb + 2 || carry); ++i) {
    uint64_t addend = (i < limb + 2) ? parts[i - limb] : 0;
    unsigned __int128 sum = (unsigned __int128)target[i] + addend + carry;
    target[i] = uint64_t(sum);
    carry = uint64_t(sum >> 64);
  }
}

void ExactAccumulator::add(double term) {
  if (std::isnan(term)) {
    sawNaN_ = true;
    return;
  }
  if (std::isinf(term)) {
    (term > 0 ? sawPosInf_ : sawNegInf_) = true;
    return;
  }
  if (!(term == 0.0 && std::signbit(term)))
    allNegativeZero_ = false;
  if (term == 0.0)
    return;
  int exp;
  double fraction = std::frexp(std::fabs(term), &exp); // |term| = f * 2^exp
  // 53-bit integer mantissa m with |term| = m * 2^(exp - 53); exact.
  uint64_t mantissa = uint64_t(std::ldexp(fraction, 53));
  int position = exp - 53 + kLsbOffset;
  if (position < 0) { // subnormal doubles: shift the mantissa instead
    mantissa >>= -position; // the dropped bits are zero for a subnormal
    position = 0;
  }
  addBits(term > 0 ? positive_ : negative_, mantissa, position);
}

float ExactAccumulator::roundToF32() const {
  if (sawNaN_ || (sawPosInf_ && sawNegInf_))
    return std::numeric_limits<float>::quiet_NaN();
  if (sawPosInf_)
    return std::numeric_limits<float>::infinity();
  if (sawNegInf_)
    return -std::numeric_limits<float>::infinity();
  bool negative = lessThan(positive_, negative_);
  Magnitude magnitude = negative ? subtract(negative_, positive_) : subtract(positive_, negative_);
  int top = topBit(magnitude);
  if (top < 0)
    return allNegativeZero_ ? -0.0f : 0.0f;
  int exponent = top - kLsbOffset;              // |sum| in [2^exponent, 2^(exponent+1))
  if (exponent > 127)
    return negative ? -std::numeric_limits<float>::infinity()
                    : std::numeric_limits<float>::infinity();
  int quantumExp = std::max(exponent - 23, -149); // f32 grid spacing at this binade
  int quantumBit = quantumExp + kLsbOffset;
  uint64_t mantissa = 0;
  for (int bit = top; bit >= quantumBit; --bit)
    mantissa = (mantissa << 1) | uint64_t(bitAt(magnitude, bit));
  bool guard = bitAt(magnitude, quantumBit - 1);
  bool sticky = anyBitBelow(magnitude, quantumBit - 1);
  if (guard && (sticky || (mantissa & 1)))
    ++mantissa;
  // mantissa * 2^quantumExp is an f32 value (or 2^128, which overflows to Inf).
  double value = std::ldexp(double(mantissa), quantumExp);
  float result = value >= 0x1p128 ? std::numeric_limits<float>::infinity() : float(value);
  return negative ? -result : result;
}

namespace {

/// The common case of fusedSumF32 without the 2,176-bit accumulator: when
/// every value is finite and all their significant bits lie within 47
/// consecutive bit positions [lo, lo + 47), every partial sum of at most 64
/// of them is an integer multiple of 2^lo below 2^(lo + 53): the double sum
/// is exact, and the one double -> float conversion (nearest even,
/// subnormal and overflowing results included) is the single rounding.
/// IEEE addition gives the same signed zeros as ExactAccumulator (-0 only
/// when every value is -0). About 8x faster for MFMA chunks of bf16 products.
bool fusedSumF32Fast(float acc, const double *terms, size_t n, float &out) {
  if (n > 63)
    return false;
  int lo = std::numeric_limits<int>::max(), hi = std::numeric_limits<int>::min();
  bool special = false;
  auto widen = [&](double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    const int field = int((bits >> 52) & 0x7FF);
    special |= field == 0x7FF;
    uint64_t mantissa = (bits & ((uint64_t(1) << 52) - 1)) | (field ? uint64_t(1) << 52 : 0);
    if (!mantissa)
      return; // +-0 adds no bits
    const int lsbBase = (field ? field : 1) - 1075; // |v| = mantissa * 2^lsbBase
    lo = std::min(lo, lsbBase + __builtin_ctzll(mantissa));
    hi = std::max(hi, lsbBase + 64 - __builtin_clzll(mantissa)); // |v| < 2^hi
  };
  double sum = double(acc);
  widen(sum);
  for (size_t i = 0; i < n; ++i) {
    widen(terms[i]);
    sum += terms[i];
  }
  if (special || (hi != std::numeric_limits<int>::min() && hi - lo > 47))
    return false;
  out = float(sum);
  return true;
}

} // namespace

float fusedSumF32(float acc, const double *terms, size_t n) {
  if (float fast; fusedSumF32Fast(acc, terms, n, fast))
    return fast;
  ExactAccumulator sum;
  sum.add(double(acc));
  for (size_t i = 0; i < n; ++i)
    sum.add(terms[i]);
  return sum.roundToF32();
}

} // namespace mxf
