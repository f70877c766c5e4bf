//===- test_selective_gemm.cpp - rotate_quant_gemm with select=flag|mask ---===//
//
// The decode GEMM choosing its activation's rotation per launch (issue 31,
// selective rotation end to end): for each spec below, a launch that
// rotates and one that does not (the flag's value, or the layer's entry of
// a drawn mask), each with the reference runner's inputs (x, R, the mask,
// weights from quant_weight's reference) and y compared byte for byte with
// the reference of the path the selection took (numerics selectedSpec:
// the spec itself, or RS=0), with the workgroups forward and shuffled. The
// negative control: the rotating path's bytes differ from the other's.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_inputs.h"
#include "tests/e2e/e2e_runner.h"
#include "tests/e2e/reference_case.h"
#include "tests/support/parsed_spec.h"
#include "tests/unit/test_seed.h"

#include "compiler/compiler.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <iterator>

namespace mxf::e2e {
namespace {

using testing::parsed;

// Both formats (A4W4, W6A16), both weight layouts of each, every rotation
// kind the GEMM takes, flag and mask.
const char *const kSpecs[] = {
    "rotate_quant_gemm:K=512,N=64,RS=64,rot=hadamard,select=flag,M=8",
    "rotate_quant_gemm:K=1024,N=128,RS=128,rot=learned,select=mask,layers=4,M=16,"
    "layout=a4w4_shuffle,wlayout=preshuffle_16x16",
    "rotate_quant_gemm:K=512,N=96,RS=64,rot=learned_per_block,select=mask,layers=3,M=4",
    "rotate_quant_gemm:K=512,N=64,RS=32,rot=hadamard_butterfly,select=flag,M=2,scale=rceil",
    "rotate_quant_gemm:K=1024,N=64,RS=256,rot=hadamard,select=flag,M=32",
    "rotate_quant_gemm:K=512,N=64,RS=64,rot=hadamard,select=flag,fmt=fp6_e2m3,M=8",
    "rotate_quant_gemm:K=1024,N=128,RS=128,rot=learned_per_block,select=mask,layers=2,"
    "fmt=fp6_e2m3,wlayout=w6a16_16x128,M=16",
};

class SelectiveGemm : public ::testing::TestWithParam<size_t> {};

TEST_P(SelectiveGemm, EachPathIsItsReferenceInTwoWorkgroupOrders) {
  const KernelSpec spec = parsed(kSpecs[GetParam()]);
  const uint64_t seed = mxf::testing::testSeed(currentTestName().c_str());
  Result<CodeObject> code = compileSpec(spec, CompileOptions());
  ASSERT_TRUE(code.ok()) << code.error();
  EXPECT_EQ(code.value().kernel.scratchBytes, 0u);
  std::mt19937_64 rng(seed);
  const int m = 1 + int(rng() % uint64_t(spec.M));
  std::vector<uint8_t> paths[2];
  for (bool rotate : {true, false}) {
    const SelectionInputs selection = drawSelection(spec, rotate, rng);
    arrays::NpyArrays given;
    if (!selection.layerMask.empty())
      given.emplace("layer_mask", arrays::NpyArray::of({selection.layerMask.size()},
                                                       selection.layerMask));
    Result<arrays::ReferenceRun> expected =
        arrays::runReference(spec, m, given, seed, selection.selection);
    ASSERT_TRUE(expected.ok()) << expected.error();
    ASSERT_EQ(expected.value().rotates, rotate);
    std::printf("[ path     ] m=%d, %s\n", m,
                arrays::describeSelection(spec, expected.value()).c_str());
    for (auto [order, poison] : {std::pair{emu::WorkgroupOrder::Forward, uint8_t(0xA5)},
                                 std::pair{emu::WorkgroupOrder::Shuffled, uint8_t(0x3C)}}) {
      Result<runtime::SpecLaunch> launched =
          launchWithReference(code.value(), spec, m, expected.value(), order, seed, poison);
      ASSERT_TRUE(launched.ok()) << launched.error();
      EXPECT_EQ(compareReferenceOutputs(expected.value(), launched.value()), "")
          << printSpec(spec) << " m=" << m << (rotate ? ", rotating" : ", quant only")
          << ", seed " << seed;
    }
    paths[rotate] = rawBytes(expected.value().outputs.at("y"));
  }
  // The negative control: the two paths' references differ, so a kernel
  // that ignored the selection would fail one of them.
  EXPECT_NE(paths[0], paths[1]);
}

std::string specName(const ::testing::TestParamInfo<size_t> &info) {
  return matrixTestName(parsed(kSpecs[info.param]), info.param);
}

INSTANTIATE_TEST_SUITE_P(Spec, SelectiveGemm, ::testing::Range<size_t>(0, std::size(kSpecs)),
                         specName);

} // namespace
} // namespace mxf::e2e
