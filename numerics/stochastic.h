//===- stochastic.h - Stochastic rounding as gfx950 does it ------*- C++ -*-===//
//
// HOST-MODEL-DERIVED (GFX950_SEMANTICS.md C5, open item G3): the bit
// alignment below follows AMD's host emulation of v_cvt_scalef32_sr_*, not a
// measurement on silicon.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_NUMERICS_STOCHASTIC_H
#define MXFORGE_NUMERICS_STOCHASTIC_H

#include "numerics/formats.h"

#include <cstdint>

namespace mxf {

/// v_prng_b32: D = (S << 1) ^ (S[31] ? 197 : 0), a 32-bit LFSR.
uint32_t prngNext(uint32_t state);

/// murmur3's 32-bit finaliser, the mixer of srRandomForElement (a kernel
/// computes it with a handful of VALU ops; templates/common/block_quantizer.h).
uint32_t fmix32(uint32_t h);

/// Scaled conversion with stochastic rounding from an f32 source: the value
/// x * 2^(127 - b) is aligned to the element grid with 23 - mbits fraction
/// bits (bits below that, shifted out by denormal alignment, are truncated),
/// r >> (9 + mbits) is added, and the sum is truncated to the grid, then
/// saturated to +-max. NaN/Inf/NaN-scale behave as in encodeElemRne.
uint8_t encodeElemSr(ElemFormat format, float x, uint8_t scaleByte, uint32_t random);

/// The random word our kernels use for element `index` of a row-major tensor
/// quantized with `seed`: elements are taken in pairs (one packed convert);
/// the even element uses base = mix(seed, index / 2), the odd one
/// prngNext(base), as v_cvt_scalef32_sr_pk_* does for its second element.
uint32_t srRandomForElement(uint32_t seed, uint64_t index);

} // namespace mxf

#endif // MXFORGE_NUMERICS_STOCHASTIC_H
