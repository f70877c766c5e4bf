//===- packing.h - Packing element codes into bytes --------------*- C++ -*-===//
//
// fp4: two codes per byte, element 2i in bits [3:0], 2i+1 in bits [7:4].
// fp6: a dense little-endian bit string, element i at bits [6i+5 : 6i].
// fp8: one code per byte. (GFX950_SEMANTICS.md section A.)
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_NUMERICS_PACKING_H
#define MXFORGE_NUMERICS_PACKING_H

#include "numerics/formats.h"

#include <cstddef>
#include <cstdint>

namespace mxf {

/// Bytes that n packed codes occupy. n must be a multiple of 4 for fp6.
size_t packedBytes(ElemFormat format, size_t n);

/// Pack n unpacked codes (one per byte, extra high bits ignored) into
/// packedBytes(format, n) bytes at out.
void packCodes(ElemFormat format, const uint8_t *codes, size_t n, uint8_t *out);

/// Inverse of packCodes.
void unpackCodes(ElemFormat format, const uint8_t *packed, size_t n, uint8_t *codes);

} // namespace mxf

#endif // MXFORGE_NUMERICS_PACKING_H
