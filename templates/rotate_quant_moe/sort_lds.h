//===- sort_lds.h - Where the MoE sorter keeps its arrays in LDS -*- C++ -*-===//
//
// Every workgroup of a rotate_quant_moe kernel sorts the whole routing again
// in its own LDS (docs/templates.md, "rotate_quant_moe"), so that no
// workgroup waits for another and nothing is left in global memory between
// launches. This is the one layout of that LDS: the emitter indexes it, the
// family's launch record adds its size. Plain C++ (the runtime library reads
// launch records without MLIR).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_SORT_LDS_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_SORT_LDS_H

#include "spec/kernel_spec.h"

#include <cstdint>

namespace mxf {

/// Tokens per row tile (the 16 rows of an MFMA tile): a workgroup's tokens.
constexpr int kMoeTileTokens = 16;

/// Element offsets (i32) of the sorter's arrays in its LDS buffer.
struct MoeSortLds {
  int64_t count = 0;      // [E] routed pairs per local expert
  int64_t before = 0;     // [E] of those, pairs of tokens before this tile
  int64_t start = 0;      // [E + 1] each expert's first sorted row; [E] = num_valid_ids[0]
  int64_t localId = 0;    // [E] local expert index (emask=1 only)
  int64_t tileIds = 0;    // [16 * topk] this tile's expert ids, -1 when dropped
  int64_t sortedRow = 0;  // [16 * topk] each tile entry's sorted row, -1 when dropped
  int64_t scanPadded = 0; // [threads] prefix sums of padded counts
  int64_t scanLocal = 0;  // [threads] prefix sums of local experts (emask=1 only)
  int64_t elements = 0;   // the whole buffer, a multiple of 4 (16 bytes)

  int64_t bytes() const { return elements * 4; }
  int64_t tileEntries = 0; // 16 * topk
};

inline MoeSortLds moeSortLds(const KernelSpec &spec, int threads) {
  MoeSortLds lds;
  const int64_t experts = spec.E;
  lds.tileEntries = int64_t(kMoeTileTokens) * spec.topk;
  int64_t next = 0;
  auto take = [&](int64_t elements) {
    const int64_t at = next;
    next += elements;
    return at;
  };
  lds.count = take(experts);
  lds.before = take(experts);
  lds.start = take(experts + 1);
  lds.localId = spec.emask ? take(experts) : 0;
  lds.tileIds = take(lds.tileEntries);
  lds.sortedRow = take(lds.tileEntries);
  lds.scanPadded = take(threads);
  lds.scanLocal = spec.emask ? take(threads) : 0;
  lds.elements = (next + 3) / 4 * 4;
  return lds;
}

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_SORT_LDS_H
