//===- test_operands.cpp - The operand table of abi/ ----------------------===//

#include "abi/operands.h"
#include "tests/support/parsed_spec.h"

#include <gtest/gtest.h>

#include <cstring>

namespace mxf {
namespace {

using testing::parsed;

const KernelOperand &named(const std::vector<KernelOperand> &ops, const char *name) {
  for (const KernelOperand &op : ops)
    if (std::strcmp(op.name, name) == 0)
      return op;
  ADD_FAILURE() << "no operand " << name;
  return ops.front();
}

TEST(Operands, ShapesFollowTheRowCount) {
  const KernelSpec spec = parsed("rotate_quant:K=4096,RS=64,M=16,layout=a4w4_shuffle");
  const std::vector<KernelOperand> bucket = kernelOperands(spec);
  const std::vector<KernelOperand> five = kernelOperands(spec, 5);
  EXPECT_EQ(named(bucket, "x").shape, (std::vector<int64_t>{16, 4096}));
  EXPECT_EQ(named(five, "x").shape, (std::vector<int64_t>{5, 4096}));
  EXPECT_EQ(named(five, "q").shape, (std::vector<int64_t>{5, 2048}));
  // Shuffled scales: rows padded to 256 whatever m is, columns to 8.
  EXPECT_EQ(named(five, "s").shape, (std::vector<int64_t>{256, 128}));
  EXPECT_EQ(named(kernelOperands(spec, 257), "s").shape, (std::vector<int64_t>{512, 128}));
  // The derivations name what they follow from: M for the bucket, m for a launch.
  EXPECT_NE(named(bucket, "x").derivation.find("M=16"), std::string::npos);
  EXPECT_NE(named(five, "x").derivation.find("m=5"), std::string::npos);
}

TEST(Operands, XAndQCarryRowStridesAndTheScalarArgsSayWhichComeFirst) {
  const KernelSpec spec = parsed("rotate_quant:K=512,RS=32,rot=learned,M=4");
  const std::vector<KernelOperand> ops = kernelOperands(spec, 3);
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_STREQ(ops[0].name, "x");
  EXPECT_STREQ(ops[1].name, "r");
  EXPECT_STREQ(ops[0].rowStrideArg, "x_stride");
  EXPECT_FALSE(ops[1].strided());
  EXPECT_STREQ(ops[2].rowStrideArg, "q_stride");
  EXPECT_FALSE(ops[3].strided());
  const std::vector<ScalarArg> scalars = kernelScalarArgs(spec);
  ASSERT_EQ(scalars.size(), 3u);
  EXPECT_STREQ(scalars[0].name, "m");
  EXPECT_STREQ(scalars[1].name, "x_stride");
  EXPECT_STREQ(scalars[2].name, "q_stride");
  // quant_weight has no row count.
  const std::vector<ScalarArg> weight = kernelScalarArgs(parsed("quant_weight:K=4096,N=16"));
  for (const ScalarArg &arg : weight)
    EXPECT_STRNE(arg.name, "m");
}

TEST(Operands, A6W6TilesAreDensePaddedToARowTileAndGuarded) {
  // K=4064: 32 K tiles (K padded to 4096) + 2 guard tiles; a row tile is
  // 256 rows of 34 * 24576 / 256 = 3264 code and 34 * 1024 / 256 = 136
  // scale bytes, whatever m <= 256 is.
  const KernelSpec spec = parsed("rotate_quant:K=4064,RS=32,M=16,fmt=fp6_e2m3,"
                                 "layout=mxfp6_c0c1_256_padk2");
  for (int64_t m : {1, 16}) {
    const std::vector<KernelOperand> ops = kernelOperands(spec, m);
    ASSERT_EQ(ops.size(), 3u);
    EXPECT_EQ(named(ops, "q").shape, (std::vector<int64_t>{256, 3264}));
    EXPECT_EQ(named(ops, "s").shape, (std::vector<int64_t>{256, 136}));
    EXPECT_FALSE(named(ops, "q").strided()) << "a tile layout has no row stride";
    EXPECT_NE(named(ops, "q").derivation.find("guard"), std::string::npos);
  }
  const std::vector<ScalarArg> scalars = kernelScalarArgs(spec);
  ASSERT_EQ(scalars.size(), 2u);
  EXPECT_STREQ(scalars[0].name, "m");
  EXPECT_STREQ(scalars[1].name, "x_stride");
}

TEST(Operands, SpansCountTheLastRowOnceAndTheGapsBetween) {
  const KernelSpec spec = parsed("rotate_quant:K=256,M=8");
  const std::vector<KernelOperand> ops = kernelOperands(spec, 3);
  const KernelOperand &x = named(ops, "x"), &q = named(ops, "q"), &s = named(ops, "s");
  EXPECT_EQ(operandSpanBytes(x, 256), 3u * 256 * 2);
  EXPECT_EQ(operandSpanBytes(x, 300), (2u * 300 + 256) * 2);
  EXPECT_EQ(operandSpanBytes(q, 200), 2u * 200 + 128);
  EXPECT_EQ(operandSpanBytes(s, 999), 3u * 8) << "dense operands ignore a stride";
  EXPECT_EQ(operandSpanBytes(kernelOperands(spec, 0)[0], 300), 0u);
}

TEST(Operands, FindNamesTheOperandsWhenTheNameIsWrong) {
  const KernelSpec spec = parsed("rotate_quant:K=256,M=8");
  EXPECT_TRUE(findKernelOperand(spec, 2, "q").ok());
  Result<KernelOperand> missing = findKernelOperand(spec, 2, "y");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("'y' is not an operand of rotate_quant:K=256"),
            std::string::npos);
  EXPECT_NE(missing.error().find("(its operands: x, q, s)"), std::string::npos);
}

} // namespace
} // namespace mxf
