//===- register_budget.cpp - Waves per SIMD a quantizer kernel asks for ---===//
//
// 8 waves per SIMD (64 VGPRs) is the target (docs/templates.md). At RS=256
// the kernels fit it with little room to spare (x alone takes 32 VGPRs), and
// without the request LLVM's scheduler treats occupancy as negotiable: it
// only promises a 1024-lane workgroup 4 waves per SIMD and spends registers
// on latency instead (94 VGPRs for the sliced learned kernel, 66 for some
// Hadamard specs). With it, the register allocator has 64 VGPRs; the spec
// matrix test checks that nothing spills. So do the per-block kernels that
// stage R through each wave's LDS (62-66 VGPRs unasked, RS=64 with a4w4
// scales the most). The other kernels stay below 64 on their own.
//
// fp6 needs more: its convert reads two 16-VGPR source tuples (three
// quarters poison, but allocated whole). Held to 64 the per-block kernels
// spill (20 bytes of scratch at RS=64), held to 72 the RS=256 ones with
// W6A16 tiles (12-20 bytes); unasked, the RS=256 learned kernel takes 102.
// AITER's A6W6 tiles keep more addresses live (the C0/C1 bases, the
// byte-wise stores of a lane's second piece, the padding loop's): unasked,
// the mask-selected RS=128 Hadamard kernel took 82 VGPRs; held to 72 the
// RS=128 kernel with round=sr spilled 20 bytes. So they ask for 6 waves (80
// VGPRs), 5 (96) with selection (both paths' addresses) and for the RS=256
// learned kernel (12 bytes spilled at 80 with even126), 4 (128) with
// selection at RS=256 (12 bytes spilled at 96 with round=sr).
//
// Selective rotation holds both paths' addresses and the quant-only side's
// 8 blocks at RS=256; held to 64 VGPRs those kernels spilled 28 bytes, so
// they ask for 7 waves (72 VGPRs). Below RS=256 both paths fit.
//
// Each family lists its rules in its own folder (rules.cpp), in the order
// they are tried; the predicates they share are here.
//
//===----------------------------------------------------------------------===//

#include "templates/common/rotating_quantizer/quantizer_family.h"

#include "templates/common/rotating_quantizer/tiling.h"

#include "numerics/formats.h"

namespace mxf {

int chooseWavesPerEu(const QuantizerFamily &family, const KernelSpec &spec,
                     const KernelTiling &tiling) {
  for (size_t i = 0; i < family.registerBudgetRules; ++i)
    if (family.registerBudget[i].applies(spec, tiling))
      return family.registerBudget[i].wavesPerEu;
  return 0;
}

int frontLdsBytes(const QuantizerFamily &family, const KernelSpec &spec,
                  const KernelTiling &tiling) {
  return family.frontLdsBytes ? family.frontLdsBytes(spec, tiling.workgroupSize()) : 0;
}

namespace register_budget {

bool staysBelow64Unasked(const KernelSpec &spec, const KernelTiling &tiling) {
  const bool holdsMany =
      (spec.RS >= 256 && (spec.rot == RotationKind::Hadamard || spec.rot == RotationKind::Learned)) ||
      tiling.transposesInWaveLds || spec.layout == ScaleLayout::A6W6Tiles;
  return !holdsMany;
}

bool isFp6(const KernelSpec &spec, const KernelTiling &) { return formatInfo(spec.fmt).bits == 6; }

bool fp6TilesSelectedAtRs256(const KernelSpec &spec, const KernelTiling &tiling) {
  return isFp6(spec, tiling) && spec.layout == ScaleLayout::A6W6Tiles &&
         spec.select != RotationSelect::Off && spec.RS >= 256;
}

bool fp6TilesSelectedOrLearnedRs256(const KernelSpec &spec, const KernelTiling &tiling) {
  return isFp6(spec, tiling) && spec.layout == ScaleLayout::A6W6Tiles &&
         (spec.select != RotationSelect::Off ||
          (spec.RS >= 256 && spec.rot == RotationKind::Learned));
}

bool fp6AtRs256OrTiles(const KernelSpec &spec, const KernelTiling &tiling) {
  return isFp6(spec, tiling) && (spec.RS >= 256 || spec.layout == ScaleLayout::A6W6Tiles);
}

bool selectedAtRs256(const KernelSpec &spec, const KernelTiling &) {
  return spec.select != RotationSelect::Off && spec.RS >= 256;
}

bool always(const KernelSpec &, const KernelTiling &) { return true; }

} // namespace register_budget
} // namespace mxf
