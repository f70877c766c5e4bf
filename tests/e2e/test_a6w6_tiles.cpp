//===- test_a6w6_tiles.cpp - AITER's A6W6 operand tiles from the kernel ---===//
//
// The matrix checks every mxfp6_c0c1_256_padk2 spec against an image built
// from numerics' offsets. These tests hold the layout from two other sides:
//  - the same kernel in two layouts: the tiled launch's bytes are exactly
//    numerics' packA6W6 of the plain launch's rows, and unpackA6W6 of them
//    gives those rows back (so the kernel's own address arithmetic agrees
//    with the host packer an engine would otherwise run);
//  - facts of AITER's layout read off the kernel's buffer directly (guard
//    tiles, scale pad 127, one row's C0/C1 split), from hand-computed
//    offsets rather than numerics' functions;
//  - negative controls: one wrong byte in a guard tile, a padding scale or a
//    code is named by its region, and a plain image is not a tiled one.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_case.h"
#include "tests/e2e/e2e_runner.h"
#include "tests/unit/test_seed.h"

#include "numerics/a6w6.h"
#include "runtime/emu_device.h"

#include <gtest/gtest.h>

namespace mxf::e2e {
namespace {

constexpr const char *kContract = "rotate_quant:K=4064,RS=32,rot=hadamard,M=16,fmt=fp6_e2m3,"
                                  "scale=a6w6,round=rna";

struct TwoLayouts {
  std::unique_ptr<runtime::Device> device;
  LoadedKernel plain, tiled;
};

TwoLayouts loadBoth() {
  TwoLayouts both;
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice({});
  EXPECT_TRUE(device.ok()) << device.error();
  if (!device.ok())
    return both;
  both.device = std::move(device.value());
  Result<KernelSpec> plain = parseSpec(kContract);
  Result<KernelSpec> tiled = parseSpec(std::string(kContract) + ",layout=mxfp6_c0c1_256_padk2");
  EXPECT_TRUE(plain.ok() && tiled.ok());
  Result<LoadedKernel> p = compileAndLoad(*both.device, plain.value());
  Result<LoadedKernel> t = compileAndLoad(*both.device, tiled.value());
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error());
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error());
  if (p.ok() && t.ok()) {
    both.plain = std::move(p.value());
    both.tiled = std::move(t.value());
  }
  return both;
}

TEST(A6W6Tiles, KernelTilesArePackA6W6OfThePlainKernelsRows) {
  TwoLayouts both = loadBoth();
  ASSERT_TRUE(both.device && both.tiled.kernel.info);
  const uint64_t seed = mxf::testing::testSeed("A6W6Tiles.KernelTilesArePackA6W6OfThePlainKernelsRows");
  for (int m : {1, 7, 16}) {
    RunContext context{seed, 0, size_t(m), "A6W6Tiles.KernelTilesArePackA6W6OfThePlainKernelsRows"};
    RunInputs inputs = drawInputs(both.plain.spec, m, context);
    inputs.xStride = inputs.qStride = 0;
    Result<RunOutputs> plain = runKernel(*both.device, both.plain, inputs);
    Result<RunOutputs> tiled = runKernel(*both.device, both.tiled, inputs);
    ASSERT_TRUE(plain.ok() && tiled.ok()) << (plain.ok() ? tiled.error() : plain.error());
    const size_t k = size_t(both.plain.spec.K);
    Result<A6W6Operand> packed =
        packA6W6(plain.value().q.data(), plain.value().s.data(), size_t(m), k);
    ASSERT_TRUE(packed.ok()) << packed.error();
    EXPECT_TRUE(packed.value().codes == tiled.value().q) << "codes differ from packA6W6, m=" << m;
    EXPECT_TRUE(packed.value().scales == tiled.value().s) << "scales differ from packA6W6, m=" << m;
    Result<A6W6Operand> unpacked = unpackA6W6({tiled.value().q, tiled.value().s}, size_t(m), k);
    ASSERT_TRUE(unpacked.ok()) << unpacked.error();
    EXPECT_TRUE(unpacked.value().codes == plain.value().q) << "m=" << m;
    EXPECT_TRUE(unpacked.value().scales == plain.value().s) << "m=" << m;
  }
}

