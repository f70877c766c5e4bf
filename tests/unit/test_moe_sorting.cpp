//===- test_moe_sorting.cpp - AITER's MoE token sorting -------------------===//
//
// Hand-made routings with every output array written out, seeded random
// routings checked both against properties of the format and against an
// oracle written like AITER's naive PyTorch one (scan the routing once per
// expert), and every rejection with its message.
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

/// Runs moeSort and checks every field against the written-out arrays.
void expectSorting(const std::vector<int32_t> &topkIds, int m, int topk, int experts, int block,
                   const std::vector<int32_t> &sortedIds,
                   const std::vector<int32_t> &sortedExpertIds, int32_t numValid) {
  ASSERT_EQ(topkIds.size(), static_cast<size_t>(m) * topk);
  Result<MoeSorting> got = moeSort(topkIds.data(), m, topk, experts, block);
  ASSERT_TRUE(got.ok()) << got.error();
  EXPECT_EQ(moeSortedCapacity(m, topk, experts, block), sortedIds.size());
  EXPECT_EQ(got.value().sortedIds, sortedIds);
  EXPECT_EQ(got.value().sortedExpertIds, sortedExpertIds);
  EXPECT_EQ(got.value().numValid, numValid);
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

/// An oracle shaped like AITER's test_moe_sorting_native: for each expert,
/// scan the routing in (token, slot) order and append the matches.
MoeSorting naiveSort(const std::vector<int32_t> &ids, int m, int topk, int experts, int block) {
  MoeSorting out;
  int32_t sentinel = (topk << 24) | m;
  size_t capacity = static_cast<size_t>(m) * topk + static_cast<size_t>(experts) * block - topk;
  out.sortedIds.assign(capacity, sentinel);
  out.sortedExpertIds.assign((capacity + block - 1) / block, -1);
  size_t begin = 0, blockBegin = 0;
  for (int e = 0; e < experts; ++e) {
    size_t n = 0;
    for (int t = 0; t < m; ++t)
      for (int s = 0; s < topk; ++s)
        if (ids[static_cast<size_t>(t) * topk + s] == e)
          out.sortedIds[begin + n++] = (s << 24) | t;
    size_t blocks = (n + block - 1) / block;
    for (size_t b = 0; b < blocks; ++b)
      out.sortedExpertIds[blockBegin + b] = e;
    begin += blocks * block;
    blockBegin += blocks;
  }
  out.numValid = static_cast<int32_t>(begin);
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
    SCOPED_TRACE("M " + std::to_string(m) + ", topk " + std::to_string(topk) + ", E " +
                 std::to_string(experts) + ", block " + std::to_string(block));

    Result<MoeSorting> got = moeSort(ids.data(), m, topk, experts, block);
    ASSERT_TRUE(got.ok()) << got.error();
    const MoeSorting &r = got.value();
    const size_t capacity = moeSortedCapacity(m, topk, experts, block);
    const int32_t sentinel = moeSentinel(m, topk);

    ASSERT_EQ(r.sortedIds.size(), capacity);
    ASSERT_EQ(r.sortedExpertIds.size(), (capacity + block - 1) / block);
    ASSERT_GE(r.numValid, 0);
    ASSERT_EQ(r.numValid % block, 0);
    ASSERT_LE(static_cast<size_t>(r.numValid), capacity);

    // Every (token, slot) pair exactly once, inside numValid, in a block
    // labelled with its expert; groups ascending by expert, then token.
    std::vector<int> hits(static_cast<size_t>(m) * topk, 0);
    int32_t prevExpert = -1, prevToken = -1;
    for (size_t i = 0; i < capacity; ++i) {
      int32_t v = r.sortedIds[i];
      if (v == sentinel)
        continue;
      ASSERT_LT(i, static_cast<size_t>(r.numValid)) << "routed entry in the tail at " << i;
      int32_t token = v & 0xFFFFFF, slot = v >> 24;
      ASSERT_GE(v, 0);
      ASSERT_LT(token, m) << "at " << i;
      ASSERT_LT(slot, topk) << "at " << i;
      int32_t e = ids[static_cast<size_t>(token) * topk + slot];
      ASSERT_EQ(r.sortedExpertIds[i / block], e) << "at " << i;
      ASSERT_TRUE(e > prevExpert || (e == prevExpert && token > prevToken))
          << "order broken at " << i;
      prevExpert = e;
      prevToken = token;
      ++hits[static_cast<size_t>(token) * topk + slot];
    }
    for (size_t p = 0; p < hits.size(); ++p)
      ASSERT_EQ(hits[p], 1) << "pair (token " << p / topk << ", slot " << p % topk << ")";

    // Blocks: each valid block holds at least one routed entry (no empty
    // blocks, so no empty expert owns one); padding only at a group's end;
    // the rest is -1.
    size_t validBlocks = static_cast<size_t>(r.numValid) / block;
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

    MoeSorting oracle = naiveSort(ids, m, topk, experts, block);
    ASSERT_EQ(r.sortedIds, oracle.sortedIds);
    ASSERT_EQ(r.sortedExpertIds, oracle.sortedExpertIds);
    ASSERT_EQ(r.numValid, oracle.numValid);
  }
}

struct Rejection {
  std::vector<int32_t> ids;
  int m, topk, experts, block;
  std::vector<std::string> needles;
};

TEST(MoeSorting, RejectsBadRoutings) {
  const Rejection cases[] = {
      {{0, 1, 2, 4}, 2, 2, 4, 4, {"topkIds[token 1][slot 1] = 4", "outside [0, E = 4)"}},
      {{0, 1, -1, 2}, 2, 2, 4, 4, {"topkIds[token 1][slot 0] = -1", "outside [0, E = 4)"}},
      {{0, 1, 3, 2, 1, 0, 3, 1}, 2, 4, 4, 4, {"token 1 routes to expert 1 twice",
                                              "slot 0 and slot 3", "distinct"}},
      {{2, 2}, 1, 2, 4, 4, {"token 0 routes to expert 2 twice", "slot 0 and slot 1"}},
      {{0}, 0, 1, 4, 4, {"M (tokens) = 0", "[1, 2^24)"}},
      {{0}, -3, 1, 4, 4, {"M (tokens) = -3"}},
      {{0}, 1 << 24, 1, 4, 4, {"M (tokens) = 16777216", "[1, 2^24)"}},
      {{0}, 1, 0, 4, 4, {"topk = 0", "positive"}},
      {{0}, 1, -2, 4, 4, {"topk = -2", "positive"}},
      {{0, 1, 2, 3, 0}, 1, 5, 4, 4, {"topk = 5 exceeds E (experts) = 4", "distinct"}},
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
    Result<MoeSorting> got = moeSort(t.ids.data(), t.m, t.topk, t.experts, t.block);
    ASSERT_FALSE(got.ok());
    EXPECT_TRUE(contains(got.error(), "moeSort: ")) << got.error();
    for (const std::string &needle : t.needles)
      EXPECT_TRUE(contains(got.error(), needle)) << got.error() << " lacks " << needle;
  }
  Result<MoeSorting> null = moeSort(nullptr, 1, 1, 4, 4);
  ASSERT_FALSE(null.ok());
  EXPECT_TRUE(contains(null.error(), "topkIds is null")) << null.error();
}

} // namespace
} // namespace mxf
