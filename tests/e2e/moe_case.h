//===- moe_case.h - One rotate_quant_moe run: routing, launch, checks -*- C++ -*-===//
//
// What the MoE suites share: the routings the issue names (uniform, skewed,
// every token to the same experts, one token, more pairs than E*block,
// duplicate experts in a token's slots), the launch on the emu device with
// poisoned outputs and exactly sized buffers, and the comparison of every
// output byte with numerics' rotateQuantMoe: q in input-row order (strided
// gaps still poison), the written prefix of s (the rest still poison), and
// sorted_ids, sorted_weights, sorted_expert_ids and num_valid_ids whole.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_E2E_MOE_CASE_H
#define MXFORGE_TESTS_E2E_MOE_CASE_H

#include "abi/code_object.h"
#include "emulator/emulator.h"
#include "numerics/reference.h"
#include "support/status.h"
#include "runtime/spec_launcher.h"
#include "spec/kernel_spec.h"
#include "tests/e2e/e2e_runner.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace mxf::e2e {

enum class MoeRouting : uint8_t {
  Uniform,     // topk distinct experts per token, uniformly
  Skewed,      // distinct experts from the lower half only: half get nothing
  SameExperts, // every token routed to one fixed set of topk experts
  OneToken,    // m = 1
  Overflow,    // m * topk > E * block (when m <= 256 allows it)
  Duplicates,  // a token names an expert twice: each slot repeats an earlier one half the time
};
constexpr int kNumMoeRoutings = 6;
const char *moeRoutingName(MoeRouting routing);

struct MoeInputs {
  MoeRouting routing = MoeRouting::Uniform;
  int m = 1;
  std::vector<uint16_t> x;        // dense rows: [m, K] (stage 1) or [m*topk, K] (stage 2)
  std::vector<uint16_t> r;        // learned rotation, if any
  std::vector<int32_t> topkIds;   // [m, topk]
  std::vector<float> topkWeights; // [m, topk]
  std::vector<int32_t> expertMask; // [E] when emask=1
  int64_t xStride = 0, qStride = 0; // stage 1 only; 0 = dense
  uint32_t seed = 0;                // round=sr: the seed operand
  /// select=flag|mask: the launch's `rotate` or `layer` value, and the mask.
  std::optional<int64_t> selection;
  std::vector<int32_t> layerMask; // [layers] with select=mask
};

/// Draws the inputs of run `routing` of `spec` (m too, unless forcedM > 0).
MoeInputs drawMoeInputs(const KernelSpec &spec, MoeRouting routing, std::mt19937_64 &rng,
                        int forcedM = 0);

/// The reference of `inputs` (its ids as given).
Result<MoeQuantized> moeReference(const KernelSpec &spec, const MoeInputs &inputs);

struct MoeRun {
  runtime::SpecLaunch launch;
  double ms = 0;
};

/// Launches `code` on a fresh emu device (`deviceOptions`, with `order` on
/// top), outputs poisoned (or `initial` contents, to replay into used
/// buffers).
Result<MoeRun> launchMoe(const CodeObject &code, const KernelSpec &spec, const MoeInputs &inputs,
                         emu::WorkgroupOrder order, uint64_t orderSeed, uint8_t poison,
                         const runtime::HostArrays &initial = {},
                         const runtime::EmuDeviceOptions &deviceOptions = caseDeviceOptions());

/// Every mismatch of `run` against `expected`, described ("" when none).
/// Bytes the kernel must not write must still hold `poison` (ignored when
/// `initialGiven`: then they hold the previous launch's bytes).
std::string compareMoe(const KernelSpec &spec, const MoeInputs &inputs,
                       const MoeQuantized &expected, const runtime::SpecLaunch &run,
                       uint8_t poison, bool initialGiven = false);

} // namespace mxf::e2e

#endif // MXFORGE_TESTS_E2E_MOE_CASE_H
