//===- test_prepared_weights.cpp - Weights made for the launch reading them -===//
//
// checkPreparedWeights against every misuse issue 31 measured (each gives a
// wrong y with no error when unchecked), the same class of mistakes for
// other keys, and selective launches: for each, the refusal names the key
// with both values; the weights rotate_quant_gemm declares it reads pass.
// And checkSpecKeys, the same check for the reader of any op's outputs (the
// MoE GEMM after rotate_quant_moe: layout, block, E).
//
//===----------------------------------------------------------------------===//

#include "spec/expected_keys.h"
#include "spec/op_declaration.h"
#include "spec/prepared_weights.h"
#include "spec/reference_problem.h"
#include "tests/support/parsed_spec.h"

#include <gtest/gtest.h>

namespace mxf {
namespace {

using testing::parsed;

const char *const kGemm = "rotate_quant_gemm:K=4096,N=4608,RS=64,rot=hadamard,M=16,"
                          "layout=a4w4_shuffle,wlayout=preshuffle_16x16";
const char *const kWeights = "quant_weight:K=4096,N=4608,RS=64,rot=hadamard,"
                             "layout=a4w4_shuffle,wlayout=preshuffle_16x16";

void expectRefused(const std::string &gemm, const std::string &weights, bool rotates,
                   const std::string &message) {
  Status status = checkPreparedWeights(parsed(gemm), parsed(weights), rotates);
  ASSERT_FALSE(status.ok()) << gemm << " accepted " << weights;
  EXPECT_NE(status.message().find(message), std::string::npos) << status.message();
}

TEST(PreparedWeights, TheWeightsTheGemmDeclaresPass) {
  EXPECT_TRUE(checkPreparedWeights(parsed(kGemm), parsed(kWeights), true).ok());
  // The scale rule and rounding chose the values, which any reader reads alike.
  EXPECT_TRUE(checkPreparedWeights(parsed(kGemm),
                                   parsed(std::string(kWeights) + ",scale=rceil,round=sr"), true)
                  .ok());
  // Every weight spec the op declares passes its own check, also W6A16's.
  for (const char *gemm :
       {kGemm, "rotate_quant_gemm:K=512,N=64,RS=32,rot=learned,rconv=xrt,fmt=fp6_e2m3,"
               "wlayout=w6a16_16x128"}) {
    const KernelSpec spec = parsed(gemm);
    EXPECT_TRUE(
        checkPreparedWeights(spec, opDeclaration(spec.op)->weightsRead(spec), true).ok())
        << gemm;
  }
}

TEST(PreparedWeights, EachMisuseIsRefusedNamingBothValues) {
  const std::string gemm = kGemm;
  // Issue 31's five: plain codes for preshuffled and the reverse, plain
  // scales for shuffled and the reverse, weights of another RS.
  expectRefused(gemm, "quant_weight:K=4096,N=4608,RS=64,rot=hadamard,layout=a4w4_shuffle", true,
                "wlayout=plain, rotate_quant_gemm reads wlayout=preshuffle_16x16");
  expectRefused("rotate_quant_gemm:K=4096,N=4608,RS=64,rot=hadamard,layout=a4w4_shuffle",
                kWeights, true, "wlayout=preshuffle_16x16, rotate_quant_gemm reads wlayout=plain");
  expectRefused(gemm, "quant_weight:K=4096,N=4608,RS=64,rot=hadamard,wlayout=preshuffle_16x16",
                true, "layout=plain, rotate_quant_gemm reads layout=a4w4_shuffle");
  expectRefused("rotate_quant_gemm:K=4096,N=4608,RS=64,rot=hadamard,wlayout=preshuffle_16x16",
                kWeights, true, "layout=a4w4_shuffle, rotate_quant_gemm reads layout=plain");
  expectRefused(gemm,
                "quant_weight:K=4096,N=4608,RS=128,rot=hadamard,layout=a4w4_shuffle,"
                "wlayout=preshuffle_16x16",
                true, "RS=128, rotate_quant_gemm reads RS=64");
  // The same class: rotation kind and convention, format, shape.
  expectRefused(gemm,
                "quant_weight:K=4096,N=4608,RS=64,rot=learned,layout=a4w4_shuffle,"
                "wlayout=preshuffle_16x16",
                true, "rot=learned, rotate_quant_gemm reads rot=hadamard");
  expectRefused("rotate_quant_gemm:K=512,N=64,RS=32,rot=learned,rconv=xrt",
                "quant_weight:K=512,N=64,RS=32,rot=learned", true,
                "rconv=xr, rotate_quant_gemm reads rconv=xrt");
  expectRefused("rotate_quant_gemm:K=512,N=64,RS=32,rot=hadamard,fmt=fp6_e2m3",
                "quant_weight:K=512,N=64,RS=32,rot=hadamard", true,
                "fmt=fp4, rotate_quant_gemm reads fmt=fp6_e2m3");
  expectRefused("rotate_quant_gemm:K=512,N=64,RS=32,rot=hadamard",
                "quant_weight:K=512,N=128,RS=32,rot=hadamard", true,
                "N=128, rotate_quant_gemm reads N=64");
  // The message carries both specs.
  expectRefused(gemm, "quant_weight:K=4096,N=4608,RS=0", true,
                "quant_weight:K=4096,N=4608,RS=0,rot=none");
  expectRefused(gemm, "quant_weight:K=4096,N=4608,RS=0", true, "against rotate_quant_gemm:");
}

TEST(PreparedWeights, ASelectiveLaunchReadsTheWeightsOfItsPath) {
  const std::string gemm = "rotate_quant_gemm:K=512,N=64,RS=64,rot=hadamard,select=mask,layers=4";
  const std::string rotated = "quant_weight:K=512,N=64,RS=64,rot=hadamard";
  const std::string plain = "quant_weight:K=512,N=64,RS=0";
  EXPECT_TRUE(checkPreparedWeights(parsed(gemm), parsed(rotated), true).ok());
  EXPECT_TRUE(checkPreparedWeights(parsed(gemm), parsed(plain), false).ok());
  expectRefused(gemm, plain, true, "RS=0, rotate_quant_gemm reads RS=64");
  expectRefused(gemm, rotated, false,
                "RS=64, rotate_quant_gemm reads RS=0 (this launch does not rotate)");
}

TEST(PreparedWeights, OnlyOpsThatReadWeightsAndOnlyWeightSpecs) {
  expectRefused("rotate_quant:K=512,RS=64,rot=hadamard", "quant_weight:K=512,N=64,RS=64", true,
                "rotate_quant reads no prepared weights");
  expectRefused("rotate_quant_gemm:K=512,N=64,RS=0", "rotate_quant:K=512,RS=0", true,
                "weights are described by a quant_weight spec");
}

} // namespace
} // namespace mxf

namespace mxf {
namespace {

TEST(ExpectedKeys, AReaderRefusesTheSpecItWasNotBuiltFor) {
  const KernelSpec moe = testing::parsed("rotate_quant_moe:K=256,topk=8,E=256,block=32,M=64");
  EXPECT_TRUE(checkSpecKeys(moe, "block=32,E=256,layout=a4w4_shuffle").ok());
  EXPECT_FALSE(checkSpecKeys(moe, "").ok()); // an empty item is no key=value
  auto refused = [&](const char *expected, const char *message) {
    Status status = checkSpecKeys(moe, expected);
    ASSERT_FALSE(status.ok()) << expected;
    EXPECT_NE(status.message().find(message), std::string::npos) << status.message();
  };
  refused("layout=plain", "writes layout=a4w4_shuffle, the reader expects layout=plain");
  refused("block=64", "writes block=32, the reader expects block=64");
  refused("E=128,block=32", "writes E=256, the reader expects E=128");
  refused("N=64", "rotate_quant_moe has no key N");
  refused("colour=red", "no spec key 'colour'");
  refused("block=48", "expected 'block=48': ");
  refused("block", "give key=value");
}

} // namespace
} // namespace mxf
