//===- e2e_tier.h - How much of each matrix case a run executes -*- C++ -*-===//
//
// The README's test command must stay under ten minutes on two cores, and
// the four e2e matrices alone took 16 of them (950 s of test time). So a run
// is one of two tiers (MXFORGE_E2E_TIER):
//   sample (the default; the README's command and CI): every spec of every
//     matrix is compiled and run and every byte checked, but the expensive
//     extras of a case are drawn from the case's printed seed: the
//     bucket-sized run of a rotate_quant spec (half the specs with a bucket
//     above 16), the third workgroup order of a MoE or quant_weight spec
//     (reverse or shuffled: one of them, forward always), and the second
//     order of a GEMM spec (half the specs), and m up to the bucket for a
//     MoE spec above bucket 32 (one in four; the others at m <= 32); GEMM
//     weights above 2^22 elements are checked on sampled column workgroups
//     (2^24 in the full tier). Each run draws anew, so CI
//     covers the whole matrix over a few runs, and a failure replays with
//     the seed it printed.
//   full (`scripts/test.sh --full`): every row count and every order of
//     every spec, MoE m up to the bucket, GEMM weights whole up to 2^24.
// Each case prints what it ran and what the sample left out.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_E2E_E2E_TIER_H
#define MXFORGE_TESTS_E2E_E2E_TIER_H

#include "emulator/emulator.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace mxf::e2e {

/// Whether this run executes every extra of every case (MXFORGE_E2E_TIER=full).
inline bool fullTier() {
  const char *tier = std::getenv("MXFORGE_E2E_TIER");
  return tier && std::strcmp(tier, "full") == 0;
}

/// Whether a case whose seed is `seed` runs the extra named by `salt` in
/// this tier: always in the full tier; in the sample tier one case in
/// `every`, drawn from the seed (splitmix64, so nearby seeds decide apart).
inline bool extraRuns(uint64_t seed, uint64_t salt, unsigned every) {
  if (fullTier() || every <= 1)
    return true;
  uint64_t z = seed + salt * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z % every == 0;
}

/// "sample" or "full", for the cases' lines.
inline const char *tierName() { return fullTier() ? "full" : "sample"; }

/// The case's line for an extra the draw left out ("m = 256 (the bucket)").
inline void reportLeftOut(const std::string &what) {
  std::printf("[ sampled  ] %s left out by the %s tier's draw from the seed; "
              "MXFORGE_E2E_TIER=full runs it\n",
              what.c_str(), tierName());
}

/// The workgroup orders a case runs its launch in, each with its own poison
/// (none is 0x7F, the a4w4 padding byte), so that bytes left alone in one
/// order cannot match another's by accident.
struct CaseOrder {
  emu::WorkgroupOrder order;
  const char *name; // as workgroupOrderRuns takes it
  uint8_t poison;
};
inline constexpr CaseOrder kCaseOrders[] = {{emu::WorkgroupOrder::Forward, "forward", 0xA5},
                                            {emu::WorkgroupOrder::Reverse, "reverse", 0x5A},
                                            {emu::WorkgroupOrder::Shuffled, "shuffled", 0xC3}};

/// Whether a case with forward, reverse and shuffled workgroup orders runs
/// `order` ("forward", "reverse" or "shuffled"): forward always, then one of
/// the other two drawn from the seed (all three in the full tier). Reports
/// the one left out.
inline bool workgroupOrderRuns(uint64_t seed, const char *order) {
  if (fullTier() || std::strcmp(order, "forward") == 0)
    return true;
  const bool reverseRuns = extraRuns(seed, /*salt=*/2, 2);
  if ((std::strcmp(order, "reverse") == 0) == reverseRuns)
    return true;
  reportLeftOut(std::string("the ") + order + " order");
  return false;
}

} // namespace mxf::e2e

#endif // MXFORGE_TESTS_E2E_E2E_TIER_H
