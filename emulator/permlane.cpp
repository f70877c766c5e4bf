//===- permlane.cpp - v_permlane16_swap_b32 / v_permlane32_swap_b32 -------===//
//
// §C6: both registers are written. 16-swap: for p in {0,1}, l in 0..15,
// vsrc[32p + l] <-> vdst[32p + l + 16]; 32-swap: vsrc[l] <-> vdst[l + 32]
// for l in 0..31. Behaviour with inactive lanes is unconfirmed (§C6 ⚠U), so a
// partial EXEC stops the run instead of guessing.
//
//===----------------------------------------------------------------------===//

#include "emulator/opcode_table.h"
#include "emulator/operands.h"

namespace mxf::emu {

namespace {

using S = Status;

template <unsigned Distance> S permlaneSwap(Wave &w, const Instruction &in) {
  if (w.exec() != kAllLanes)
    return S::failure("v_permlane" + std::to_string(Distance) +
                      "_swap with a partial EXEC (" + hex(w.exec()) +
                      ") is not modelled (GFX950_SEMANTICS §C6)");
  if (in.numDefs != 2)
    return S::failure("expected two destinations");
  uint32_t *vdst = w.lanes(in.defs[0]);
  uint32_t *vsrc = w.lanes(in.defs[1]);
  if (vdst == vsrc)
    return S::failure("v_permlane*_swap with the same register twice is not modelled");
  for (unsigned p = 0; p < kWaveSize / (2 * Distance); ++p)
    for (unsigned l = 0; l < Distance; ++l) {
      const unsigned lo = 2 * Distance * p + l;
      std::swap(vsrc[lo], vdst[lo + Distance]);
    }
  return S::success();
}

} // namespace

void registerPermlane(OpRegistry &r) {
  r.add("v_permlane16_swap_b32", permlaneSwap<16>);
  r.add("v_permlane32_swap_b32", permlaneSwap<32>);
}

} // namespace mxf::emu
