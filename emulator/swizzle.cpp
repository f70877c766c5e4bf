//===- swizzle.cpp - ds_swizzle_b32: a lane shuffle through the LDS unit --===//
//
// ds_swizzle_b32 vdst, vsrc offset:OFFSET moves dwords between lanes without
// touching LDS memory (ISA, "LDS Instructions", DS_SWIZZLE_B32):
//   OFFSET[15] = 1, quad-permute mode: in each group of 4 lanes, lane i reads
//     lane (OFFSET >> 2i) & 3 of its group;
//   OFFSET[15] = 0, bit-mask mode over groups of 32 lanes: with and_mask =
//     OFFSET[4:0], or_mask = OFFSET[9:5], xor_mask = OFFSET[14:10], lane i
//     of a group reads lane ((i & and_mask) | or_mask) ^ xor_mask of it.
// A read from an inactive lane gives 0, as ds_bpermute's does (lds.cpp).
//
//===----------------------------------------------------------------------===//

#include "emulator/opcode_table.h"
#include "emulator/operands.h"

namespace mxf::emu {

namespace {

using S = Status;

S dsSwizzle(Wave &w, const Instruction &in) {
  if (in.numImms < 1)
    return S::failure("expected the swizzle offset");
  const uint32_t offset = uint32_t(in.imms[0]) & 0xffff;
  const uint32_t *data = w.lanes(in.src(0));
  const uint64_t exec = w.exec();
  Lanes32 d;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    unsigned from;
    if (offset & 0x8000) {
      from = (l & ~3u) | ((offset >> (2 * (l & 3))) & 3);
    } else {
      const unsigned andMask = offset & 0x1f, orMask = (offset >> 5) & 0x1f,
                     xorMask = (offset >> 10) & 0x1f;
      from = (l & ~31u) | ((((l & 31) & andMask) | orMask) ^ xorMask);
    }
    d[l] = laneActive(exec, from) ? data[from] : 0;
  }
  writeLanes32(w, in.dst(), d, exec);
  return S::success();
}

} // namespace

void registerSwizzle(OpRegistry &r) { r.add("ds_swizzle_b32", dsSwizzle); }

} // namespace mxf::emu
