//===- moe_sorting.h - AITER's MoE token sorting -----------------*- C++ -*-===//
//
// The routing format AITER's fused MoE kernels consume
// (../shared/docs/MX_LAYOUTS.md "MoE sorting"): routed (token, slot) pairs
// grouped by expert in ascending expert order, tokens ascending inside an
// expert, each expert's group padded to a multiple of the block size.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_NUMERICS_MOE_SORTING_H
#define MXFORGE_NUMERICS_MOE_SORTING_H

#include "support/status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxf {

struct MoeSorting {
  /// Capacity entries: (topk_pos << 24) | token for routed pairs; padding and
  /// the unused tail hold the sentinel (topk << 24) | M.
  std::vector<int32_t> sortedIds;
  /// Capacity entries: topkWeights[token][topk_pos] beside each routed entry
  /// of sortedIds, 0.0f for padding and the tail.
  std::vector<float> sortedWeights;
  /// One expert id per block of sortedIds: ceil(capacity / block) entries
  /// (AITER's max_num_m_blocks); blocks past numValid hold -1. With an
  /// expert mask the id is the local one: e minus the masked experts below e.
  std::vector<int32_t> sortedExpertIds;
  /// AITER's num_valid_ids: [0] the valid (padded) entries of sortedIds, a
  /// multiple of the block; [1] M, the tokens the sorting covers.
  int32_t numValidIds[2] = {0, 0};

  int32_t numValid() const { return numValidIds[0]; }
};

/// Capacity of sortedIds: M * topk + E * block - topk (AITER's bound); 0 when
/// an argument is not positive. An expert mask does not change it.
size_t moeSortedCapacity(int m, int topk, int experts, int block);
inline int32_t moeSentinel(int m, int topk) { return (topk << 24) | m; }

/// The routing one sort reads.
struct MoeRouting {
  const int32_t *topkIds = nullptr;     // [m][topk] expert ids in [0, E)
  const float *topkWeights = nullptr;   // [m][topk]
  /// [E] or null. Null: every expert is local. Otherwise expert e is local
  /// when expertMask[e] != 0; pairs routed to other experts are dropped, as
  /// in AITER's masked sorter (its reference skips the expert entirely).
  const int32_t *expertMask = nullptr;
  int m = 0, topk = 0, experts = 0, block = 0;
};

/// Whether every id of topkIds [m][topk] names an expert in [0, E): the one
/// rule for ids, which moeSort applies and the C API checks before an emu
/// launch. Duplicates in a token's row are allowed (AITER's reference
/// accepts them). The message names the token, the slot and the id.
Status checkMoeIds(const int32_t *topkIds, int m, int topk, int experts);

/// Sort a routing as AITER's moe_sorting does (docs/layouts.md "MoE
/// sorting"). Rejects ids outside [0, E), M <= 0 or M >= 2^24, topk <= 0,
/// topk > E or topk >= 128, E <= 0, block <= 0, null ids or weights, and a
/// capacity above 2^31 - 1. A token may name one expert in several slots
/// (AITER's reference accepts that): each slot is its own entry, in slot
/// order. Experts that receive no pair, and masked experts, get no block.
Result<MoeSorting> moeSort(const MoeRouting &routing);

} // namespace mxf

#endif // MXFORGE_NUMERICS_MOE_SORTING_H
