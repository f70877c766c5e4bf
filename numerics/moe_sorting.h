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

#include "numerics/status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxf {

struct MoeSorting {
  /// Capacity entries: (topk_pos << 24) | token for routed pairs; padding and
  /// the unused tail hold the sentinel (topk << 24) | M.
  std::vector<int32_t> sortedIds;
  /// One expert id per block of sortedIds: ceil(capacity / block) entries
  /// (AITER's max_num_m_blocks); blocks past numValid hold -1.
  std::vector<int32_t> sortedExpertIds;
  /// Number of valid (padded) entries of sortedIds: a multiple of the block.
  int32_t numValid = 0;
};

/// Capacity of sortedIds: M * topk + E * block - topk (AITER's bound); 0 when
/// an argument is not positive.
size_t moeSortedCapacity(int m, int topk, int experts, int block);
inline int32_t moeSentinel(int m, int topk) { return (topk << 24) | m; }

/// Sort a routing topkIds[m][topk] (expert ids). Rejects ids outside [0, E),
/// a token routed twice to one expert, M <= 0 or M >= 2^24, topk <= 0,
/// topk > E or topk >= 128, E <= 0, block <= 0, and a capacity above
/// 2^31 - 1. Experts that receive no token get no block.
Result<MoeSorting> moeSort(const int32_t *topkIds, int m, int topk, int experts, int block);

} // namespace mxf

#endif // MXFORGE_NUMERICS_MOE_SORTING_H
