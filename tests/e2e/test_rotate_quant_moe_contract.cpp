//===- test_rotate_quant_moe_contract.cpp - What the MoE kernel promises ---===//
//
// Beyond the matrix: ids outside [0, E) fed straight to the kernel are
// dropped without a write out of bounds (the emulator checks every access);
// a second launch into the first one's buffers, with another routing and no
// reset, is exact (a captured graph replays as is); m above the bucket and
// specs beyond the LDS budget are refused; and negative controls show that
// the comparison catches a wrong routing and a single changed byte.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/moe_case.h"
#include "tests/unit/test_seed.h"

#include "compiler/compiler.h"
#include "templates/family_rules.h"

#include <gtest/gtest.h>

#include <climits>

namespace mxf::e2e {
namespace {

KernelSpec moeSpec(int experts, int topk, int block, int emask) {
  KernelSpec spec;
  spec.op = KernelOp::RotateQuantMoe;
  spec.M = 256;
  spec.K = 512;
  spec.RS = 32;
  spec.rot = RotationKind::Hadamard;
  spec.scale = ScaleRule::Rceil;
  spec.layout = ScaleLayout::A4W4Shuffle;
  spec.E = experts;
  spec.topk = topk;
  spec.block = block;
  spec.emask = emask;
  EXPECT_TRUE(validateSpec(spec).ok()) << validateSpec(spec).message();
  return spec;
}

uint64_t seedOf() {
  const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
  return testing::testSeed((std::string(info->test_suite_name()) + "." + info->name()).c_str());
}

TEST(RotateQuantMoeContract, IdsOutsideTheExpertsAreDroppedWithoutStrayWrites) {
  const uint64_t seed = seedOf();
  std::mt19937_64 rng(seed);
  const KernelSpec spec = moeSpec(8, 2, 16, 1);
  Result<CodeObject> code = compileSpec(spec, CompileOptions());
  ASSERT_TRUE(code.ok()) << code.error();
  MoeInputs inputs = drawMoeInputs(spec, MoeRouting::Uniform, rng, 40);
  // Expert 3 is masked: the reference drops its pairs, as the kernel must
  // drop ids outside [0, 8).
  std::fill(inputs.expertMask.begin(), inputs.expertMask.end(), 1);
  inputs.expertMask[3] = 0;
  MoeInputs asReferenceSees = inputs;
  const int32_t malformed[] = {-1, 8, 9, 255, 1 << 30, INT_MIN, INT_MAX, -8};
  for (size_t i = 0; i < inputs.topkIds.size(); i += 3) {
    inputs.topkIds[i] = malformed[(i / 3) % std::size(malformed)];
    asReferenceSees.topkIds[i] = 3;
  }
  Result<MoeQuantized> expected = moeReference(spec, asReferenceSees);
  ASSERT_TRUE(expected.ok()) << expected.error();
  Result<MoeRun> run = launchMoe(code.value(), spec, inputs, emu::WorkgroupOrder::Forward, seed,
                                 0xA5);
  ASSERT_TRUE(run.ok()) << "the emulator caught an access: " << run.error();
  EXPECT_EQ(compareMoe(spec, inputs, expected.value(), run.value().launch, 0xA5), "");
  // And the reference refuses them: the host checks before a launch.
  EXPECT_FALSE(moeReference(spec, inputs).ok());
}

TEST(RotateQuantMoeContract, ATokenNamingOneExpertTwiceGetsARowPerSlot) {
  // Slot 1 repeats slot 0 in every token, and the later slots repeat one of
  // them at random: each entry's sorted row counts the tile's earlier entries
  // of its expert, and for a tile's entry 1 only the duplicate-rank loop's
  // epilogue does (a mutant that skipped that lane's EXEC restore passed every
  // matrix whose tokens named distinct experts; docs/verification.md).
  const uint64_t seed = seedOf();
  std::mt19937_64 rng(seed);
  const KernelSpec spec = moeSpec(256, 4, 32, 0);
  Result<CodeObject> code = compileSpec(spec, CompileOptions());
  ASSERT_TRUE(code.ok()) << code.error();
  MoeInputs inputs = drawMoeInputs(spec, MoeRouting::Uniform, rng, 40);
  for (size_t token = 0; token < size_t(inputs.m); ++token) {
    int32_t *row = inputs.topkIds.data() + token * size_t(spec.topk);
    row[1] = row[0];
    for (int slot = 2; slot < spec.topk; ++slot)
      if (rng() % 2)
        row[slot] = row[rng() % uint64_t(slot)];
  }
  Result<MoeQuantized> expected = moeReference(spec, inputs);
  ASSERT_TRUE(expected.ok()) << expected.error();
  for (auto order : {emu::WorkgroupOrder::Forward, emu::WorkgroupOrder::Shuffled}) {
    Result<MoeRun> run = launchMoe(code.value(), spec, inputs, order, seed, 0xA5);
    ASSERT_TRUE(run.ok()) << run.error();
    EXPECT_EQ(compareMoe(spec, inputs, expected.value(), run.value().launch, 0xA5), "")
        << "seed " << seed;
  }
}

TEST(RotateQuantMoeContract, ASecondLaunchIntoUsedBuffersNeedsNoReset) {
  const uint64_t seed = seedOf();
  std::mt19937_64 rng(seed);
  KernelSpec spec = moeSpec(128, 8, 32, 0);
  spec.K = 2048;
  spec.RS = 128;
  Result<CodeObject> code = compileSpec(spec, CompileOptions());
  ASSERT_TRUE(code.ok()) << code.error();
  // The same m (the same buffer sizes), routings far apart: the first
  // skewed, the second to one set of experts, so that the first leaves
  // sorted rows, padding and blocks where the second has none.
  const MoeInputs first = drawMoeInputs(spec, MoeRouting::Skewed, rng, 96);
  MoeInputs second = drawMoeInputs(spec, MoeRouting::SameExperts, rng, 96);
  second.xStride = first.xStride; // the same buffers
  second.qStride = first.qStride;
  Result<MoeRun> used = launchMoe(code.value(), spec, first, emu::WorkgroupOrder::Forward, seed,
                                  0xA5);
  ASSERT_TRUE(used.ok()) << used.error();
  Result<MoeRun> replay = launchMoe(code.value(), spec, second, emu::WorkgroupOrder::Shuffled,
                                    seed, 0xA5, used.value().launch.outputs);
  ASSERT_TRUE(replay.ok()) << replay.error();
  Result<MoeQuantized> expected = moeReference(spec, second);
  ASSERT_TRUE(expected.ok()) << expected.error();
  EXPECT_EQ(compareMoe(spec, second, expected.value(), replay.value().launch, 0xA5,
                       /*initialGiven=*/true),
            "");
}

TEST(RotateQuantMoeContract, NegativeControlsAreCaught) {
  const uint64_t seed = seedOf();
  std::mt19937_64 rng(seed);
  const KernelSpec spec = moeSpec(128, 8, 32, 0);
  Result<CodeObject> code = compileSpec(spec, CompileOptions());
  ASSERT_TRUE(code.ok()) << code.error();
  const MoeInputs inputs = drawMoeInputs(spec, MoeRouting::Uniform, rng, 20);
  Result<MoeRun> run = launchMoe(code.value(), spec, inputs, emu::WorkgroupOrder::Forward, seed,
                                 0xA5);
  ASSERT_TRUE(run.ok()) << run.error();
  Result<MoeQuantized> expected = moeReference(spec, inputs);
  ASSERT_TRUE(expected.ok()) << expected.error();
  ASSERT_EQ(compareMoe(spec, inputs, expected.value(), run.value().launch, 0xA5), "");

  // Another routing of the same tokens: the sort must differ.
  MoeInputs rerouted = inputs;
  std::swap(rerouted.topkIds[0], rerouted.topkIds[rerouted.topkIds.size() - 1]);
  if (rerouted.topkIds == inputs.topkIds)
    rerouted.topkIds[0] = (rerouted.topkIds[0] + 1) % spec.E;
  Result<MoeQuantized> other = moeReference(spec, rerouted);
  if (other.ok()) { // a swap may repeat an expert in a row: still a routing
    EXPECT_NE(compareMoe(spec, inputs, other.value(), run.value().launch, 0xA5), "");
  }
  // One byte of every output changed, one at a time.
  for (const char *name : {"q", "s", "sorted_ids", "sorted_weights", "sorted_expert_ids",
                           "num_valid_ids"}) {
    runtime::SpecLaunch corrupted = run.value().launch;
    std::vector<uint8_t> &bytes = corrupted.outputs.at(name);
    bytes[rng() % (std::string(name) == "s" ? expected.value().scaleBytesWritten : bytes.size())] ^=
        0x10;
    EXPECT_NE(compareMoe(spec, inputs, expected.value(), corrupted, 0xA5), "") << name;
  }
  // A byte past the written scale rows that lost the poison.
  runtime::SpecLaunch stray = run.value().launch;
  stray.outputs.at("s").back() ^= 0xFF;
  EXPECT_NE(compareMoe(spec, inputs, expected.value(), stray, 0xA5), "");
}

TEST(RotateQuantMoeContract, RowsAboveTheBucketAreRefused) {
  const uint64_t seed = seedOf();
  std::mt19937_64 rng(seed);
  const KernelSpec spec = moeSpec(8, 2, 16, 0);
  Result<CodeObject> code = compileSpec(spec, CompileOptions());
  ASSERT_TRUE(code.ok()) << code.error();
  EXPECT_EQ(code.value().launch.maxRows, 256u);
  KernelSpec big = spec;
  big.M = 256;
  MoeInputs inputs = drawMoeInputs(big, MoeRouting::Uniform, rng, 256);
  // 257 tokens' worth of routing and x: the launch must refuse m = 257.
  inputs.m = 257;
  inputs.topkIds.resize(257 * 2, 1);
  inputs.topkWeights.resize(257 * 2, 0.5f);
  inputs.x.resize(257 * size_t(spec.K), 0);
  Result<MoeRun> run = launchMoe(code.value(), spec, inputs, emu::WorkgroupOrder::Forward, seed,
                                 0xA5);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("256"), std::string::npos) << run.error();
}

TEST(RotateQuantMoeContract, SpecsBeyondTheLdsBudgetAreRefusedByName) {
  KernelSpec spec = moeSpec(1024, 127, 16, 1);
  spec.K = 2048;
  spec.RS = 128;
  spec.rot = RotationKind::Learned;
  const Status refused = checkCompilable(spec);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("LDS"), std::string::npos) << refused.message();
  spec.rot = RotationKind::Hadamard; // no staged R: it fits
  EXPECT_TRUE(checkCompilable(spec).ok()) << checkCompilable(spec).message();
}

} // namespace
} // namespace mxf::e2e