TEST(A6W6Tiles, AiterLayoutFactsHoldInTheKernelsBuffer) {
  TwoLayouts both = loadBoth();
  ASSERT_TRUE(both.device && both.tiled.kernel.info);
  const uint64_t seed = mxf::testing::testSeed("A6W6Tiles.AiterLayoutFactsHoldInTheKernelsBuffer");
  const int m = 3;
  RunContext context{seed, 0, 3, "A6W6Tiles.AiterLayoutFactsHoldInTheKernelsBuffer"};
  RunInputs inputs = drawInputs(both.plain.spec, m, context);
  inputs.xStride = inputs.qStride = 0;
  Result<RunOutputs> plain = runKernel(*both.device, both.plain, inputs);
  Result<RunOutputs> tiled = runKernel(*both.device, both.tiled, inputs);
  ASSERT_TRUE(plain.ok() && tiled.ok());
  const std::vector<uint8_t> &q = tiled.value().q, &s = tiled.value().s;
  // K = 4064: 32 K tiles (the last holds 3 blocks and one padded), then 2
  // guard tiles: 34 tiles of 24576 code and 1024 scale bytes, one row tile.
  ASSERT_EQ(q.size(), 34u * 24576u);
  ASSERT_EQ(s.size(), 34u * 1024u);
  // The guard tiles: codes 0, scales 127.
  for (size_t i = 32 * 24576; i < q.size(); ++i)
    ASSERT_EQ(q[i], 0) << "guard tile code byte " << i;
  for (size_t i = 32 * 1024; i < s.size(); ++i)
    ASSERT_EQ(s[i], 127) << "guard tile scale byte " << i;
  // Row 2, block 0 (tile 0, kg 0): blk = 0*64 + 0*16 + 2 = 2: its 24 plain
  // bytes are C0 bytes 32..47 then C1 bytes 16384 + 16..23.
  const size_t rowBytes = 4064 * 3 / 4;
  for (size_t j = 0; j < 24; ++j) {
    const size_t at = j < 16 ? 2 * 16 + j : 16384 + 2 * 8 + (j - 16);
    EXPECT_EQ(q[at], plain.value().q[2 * rowBytes + j]) << "row 2 block 0 byte " << j;
  }
  // Row 2, block 126 (tile 31, kg 2): scale at 31*1024 + 0*512 + 2*128 +
  // (2%16)*8 + (2%128)/16 = 31744 + 256 + 16.
  EXPECT_EQ(s[31 * 1024 + 256 + 16], plain.value().s[2 * 127 + 126]);
  // Block 127 of every row is K padding (4064 = 127 blocks): scale 127 at
  // kg 3, codes 0; row 200 (past m) is padding throughout.
  for (size_t row : {size_t(0), size_t(2), size_t(200)})
    EXPECT_EQ(s[31 * 1024 + (row / 128) * 512 + 3 * 128 + (row % 16) * 8 + (row % 128) / 16], 127)
        << "row " << row;
  EXPECT_EQ(s[0 * 1024 + 1 * 512 + 0 * 128 + (200 % 16) * 8 + (200 % 128) / 16], 127);
}

TEST(A6W6Tiles, NegativeControlsNameTheRegion) {
  OutputShape shape = outputShapeAt(parseSpec(std::string(kContract) +
                                              ",layout=mxfp6_c0c1_256_padk2").value(), 2);
  const size_t k = shape.k, rowBytes = k * 3 / 4, blocks = k / 32;
  std::vector<uint8_t> codes(2 * rowBytes), scales(2 * blocks);
  for (size_t i = 0; i < codes.size(); ++i)
    codes[i] = uint8_t(i * 7 + 1);
  for (size_t i = 0; i < scales.size(); ++i)
    scales[i] = uint8_t(100 + i % 50);
  const ExpectedOutputs expected = expectedOutputs(shape, 2, codes, scales, 0xA5);
  ASSERT_TRUE(compareOutputs(expected, shape, expected.q, expected.s).ok());

  auto flipped = [&](bool inQ, size_t at) {
    std::vector<uint8_t> q = expected.q, s = expected.s;
    (inQ ? q : s)[at] ^= 0x01;
    return compareOutputs(expected, shape, q, s);
  };
  Comparison guard = flipped(true, 32 * 24576 + 5);
  EXPECT_EQ(guard.mismatches, 1u);
  EXPECT_EQ(guard.byRegion[size_t(Region::CodePadding)], 1u) << guard.describe();
  Comparison padScale = flipped(false, a6w6ScaleOffset(100, 3, k));
  EXPECT_EQ(padScale.byRegion[size_t(Region::ScalePadding)], 1u) << padScale.describe();
  ASSERT_EQ(padScale.first.size(), 1u);
  EXPECT_EQ(padScale.first[0].row, 100u);
  EXPECT_EQ(padScale.first[0].byte, 3u);
  Comparison code = flipped(true, a6w6CodeOffset(1, 40, 20, k));
  EXPECT_EQ(code.byRegion[size_t(Region::Code)], 1u) << code.describe();
  ASSERT_EQ(code.first.size(), 1u);
  EXPECT_EQ(code.first[0].row, 1u);
  EXPECT_EQ(code.first[0].byte, 40u * 24 + 20);

  // Rows laid out plain at the start of the buffer are not the tiles.
  std::vector<uint8_t> plainImage = expected.q;
  std::copy(codes.begin(), codes.end(), plainImage.begin());
  EXPECT_GT(compareOutputs(expected, shape, plainImage, expected.s).mismatches, 1000u);
}

} // namespace
} // namespace mxf::e2e
