//===- packing.cpp - Packing element codes into bytes ---------------------===//

#include "numerics/packing.h"

#include <cassert>
#include <cstring>

namespace mxf {

size_t packedBytes(ElemFormat format, size_t n) {
  size_t bits = size_t(formatInfo(format).bits);
  return (n * bits + 7) / 8;
}

void packCodes(ElemFormat format, const uint8_t *codes, size_t n, uint8_t *out) {
  const int bits = formatInfo(format).bits;
  const uint32_t mask = (1u << bits) - 1;
  std::memset(out, 0, packedBytes(format, n));
  // One generic little-endian bit writer serves all three widths: element i
  // starts at bit i*bits of the byte string.
  for (size_t i = 0; i < n; ++i) {
    size_t bit = i * size_t(bits);
    uint32_t value = (codes[i] & mask) << (bit % 8);
    out[bit / 8] |= uint8_t(value);
    if ((bit % 8) + size_t(bits) > 8)
      out[bit / 8 + 1] |= uint8_t(value >> 8);
  }
}

void unpackCodes(ElemFormat format, const uint8_t *packed, size_t n, uint8_t *codes) {
  const int bits = formatInfo(format).bits;
  const uint32_t mask = (1u << bits) - 1;
  for (size_t i = 0; i < n; ++i) {
    size_t bit = i * size_t(bits);
    uint32_t window = packed[bit / 8];
    if ((bit % 8) + size_t(bits) > 8)
      window |= uint32_t(packed[bit / 8 + 1]) << 8;
    codes[i] = uint8_t((window >> (bit % 8)) & mask);
  }
}

} // namespace mxf
