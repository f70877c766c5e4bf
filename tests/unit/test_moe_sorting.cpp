//===- test_moe_sorting.cpp - AITER's MoE token sorting -------------------===//
//
// Hand-made routings with every output array written out (weights, expert
// masks, duplicate slots, block 16 included), seeded random routings checked
// both against properties of the format and against an oracle written like
// AITER's run_torch_moe_sorting (scan the routing once per expert, skip and
// count masked experts), and every rejection with its message.
//
//===----------------------------------------------------------------------===//

#include "numerics/moe_sorting.h"

#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace mxf {
namespace {

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

/// The weights the hand-made cases use: topkWeights[t][s] = (t*topk + s + 1)/8,
/// exact in f32 and distinct, so a weight names its (token, slot).
std::vector<float> eighths(int m, int topk) {
  std::vector<float> weights(static_cast<size_t>(m) * topk);
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = float(i + 1) / 8.0f;
  return weights;
}

Result<MoeSorting> sortOf(const std::vector<int32_t> &topkIds, const std::vector<float> &weights,
                          int m, int topk, int experts, int block,
                          const std::vector<int32_t> *mask = nullptr) {
  MoeRouting routing;
  routing.topkIds = topkIds.data();
  routing.topkWeights = weights.data();
  routing.expertMask = mask ? mask->data() : nullptr;
  routing.m = m;
  routing.topk = topk;
  routing.experts = experts;
  routing.block = block;
  return moeSort(routing);
}

/// Runs moeSort and checks every field against the written-out arrays;
/// sortedWeights must be the entry's own weight (0 for padding) and
/// num_valid_ids[1] must be M.
void expectSorting(const std::vector<int32_t> &topkIds, int m, int topk, int experts, int block,
                   const std::vector<int32_t> &sortedIds,
                   const std::vector<int32_t> &sortedExpertIds, int32_t numValid,
                   const std::vector<int32_t> *mask = nullptr) {
  ASSERT_EQ(topkIds.size(), static_cast<size_t>(m) * topk);
  const std::vector<float> weights = eighths(m, topk);
  Result<MoeSorting> got = sortOf(topkIds, weights, m, topk, experts, block, mask);
  ASSERT_TRUE(got.ok()) << got.error();
  EXPECT_EQ(moeSortedCapacity(m, topk, experts, block), sortedIds.size());
  EXPECT_EQ(got.value().sortedIds, sortedIds);
  EXPECT_EQ(got.value().sortedExpertIds, sortedExpertIds);
  EXPECT_EQ(got.value().numValidIds[0], numValid);
  EXPECT_EQ(got.value().numValidIds[1], m);
  ASSERT_EQ(got.value().sortedWeights.size(), sortedIds.size());
  for (size_t i = 0; i < sortedIds.size(); ++i) {
    const int32_t v = sortedIds[i];
    const float want = (v >> 24) < topk ? weights[size_t(v & 0xFFFFFF) * topk + (v >> 24)] : 0.0f;
    EXPECT_EQ(got.value().sortedWeights[i], want) << "sorted_weights[" << i << "]";
  }
}

TEST(MoeSorting, SentinelAndCapacity) {
  EXPECT_EQ(moeSentinel(3, 2), 0x02000003);
  EXPECT_EQ(moeSentinel((1 << 24) - 1, 127), 0x7FFFFFFF); // the largest: still non-negative
  EXPECT_EQ(moeSortedCapacity(3, 2, 4, 4), 20u);          // 6 + 16 - 2
  EXPECT_EQ(moeSortedCapacity(1, 1, 1, 1), 1u);
  EXPECT_EQ(moeSortedCapacity(0, 2, 4, 4), 0u);
  EXPECT_EQ(moeSortedCapacity(3, 2, 4, -1), 0u);
}

// M=3, topk=2, E=4, block=4; expert 3 receives no token.
//   token 0 -> experts [2, 0], token 1 -> [0, 2], token 2 -> [2, 1]
// Entries are (slot << 24) | token, so 0x01000000 is slot 1 of token 0.
// Sentinel (2 << 24) | 3 = 0x02000003. Capacity 3*2 + 4*4 - 2 = 20, blocks
// ceil(20 / 4) = 5.
//   expert 0: token 0 slot 1, token 1 slot 0, 2 pads       -> block 0
//   expert 1: token 2 slot 1, 3 pads                       -> block 1
//   expert 2: token 0 slot 0, token 1 slot 1, token 2 slot 0, 1 pad -> block 2
//   expert 3: nothing, no block. numValid 12; entries 12..19 are the tail.
TEST(MoeSorting, HandMadeWithEmptyExpert) {
  const int32_t S = 0x02000003;
  expectSorting({2, 0, 0, 2, 2, 1}, 3, 2, 4, 4,
                {0x01000000, 0x00000001, S, S,             // expert 0
                 0x01000002, S, S, S,                      // expert 1
                 0x00000000, 0x01000001, 0x00000002, S,    // expert 2
                 S, S, S, S, S, S, S, S},                  // tail
                {0, 1, 2, -1, -1}, 12);
}

// The same routing's sorted_weights written out: w[t][s] = (2t + s + 1)/8,
// entries as above, 0 for every sentinel (AITER leaves those unwritten).
TEST(MoeSorting, HandMadeSortedWeights) {
  const std::vector<float> weights = eighths(3, 2);
  Result<MoeSorting> got = sortOf({2, 0, 0, 2, 2, 1}, weights, 3, 2, 4, 4);
  ASSERT_TRUE(got.ok()) << got.error();
  const std::vector<float> want = {0.25f,  0.375f, 0, 0,      // expert 0: t0s1, t1s0
                                   0.75f,  0,      0, 0,      // expert 1: t2s1
                                   0.125f, 0.5f, 0.625f, 0,   // expert 2: t0s0, t1s1, t2s0
                                   0, 0, 0, 0, 0, 0, 0, 0};   // tail
  EXPECT_EQ(got.value().sortedWeights, want);
  EXPECT_EQ(got.value().numValidIds[0], 12);
  EXPECT_EQ(got.value().numValidIds[1], 3);
}

// Expert parallelism: the routing of HandMadeWithEmptyExpert with expert 1
// masked (mask [1, 0, 1, 1]). As in AITER's run_torch_moe_sorting, expert
// 1 gets no block and token 2's slot 1 (its pair) is dropped; experts after
// it are renumbered to local ids (expert 2 -> 1). The capacity (20) and the
// sentinel do not change. Weights: expert 0 holds w01, w10; expert 2 w00,
// w11, w20.
TEST(MoeSorting, HandMadeExpertMask) {
  const int32_t S = 0x02000003;
  const std::vector<int32_t> mask = {1, 0, 1, 1};
  expectSorting({2, 0, 0, 2, 2, 1}, 3, 2, 4, 4,
                {0x01000000, 0x00000001, S, S,             // expert 0 (local 0)
                 0x00000000, 0x01000001, 0x00000002, S,    // expert 2 (local 1)
                 S, S, S, S, S, S, S, S, S, S, S, S},      // tail
                {0, 1, -1, -1, -1}, 8, &mask);
  const std::vector<float> weights = eighths(3, 2);
  Result<MoeSorting> got = sortOf({2, 0, 0, 2, 2, 1}, weights, 3, 2, 4, 4, &mask);
  ASSERT_TRUE(got.ok()) << got.error();
  EXPECT_EQ(got.value().sortedWeights,
            (std::vector<float>{0.25f, 0.375f, 0, 0, 0.125f, 0.5f, 0.625f, 0, 0, 0, 0, 0, 0, 0,
                                0, 0, 0, 0, 0, 0}));
}

// Any nonzero mask entry marks a local expert (AITER tests `mask[e] == 0`
// for a skip); a mask that keeps nothing sorts nothing: num_valid_ids is
// [0, M], every id the sentinel, every block -1, every weight 0.
TEST(MoeSorting, HandMadeMaskValues) {
  const int32_t S = 0x02000003;
  const std::vector<int32_t> sevens = {7, 0, -1, 1}; // same as [1, 0, 1, 1]
  expectSorting({2, 0, 0, 2, 2, 1}, 3, 2, 4, 4,
                {0x01000000, 0x00000001, S, S, 0x00000000, 0x01000001, 0x00000002, S,
                 S, S, S, S, S, S, S, S, S, S, S, S},
                {0, 1, -1, -1, -1}, 8, &sevens);
  const std::vector<int32_t> none = {0, 0, 0, 0};
  expectSorting({2, 0, 0, 2, 2, 1}, 3, 2, 4, 4, std::vector<int32_t>(20, S),
                std::vector<int32_t>(5, -1), 0, &none);
  // Masking only experts that get nothing changes the ids that follow them:
  // mask [1, 1, 1, 0] leaves HandMadeWithEmptyExpert's arrays as they are,
  // mask [0, 1, 1, 1] drops expert 0 and shifts experts 1, 2 to 0, 1.
  const std::vector<int32_t> lastOff = {1, 1, 1, 0};
  expectSorting({2, 0, 0, 2, 2, 1}, 3, 2, 4, 4,
                {0x01000000, 0x00000001, S, S, 0x01000002, S, S, S,
                 0x00000000, 0x01000001, 0x00000002, S, S, S, S, S, S, S, S, S},
                {0, 1, 2, -1, -1}, 12, &lastOff);
  const std::vector<int32_t> firstOff = {0, 1, 1, 1};
  expectSorting({2, 0, 0, 2, 2, 1}, 3, 2, 4, 4,
                {0x01000002, S, S, S, 0x00000000, 0x01000001, 0x00000002, S,
                 S, S, S, S, S, S, S, S, S, S, S, S},
                {0, 1, -1, -1, -1}, 8, &firstOff);
}

// A token naming one expert in two slots (AITER's reference accepts it:
// torch.where yields both, in slot order). M=2, topk=2, E=3, block=2:
// token 0 -> [1, 1], token 1 -> [0, 1]. Sentinel 0x02000002, capacity
// 4 + 6 - 2 = 8, 4 blocks. Expert 0: t1s0 + pad; expert 1: t0s0, t0s1,
// t1s1 + pad (two blocks).
TEST(MoeSorting, HandMadeDuplicateSlots) {
  const int32_t S = 0x02000002;
  expectSorting({1, 1, 0, 1}, 2, 2, 3, 2,
                {0x00000001, S, 0x00000000, 0x01000000, 0x01000001, S, S, S}, {0, 1, 1, -1}, 6);
}

// block = 16, the smallest block the spec allows: M=1, topk=2, E=2. Capacity
// 2 + 32 - 2 = 32, two blocks; one entry per expert, each padded to 16.
TEST(MoeSorting, HandMadeBlock16) {
  const int32_t S = 0x02000001;
  std::vector<int32_t> want(32, S);
  want[0] = 0x01000000; // expert 0: slot 1
  want[16] = 0x00000000; // expert 1: slot 0
  expectSorting({1, 0}, 1, 2, 2, 16, want, {0, 1}, 32);
}

// Every token goes to the same experts: M=5, topk=3, E=4, block=2, each row
// [3, 1, 0]. Expert 3 gets slot 0, expert 1 slot 1, expert 0 slot 2 of every
// token; expert 2 nothing. 5 pairs pad to 6 per expert. Sentinel
// (3 << 24) | 5 = 0x03000005, capacity 15 + 8 - 3 = 20, 10 blocks.
TEST(MoeSorting, HandMadeAllTokensSameExperts) {
  const int32_t S = 0x03000005;
  expectSorting({3, 1, 0, 3, 1, 0, 3, 1, 0, 3, 1, 0, 3, 1, 0}, 5, 3, 4, 2,
                {0x02000000, 0x02000001, 0x02000002, 0x02000003, 0x02000004, S,    // expert 0
                 0x01000000, 0x01000001, 0x01000002, 0x01000003, 0x01000004, S,    // expert 1
                 0x00000000, 0x00000001, 0x00000002, 0x00000003, 0x00000004, S,    // expert 3
                 S, S},                                                            // tail
                {0, 0, 0, 1, 1, 1, 3, 3, 3, -1}, 18);
}

// Capacity not a multiple of the block: M=2, topk=1, E=2, block=4 gives
// capacity 2 + 8 - 1 = 9 and ceil(9 / 4) = 3 blocks; the last block of
// sortedIds is partial. Both tokens go to expert 1; sentinel 0x01000002.
TEST(MoeSorting, HandMadePartialLastBlock) {
  const int32_t S = 0x01000002;
  expectSorting({1, 1}, 2, 1, 2, 4, {0, 1, S, S, S, S, S, S, S}, {1, -1, -1}, 4);
}

// The capacity bound is tight when topk == E and every expert gets 1 (mod
// block) pairs: M=1, topk=E=3, block=4 pads 3 pairs to 12 = 1*3 + 3*4 - 3.
// Token 0 routes to [1, 2, 0]; sentinel 0x03000001.
TEST(MoeSorting, HandMadeFillsCapacityExactly) {
  const int32_t S = 0x03000001;
  expectSorting({1, 2, 0}, 1, 3, 3, 4,
                {0x02000000, S, S, S, 0x00000000, S, S, S, 0x01000000, S, S, S}, {0, 1, 2}, 12);
}

// block = 1: no padding at all; the tail is E*1 - topk = 1 entry.
// M=2, topk=2, E=3: token 0 -> [2, 1], token 1 -> [1, 0]. Sentinel 0x02000002.
TEST(MoeSorting, HandMadeBlockOne) {
  const int32_t S = 0x02000002;
  expectSorting({2, 1, 1, 0}, 2, 2, 3, 1, {0x01000001, 0x01000000, 0x00000001, 0x00000000, S},
                {0, 1, 1, 2, -1}, 4);
}

/// An oracle shaped like AITER's run_torch_moe_sorting (op_tests/
/// test_moe_sorting.py): for each expert, skip it if masked (counting the
/// skips), else scan the routing in (token, slot) order and append the
/// matches with their weights; blocks are labelled expert - skips.
MoeSorting naiveSort(const std::vector<int32_t> &ids, const std::vector<float> &weights, int m,
                     int topk, int experts, int block, const std::vector<int32_t> *mask) {
  MoeSorting out;
  int32_t sentinel = (topk << 24) | m;
  size_t capacity = static_cast<size_t>(m) * topk + static_cast<size_t>(experts) * block - topk;
  out.sortedIds.assign(capacity, sentinel);
  out.sortedWeights.assign(capacity, 0.0f);
  out.sortedExpertIds.assign((capacity + block - 1) / block, -1);
  size_t begin = 0, blockBegin = 0;
  int skipped = 0;
  for (int e = 0; e < experts; ++e) {
    if (mask && (*mask)[e] == 0) {
      ++skipped;
      continue;
    }
    size_t n = 0;
    for (int t = 0; t < m; ++t)
      for (int s = 0; s < topk; ++s)
        if (ids[static_cast<size_t>(t) * topk + s] == e) {
          out.sortedWeights[begin + n] = weights[static_cast<size_t>(t) * topk + s];
          out.sortedIds[begin + n++] = (s << 24) | t;
        }
    size_t blocks = (n + block - 1) / block;
    for (size_t b = 0; b < blocks; ++b)
      out.sortedExpertIds[blockBegin + b] = e - skipped;
    begin += blocks * block;
    blockBegin += blocks;
  }
  out.numValidIds[0] = static_cast<int32_t>(begin);
  out.numValidIds[1] = m;
  return out;
}

TEST(MoeSorting, RandomRoutingsHoldTheFormat) {
  std::mt19937_64 rng(testing::testSeed("MoeSorting.RandomRoutingsHoldTheFormat"));
  for (int iter = 0; iter < 400; ++iter) {
    int experts = std::uniform_int_distribution<int>(1, 64)(rng);
    int topk = std::uniform_int_distribution<int>(1, std::min(experts, 12))(rng);
    // Now and then push topk to its limits and the experts to few.
    if (iter % 50 == 0) {
      experts = std::uniform_int_distribution<int>(127, 160)(rng);
      topk = 127;
    }
    int m = std::uniform_int_distribution<int>(1, 300)(rng);
    int block = std::uniform_int_distribution<int>(1, 64)(rng);
    // Skew the routing towards a subset of experts so empty experts and
    // multi-block groups both occur.
    int hot = std::uniform_int_distribution<int>(topk, experts)(rng);
    std::vector<int32_t> experts01(experts);
    std::iota(experts01.begin(), experts01.end(), 0);
    std::shuffle(experts01.begin(), experts01.end(), rng);
    std::vector<int32_t> ids(static_cast<size_t>(m) * topk);
    for (int t = 0; t < m; ++t) {
      std::vector<int32_t> pool(experts01.begin(), experts01.begin() + hot);
      std::shuffle(pool.begin(), pool.end(), rng);
      std::copy(pool.begin(), pool.begin() + topk, ids.begin() + static_cast<size_t>(t) * topk);
    }
    // Every fourth routing lets a token repeat an expert (AITER accepts
    // that), every third sorts under a random expert mask.
    const bool duplicates = iter % 4 == 1;
    if (duplicates)
      for (int32_t &id : ids)
        if (rng() % 8 == 0)
          id = experts01[rng() % hot];
    std::vector<int32_t> maskValues(experts, 1);
    const bool masked = iter % 3 == 2;
    if (masked)
      for (int32_t &local : maskValues)
        local = int32_t(rng() % 2);
    const std::vector<int32_t> *mask = masked ? &maskValues : nullptr;
    std::vector<float> weights(ids.size());
    for (float &w : weights)
      w = std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
    SCOPED_TRACE("M " + std::to_string(m) + ", topk " + std::to_string(topk) + ", E " +
                 std::to_string(experts) + ", block " + std::to_string(block) +
                 (duplicates ? ", duplicates" : "") + (masked ? ", masked" : ""));

    Result<MoeSorting> got = sortOf(ids, weights, m, topk, experts, block, mask);
    ASSERT_TRUE(got.ok()) << got.error();
    const MoeSorting &r = got.value();
    const size_t capacity = moeSortedCapacity(m, topk, experts, block);
    const int32_t sentinel = moeSentinel(m, topk);

    ASSERT_EQ(r.sortedIds.size(), capacity);
    ASSERT_EQ(r.sortedExpertIds.size(), (capacity + block - 1) / block);
    ASSERT_EQ(r.sortedWeights.size(), capacity);
    ASSERT_GE(r.numValid(), 0);
    ASSERT_EQ(r.numValid() % block, 0);
    ASSERT_LE(static_cast<size_t>(r.numValid()), capacity);
    ASSERT_EQ(r.numValidIds[1], m);
    auto local = [&](int32_t e) { return !mask || (*mask)[e] != 0; };
    std::vector<int32_t> localId(experts);
    for (int e = 0, n = 0; e < experts; ++e)
      localId[e] = local(e) ? n++ : -1;

    // Every pair of a local expert exactly once (others never), inside
    // numValid, with its weight, in a block labelled with its expert's local
    // id; groups ascending by expert, then (token, slot).
    std::vector<int> hits(static_cast<size_t>(m) * topk, 0);
    int32_t prevExpert = -1, prevToken = -1, prevSlot = -1;
    for (size_t i = 0; i < capacity; ++i) {
      int32_t v = r.sortedIds[i];
      if (v == sentinel)
        continue;
      ASSERT_LT(i, static_cast<size_t>(r.numValid())) << "routed entry in the tail at " << i;
      int32_t token = v & 0xFFFFFF, slot = v >> 24;
      ASSERT_GE(v, 0);
      ASSERT_LT(token, m) << "at " << i;
      ASSERT_LT(slot, topk) << "at " << i;
      const size_t pair = static_cast<size_t>(token) * topk + slot;
      int32_t e = ids[pair];
      ASSERT_TRUE(local(e)) << "entry of masked expert " << e << " at " << i;
      ASSERT_EQ(r.sortedExpertIds[i / block], localId[e]) << "at " << i;
      ASSERT_EQ(r.sortedWeights[i], weights[pair]) << "at " << i;
      ASSERT_TRUE(e > prevExpert ||
                  (e == prevExpert && (token > prevToken || (token == prevToken && slot > prevSlot))))
          << "order broken at " << i;
      prevExpert = e;
      prevToken = token;
      prevSlot = slot;
      ++hits[pair];
    }
    for (size_t i = 0; i < capacity; ++i) {
      if (r.sortedIds[i] == sentinel) {
        ASSERT_EQ(r.sortedWeights[i], 0.0f) << "padding weight at " << i;
      }
    }
    for (size_t p = 0; p < hits.size(); ++p)
      ASSERT_EQ(hits[p], local(ids[p]) ? 1 : 0)
          << "pair (token " << p / topk << ", slot " << p % topk << ")";

    // Blocks: each valid block holds at least one routed entry (no empty
    // blocks, so no empty expert owns one); padding only at a group's end;
    // the rest is -1.
    size_t validBlocks = static_cast<size_t>(r.numValid()) / block;
    for (size_t b = 0; b < r.sortedExpertIds.size(); ++b) {
      if (b >= validBlocks) {
        ASSERT_EQ(r.sortedExpertIds[b], -1) << "block " << b;
        continue;
      }
      ASSERT_NE(r.sortedIds[b * block], sentinel) << "block " << b << " starts with padding";
      bool padded = false;
      for (size_t i = b * block; i < (b + 1) * block; ++i) {
        if (r.sortedIds[i] == sentinel) {
          padded = true;
        } else {
          ASSERT_FALSE(padded) << "routed entry after padding at " << i;
        }
      }
      if (padded && b + 1 < validBlocks) {
        ASSERT_NE(r.sortedExpertIds[b + 1], r.sortedExpertIds[b])
            << "padding inside a group at block " << b;
      }
    }

    MoeSorting oracle = naiveSort(ids, weights, m, topk, experts, block, mask);
    ASSERT_EQ(r.sortedIds, oracle.sortedIds);
    ASSERT_EQ(r.sortedWeights, oracle.sortedWeights);
    ASSERT_EQ(r.sortedExpertIds, oracle.sortedExpertIds);
    ASSERT_EQ(r.numValidIds[0], oracle.numValidIds[0]);
    ASSERT_EQ(r.numValidIds[1], oracle.numValidIds[1]);
  }
}

struct Rejection {
  std::vector<int32_t> ids;
  int m, topk, experts, block;
  std::vector<std::string> needles;
};

TEST(MoeSorting, RejectsBadRoutings) {
  const Rejection cases[] = {
      {{0, 1, 2, 4}, 2, 2, 4, 4, {"topk_ids[token 1][slot 1] = 4", "outside [0, E = 4)"}},
      {{0, 1, -1, 2}, 2, 2, 4, 4, {"topk_ids[token 1][slot 0] = -1", "outside [0, E = 4)"}},
      {{0}, 0, 1, 4, 4, {"M (tokens) = 0", "[1, 2^24)"}},
      {{0}, -3, 1, 4, 4, {"M (tokens) = -3"}},
      {{0}, 1 << 24, 1, 4, 4, {"M (tokens) = 16777216", "[1, 2^24)"}},
      {{0}, 1, 0, 4, 4, {"topk = 0", "positive"}},
      {{0}, 1, -2, 4, 4, {"topk = -2", "positive"}},
      {{0, 1, 2, 3, 0}, 1, 5, 4, 4, {"topk = 5 exceeds E (experts) = 4", "topk <= E"}},
      {{0}, 1, 128, 200, 4, {"topk = 128", "< 128"}},
      {{0}, 1, 1, 0, 4, {"E (experts) = 0", "positive"}},
      {{0}, 1, 1, -1, 4, {"E (experts) = -1", "positive"}},
      {{0}, 1, 1, 4, 0, {"block = 0", "positive"}},
      {{0}, 1, 1, 4, -4, {"block = -4", "positive"}},
      {{0}, 1, 1, 1 << 20, 1 << 12, {"capacity", "exceeds 2^31 - 1"}},
  };
  for (const Rejection &t : cases) {
    SCOPED_TRACE("M " + std::to_string(t.m) + ", topk " + std::to_string(t.topk) + ", E " +
                 std::to_string(t.experts) + ", block " + std::to_string(t.block));
    // Only a routing that passed the shape checks is ever read, and those
    // cases supply all M * topk ids.
    std::vector<float> weights(t.ids.size(), 1.0f);
    Result<MoeSorting> got = sortOf(t.ids, weights, t.m, t.topk, t.experts, t.block);
    ASSERT_FALSE(got.ok());
    EXPECT_TRUE(contains(got.error(), "moeSort: ")) << got.error();
    for (const std::string &needle : t.needles)
      EXPECT_TRUE(contains(got.error(), needle)) << got.error() << " lacks " << needle;
  }
  MoeRouting routing;
  routing.m = routing.topk = 1;
  routing.experts = routing.block = 4;
  Result<MoeSorting> null = moeSort(routing);
  ASSERT_FALSE(null.ok());
  EXPECT_TRUE(contains(null.error(), "topkIds is null")) << null.error();
  const int32_t id = 0;
  routing.topkIds = &id;
  null = moeSort(routing);
  ASSERT_FALSE(null.ok());
  EXPECT_TRUE(contains(null.error(), "topkWeights is null")) << null.error();
  // A masked expert's id is still checked against E.
  const std::vector<int32_t> mask = {1, 0, 1, 1};
  Result<MoeSorting> masked = sortOf({0, 9}, {1.0f, 1.0f}, 1, 2, 4, 4, &mask);
  ASSERT_FALSE(masked.ok());
  EXPECT_TRUE(contains(masked.error(), "topk_ids[token 0][slot 1] = 9")) << masked.error();
}

} // namespace
} // namespace mxf
