//===- moe_sorting.cpp - AITER's MoE token sorting ------------------------===//
//
// The host reference of AITER's moe_sorting: it produces the same arrays as
// the PyTorch oracle in ROCm/aiter op_tests/test_moe_sorting.py
// (run_torch_moe_sorting, formerly test_moe_sorting_native), which is what
// AITER's CK, opus and FlyDSL sorters are checked against, mask included.
// docs/layouts.md ("MoE sorting") and docs/numerics.md explain every choice.
//
//===----------------------------------------------------------------------===//

#include "numerics/moe_sorting.h"

#include <cstdint>
#include <limits>
#include <string>

namespace mxf {
namespace {

// A sorted id keeps the token in bits [23:0] and the topk slot in bits
// [30:24]; bit 31 stays clear so every entry, the sentinel included, is a
// non-negative int32.
constexpr int kTokenBits = 24;
constexpr int kMaxTokens = 1 << kTokenBits; // exclusive
constexpr int kMaxTopk = 128;               // exclusive

std::string str(long long value) { return std::to_string(value); }

Status checkShape(const MoeRouting &routing) {
  const int m = routing.m, topk = routing.topk, experts = routing.experts, block = routing.block;
  if (experts <= 0)
    return Status::failure("moeSort: E (experts) = " + str(experts) + " must be positive");
  if (m <= 0 || m >= kMaxTokens)
    return Status::failure("moeSort: M (tokens) = " + str(m) +
                           " must be in [1, 2^24) because a sorted id keeps the token "
                           "in its low 24 bits and the sentinel holds M itself");
  if (topk <= 0)
    return Status::failure("moeSort: topk = " + str(topk) + " must be positive");
  if (topk >= kMaxTopk)
    return Status::failure("moeSort: topk = " + str(topk) +
                           " must be < 128 because the slot index and the sentinel's topk "
                           "live in bits [30:24] of a non-negative int32");
  // Not an AITER rule: the capacity bound below needs it (see moeSort).
  if (topk > experts)
    return Status::failure("moeSort: topk = " + str(topk) + " exceeds E (experts) = " +
                           str(experts) + "; the capacity M*topk + E*block - topk only "
                           "bounds the padded groups when topk <= E");
  if (block <= 0)
    return Status::failure("moeSort: block = " + str(block) + " must be positive");
  size_t capacity = moeSortedCapacity(m, topk, experts, block);
  // numValid is an int32 and AITER's kernels index sortedIds with 32-bit
  // ints, so the whole buffer must be addressable that way. This also keeps
  // the allocation below from being absurd for a huge E * block.
  if (capacity > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    return Status::failure("moeSort: capacity M*topk + E*block - topk = " + str(m) + "*" +
                           str(topk) + " + " + str(experts) + "*" + str(block) + " - " + str(topk) +
                           " = " + std::to_string(capacity) + " exceeds 2^31 - 1 entries");
  if (routing.topkIds == nullptr)
    return Status::failure("moeSort: topkIds is null");
  if (routing.topkWeights == nullptr)
    return Status::failure("moeSort: topkWeights is null");
  return Status::success();
}

} // namespace

Status checkMoeIds(const int32_t *topkIds, int m, int topk, int experts) {
  if (!topkIds)
    return Status::failure("topk_ids is null");
  for (int t = 0; t < m; ++t)
    for (int s = 0; s < topk; ++s) {
      int32_t e = topkIds[static_cast<size_t>(t) * topk + s];
      if (e < 0 || e >= experts)
        return Status::failure("topk_ids[token " + str(t) + "][slot " + str(s) + "] = " + str(e) +
                               " is outside [0, E = " + str(experts) + ")");
    }
  return Status::success();
}

size_t moeSortedCapacity(int m, int topk, int experts, int block) {
  if (m <= 0 || topk <= 0 || experts <= 0 || block <= 0)
    return 0;
  // Each product of two positive ints is < 2^62, so the sum cannot wrap in
  // 64 bits, and M * topk >= topk (M >= 1), so the subtraction cannot either.
  uint64_t capacity = static_cast<uint64_t>(m) * static_cast<uint64_t>(topk) +
                      static_cast<uint64_t>(experts) * static_cast<uint64_t>(block) -
                      static_cast<uint64_t>(topk);
  if (capacity > std::numeric_limits<size_t>::max())
    return std::numeric_limits<size_t>::max();
  return static_cast<size_t>(capacity);
}

Result<MoeSorting> moeSort(const MoeRouting &routing) {
  Status shape = checkShape(routing);
  if (!shape.ok())
    return shape;
  const int m = routing.m, topk = routing.topk, experts = routing.experts, block = routing.block;
  auto isLocal = [&](int32_t e) { return !routing.expertMask || routing.expertMask[e] != 0; };

  // Pass 1: validate every id (masked experts' too: an id outside [0, E)
  // is malformed whoever owns it) and count each local expert's pairs.
  if (Status ids = checkMoeIds(routing.topkIds, m, topk, experts); !ids.ok())
    return Status::failure("moeSort: " + ids.message());
  std::vector<int32_t> count(experts, 0);
  for (size_t pair = 0; pair < static_cast<size_t>(m) * topk; ++pair)
    if (isLocal(routing.topkIds[pair]))
      ++count[routing.topkIds[pair]];

  // Pass 2: each non-empty local expert's group starts at the running padded
  // total; empty and masked experts take no space at all.
  //
  // Why the padded total fits in the capacity: let c_e be the pairs routed
  // to local expert e, so sum_e c_e <= M * topk (duplicates included: each
  // slot counts once). A non-empty group pads to
  // ceil(c_e / block) * block <= c_e + (block - 1), an empty one to 0, so
  //   total <= M * topk + E * (block - 1) = M * topk + E * block - E
  //         <= M * topk + E * block - topk = capacity     (since topk <= E).
  // The bound is reached when every expert gets 1 (mod block) pairs and
  // topk == E. The check below is the proof's runtime witness.
  size_t capacity = moeSortedCapacity(m, topk, experts, block);
  std::vector<size_t> start(experts, 0);
  size_t total = 0;
  for (int e = 0; e < experts; ++e) {
    start[e] = total;
    size_t c = static_cast<size_t>(count[e]);
    total += (c + block - 1) / block * block;
  }
  if (total > capacity)
    return Status::failure("moeSort: internal error: padded total " + std::to_string(total) +
                           " exceeds capacity " + std::to_string(capacity));

  MoeSorting sorting;
  // Unused entries (group padding and the tail past numValid) hold the
  // sentinel, as AITER's oracle does with torch.full(init_val). Its weights
  // there are torch.empty (never compared); ours are 0.0f so that every
  // byte is defined.
  sorting.sortedIds.assign(capacity, moeSentinel(m, topk));
  sorting.sortedWeights.assign(capacity, 0.0f);
  // ceil(capacity / block) blocks, AITER's max_num_m_blocks; blocks past
  // numValid keep -1.
  size_t numBlocks = (capacity + block - 1) / block;
  sorting.sortedExpertIds.assign(numBlocks, -1);

  // Scanning tokens in ascending order and slots inside a token appends to
  // each group in ascending (token, slot) order: torch.where's row-major
  // order in AITER's oracle, which also orders a token's duplicate slots.
  std::vector<size_t> cursor = start;
  for (int t = 0; t < m; ++t)
    for (int s = 0; s < topk; ++s) {
      const size_t pair = static_cast<size_t>(t) * topk + s;
      int32_t e = routing.topkIds[pair];
      if (!isLocal(e))
        continue;
      size_t i = cursor[e]++;
      sorting.sortedIds[i] = (s << kTokenBits) | t;
      sorting.sortedWeights[i] = routing.topkWeights[pair];
    }

  // A block names its expert by local index: AITER's oracle writes
  // expert_id - skip_expert_num, the masked experts below it not counted,
  // because a rank holds only its local experts' weights, densely.
  int32_t masked = 0;
  for (int e = 0; e < experts; ++e) {
    if (!isLocal(e)) {
      ++masked;
      continue;
    }
    size_t padded = (static_cast<size_t>(count[e]) + block - 1) / block * block;
    for (size_t b = start[e] / block; b < (start[e] + padded) / block; ++b)
      sorting.sortedExpertIds[b] = e - masked;
  }
  sorting.numValidIds[0] = static_cast<int32_t>(total);
  sorting.numValidIds[1] = m;
  return sorting;
}

} // namespace mxf
