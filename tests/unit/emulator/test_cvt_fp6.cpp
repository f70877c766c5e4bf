//===- test_cvt_fp6.cpp - The fp6/bf6 block converts of §C4 ---------------===//
//
// v_cvt_scalef32_2xpk16_*, _pk32_* and _sr_pk32_*_f32, each run on all 64
// lanes of a real code object. Expected codes come from numerics
// (encodeElemRne, encodeElemSr, dequantElem) and the expected bit layout from
// numerics' packCodes/unpackCodes, which the emulator does not use: it places
// items as the ISA pseudo-code does (tmp[6i+5:6i]), so the two layouts check
// each other. A few layouts are also written out by hand.
//
// Every lane has its own scale (the E8M0 byte in bits [30:23]). Lanes 0-7
// hold hand-picked values (ties, subnormals, saturation, NaN/Inf, ±0) under
// chosen scales, including b = 0, 254 and the NaN scale 0xFF; the other lanes
// are random, drawn from a printed seed (MXFORGE_TEST_SEED replays it).
//
//===----------------------------------------------------------------------===//

#include "emu_harness.h"

#include "numerics/formats.h"
#include "numerics/packing.h"
#include "numerics/stochastic.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace mxf::emu::test {
namespace {

constexpr unsigned kLanes = 64, kItems = 32, kPacked = 6;
constexpr ElemFormat kFp6 = ElemFormat::E2M3, kBf6 = ElemFormat::E3M2;
const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// ---- A kernel around one block instruction ---------------------------------
//
// Buffers are lane-major: lane l's `count` dwords are at [l*count, (l+1)*count).
// Buffer 0 holds the destination's initial value and receives its result;
// buffers 1.. are the inputs, each loaded into its VGPR range. The addresses
// are in the kernarg segment (8 bytes each) and land in s[4:5], s[6:7], ...

struct Block {
  unsigned first = 0, count = 0; // VGPR range v[first : first + count - 1]
  Buffer data;                   // kLanes * count dwords, lane-major
};

std::string vrange(unsigned first, unsigned n) {
  return n == 1 ? "v" + std::to_string(first)
                : "v[" + std::to_string(first) + ":" + std::to_string(first + n - 1) + "]";
}

/// Loads or stores a lane-major block in pieces of up to four dwords. v62 holds
/// the lane id; v63 becomes this block's per-lane byte offset.
std::string moveBlock(bool load, unsigned first, unsigned count, unsigned buffer) {
  const std::string sbase =
      "s[" + std::to_string(4 + 2 * buffer) + ":" + std::to_string(5 + 2 * buffer) + "]";
  std::string s = "  v_mul_u32_u24 v63, " + std::to_string(4 * count) + ", v62\n";
  for (unsigned r = 0; r < count;) {
    const unsigned n = count - r >= 4 ? 4 : count - r >= 2 ? 2 : 1;
    const std::string width = n == 1 ? "dword" : "dwordx" + std::to_string(n);
    s += load ? "  global_load_" + width + " " + vrange(first + r, n) + ", v63, " + sbase
              : "  global_store_" + width + " v63, " + vrange(first + r, n) + ", " + sbase;
    s += " offset:" + std::to_string(4 * r) + "\n";
    r += n;
  }
  return s;
}

/// Runs `body` (which may use the loaded VGPRs and must not touch v62/v63)
/// and returns the destination block, lane-major.
Buffer runBlocks(const std::string &body, Block dst, std::vector<Block> inputs) {
  AsmKernel k;
  k.body = R"(
  s_load_dwordx8 s[4:11], s[0:1], 0x0
  s_load_dwordx8 s[12:19], s[0:1], 0x20
  s_waitcnt lgkmcnt(0)
  v_and_b32 v62, 0x3ff, v0
)" + moveBlock(true, dst.first, dst.count, 0) +
           "  s_waitcnt vmcnt(0)\n";
  for (unsigned i = 0; i < inputs.size(); ++i)
    k.body += moveBlock(true, inputs[i].first, inputs[i].count, i + 1);
  k.body +=
      "  s_waitcnt vmcnt(0)\n" + body + "\n  s_nop 1\n" + moveBlock(false, dst.first, dst.count, 0);
  std::vector<Buffer *> buffers = {&dst.data};
  for (Block &b : inputs)
    buffers.push_back(&b.data);
  auto stats = runAsm(k, buffers);
  EXPECT_TRUE(stats.ok()) << stats.error();
  return dst.data;
}

/// Lane-major data with `count` dwords per lane from f(lane, dword).
Buffer laneMajor(unsigned count, const std::function<uint32_t(unsigned, unsigned)> &f) {
  Buffer b(kLanes * count);
  for (unsigned l = 0; l < kLanes; ++l)
    for (unsigned r = 0; r < count; ++r)
      b[l * count + r] = f(l, r);
  return b;
}

std::string hexWord(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", v);
  return text;
}

/// Compares lane-major blocks and names the first lanes/dwords that differ.
::testing::AssertionResult sameBlocks(const Buffer &got, const Buffer &want, unsigned count) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "sizes " << got.size() << " vs " << want.size();
  unsigned bad = 0;
  std::string where;
  for (unsigned l = 0; l < kLanes; ++l)
    for (unsigned r = 0; r < count; ++r)
      if (got[l * count + r] != want[l * count + r] && ++bad <= 8)
        where += " lane " + std::to_string(l) + " dword " + std::to_string(r) + ": got " +
                 hexWord(got[l * count + r]) + " want " + hexWord(want[l * count + r]) + ";";
  if (bad == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " dwords differ:" << where;
}

// ---- Expected values from numerics -----------------------------------------

/// The six dwords numerics' packCodes makes of 32 codes.
std::array<uint32_t, kPacked> packed(ElemFormat fmt, const std::array<uint8_t, kItems> &codes) {
  uint8_t bytes[4 * kPacked];
  packCodes(fmt, codes.data(), kItems, bytes);
  std::array<uint32_t, kPacked> d;
  std::memcpy(d.data(), bytes, sizeof bytes);
  return d;
}
/// The 32 codes numerics' unpackCodes reads from six dwords.
std::array<uint8_t, kItems> unpacked(ElemFormat fmt, const uint32_t *dwords) {
  uint8_t bytes[4 * kPacked];
  std::memcpy(bytes, dwords, sizeof bytes);
  std::array<uint8_t, kItems> codes;
  unpackCodes(fmt, bytes, kItems, codes.data());
  return codes;
}

uint16_t toF16(float v) {
  const _Float16 h = _Float16(v);
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}
float fromF16(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return float(h);
}

// ---- Inputs -----------------------------------------------------------------

/// 32 values per format around its grid at scale 127: ties (to even), the
/// subnormal range, saturation (max, ties just past max, far beyond), NaN,
/// ±Inf, ±0 and an f32 denormal.
std::array<float, kItems> specials(ElemFormat fmt) {
  if (fmt == kFp6) // E2M3: step 1/8 below 2, max 7.5
    return {0.0f,    -0.0f,    0.0625f, 0.0625001f,
            0.125f,  0.1875f,  0.3125f, 0.9375f,
            1.0625f, 1.1875f,  2.125f,  2.375f,
            4.25f,   7.25f,    7.5f,    7.75f,
            8.0f,    1000.0f,  kInf,    -kInf,
            kNaN,    -kNaN,    1e-40f,  -0.03f,
            -7.6f,   -1.0625f, 3.0f,    -0.125f,
            0.5f,    5.0f,     6.0f,    std::numeric_limits<float>::max()};
  // E3M2: step 1/16 below 1/4, max 28
  return {0.0f,      -0.0f,  0.03125f, 0.0625f, 0.09375f, 0.15625f, 0.21875f, 0.28125f,
          1.125f,    1.375f, 14.0f,    26.0f,   27.0f,    28.0f,    30.0f,    32.0f,
          1e6f,      kInf,   -kInf,    kNaN,    1e-40f,   -26.0f,   -30.0f,   3.5f,
          -0.03125f, 0.75f,  6.0f,     10.0f,   11.0f,    18.0f,    22.0f,    -1e-3f};
}

/// The scale byte of lane l: hand-picked for lanes 0-7, random otherwise.
uint8_t laneScale(unsigned l, std::mt19937 &rng) {
  const uint8_t fixed[] = {127, 127, 0xff, 130, 107, 0, 254, 1};
  return l < 8 ? fixed[l] : uint8_t(100 + rng() % 50);
}
/// The f32 scale operand for byte b, with random sign and mantissa (ignored, §C1).
uint32_t scaleOperand(uint8_t b, std::mt19937 &rng) {
  return (uint32_t(b) << 23) | (rng() & 0x807fffffu);
}

/// Item i of lane l for a conversion *to* fp6. Lanes 0/1: the specials of both
/// formats at scale 127; 2: the NaN scale; 3-7: the specials moved by the
/// lane's scale so they hit the same grid points (b = 0 makes f32 denormals,
/// b = 254 overflows some to Inf); other lanes: normal values spread over the
/// format's range, and now and then an arbitrary bit pattern.
float toFp6Input(ElemFormat fmt, unsigned l, unsigned i, uint8_t b, std::mt19937 &rng) {
  if (l == 0 || l == 1 || l == 2)
    return specials(l == 1 ? (fmt == kFp6 ? kBf6 : kFp6) : fmt)[i];
  if (l < 8)
    return float(std::ldexp(double(specials(fmt)[i]), int(b) - 127));
  if (rng() % 8 == 0) {
    const uint32_t bits = rng();
    return f32FromBits(bits);
  }
  std::normal_distribution<float> normal(0.0f, fmt == kFp6 ? 3.0f : 10.0f);
  return float(std::ldexp(double(normal(rng)), int(b) - 127));
}

struct ToFp6Case {
  std::vector<uint8_t> scale;               // per lane
  std::vector<std::array<float, kItems>> x; // per lane, item order
};
ToFp6Case toFp6Case(ElemFormat fmt, uint64_t seed) {
  std::mt19937 rng(uint32_t(seed ^ (seed >> 32)));
  ToFp6Case c;
  for (unsigned l = 0; l < kLanes; ++l) {
    c.scale.push_back(laneScale(l, rng));
    std::array<float, kItems> x;
    for (unsigned i = 0; i < kItems; ++i)
      x[i] = toFp6Input(fmt, l, i, c.scale[l], rng);
    c.x.push_back(x);
  }
  return c;
}

Buffer scaleBlock(const std::vector<uint8_t> &scale, uint64_t seed) {
  std::mt19937 rng(uint32_t(seed) * 7919u + 1);
  return laneMajor(1, [&](unsigned l, unsigned) { return scaleOperand(scale[l], rng); });
}

/// What the destination must hold: numerics' codes, packed by numerics.
Buffer expectedPacked(ElemFormat fmt, const std::function<uint8_t(unsigned, unsigned)> &code) {
  Buffer want(kLanes * kPacked);
  for (unsigned l = 0; l < kLanes; ++l) {
    std::array<uint8_t, kItems> codes;
    for (unsigned i = 0; i < kItems; ++i)
      codes[i] = code(l, i);
    const auto d = packed(fmt, codes);
    std::copy(d.begin(), d.end(), want.begin() + l * kPacked);
  }
  return want;
}

const Buffer kDstInit = laneMajor(
    32, [](unsigned l, unsigned r) { return 0xa5a5a5a5u ^ (l * 0x01000193u) ^ (r << 24); });
Buffer dstInit(unsigned count) {
  return laneMajor(count, [](unsigned l, unsigned r) { return kDstInit[l * 32 + r]; });
}

// ---- v_cvt_scalef32_2xpk16_{fp6,bf6}_f32 ------------------------------------

class EmuCvt2xPk16 : public ::testing::TestWithParam<ElemFormat> {};

TEST_P(EmuCvt2xPk16, EveryLaneMatchesNumerics) {
  const ElemFormat fmt = GetParam();
  const uint64_t seed = testing::testSeed("EmuCvt2xPk16.EveryLaneMatchesNumerics");
  const ToFp6Case c = toFp6Case(fmt, seed);
  // Item 2p is src0[p], item 2p+1 is src1[p].
  const Buffer s0 = laneMajor(16, [&](unsigned l, unsigned p) { return bits(c.x[l][2 * p]); });
  const Buffer s1 = laneMajor(16, [&](unsigned l, unsigned p) { return bits(c.x[l][2 * p + 1]); });
  const std::string op =
      fmt == kFp6 ? "v_cvt_scalef32_2xpk16_fp6_f32" : "v_cvt_scalef32_2xpk16_bf6_f32";
  const Buffer out =
      runBlocks(op + " v[2:7], v[10:25], v[26:41], v42", {2, kPacked, dstInit(kPacked)},
                {{10, 16, s0}, {26, 16, s1}, {42, 1, scaleBlock(c.scale, seed)}});
  const Buffer want = expectedPacked(
      fmt, [&](unsigned l, unsigned i) { return encodeElemRne(fmt, c.x[l][i], c.scale[l]); });
  EXPECT_TRUE(sameBlocks(out, want, kPacked));

  // Negative control: the same codes without the interleave (items 0-15 from
  // src0, 16-31 from src1) must be caught by the comparison.
  const Buffer wrong = expectedPacked(fmt, [&](unsigned l, unsigned i) {
    const float x = i < 16 ? c.x[l][2 * i] : c.x[l][2 * (i - 16) + 1];
    return encodeElemRne(fmt, x, c.scale[l]);
  });
  EXPECT_FALSE(sameBlocks(out, wrong, kPacked));
}

TEST_P(EmuCvt2xPk16, SpecialCodesByHand) {
  // Lane 0 at scale 127 (codes written out, sign in bit 5): NaN and +-Inf
  // saturate, ties go to even, 7.75 rounds up past max and saturates.
  const ElemFormat fmt = GetParam();
  const ToFp6Case c = toFp6Case(fmt, 1);
  const Buffer s0 = laneMajor(16, [&](unsigned l, unsigned p) { return bits(c.x[l][2 * p]); });
  const Buffer s1 = laneMajor(16, [&](unsigned l, unsigned p) { return bits(c.x[l][2 * p + 1]); });
  const std::string op =
      fmt == kFp6 ? "v_cvt_scalef32_2xpk16_fp6_f32" : "v_cvt_scalef32_2xpk16_bf6_f32";
  const Buffer out =
      runBlocks(op + " v[2:7], v[10:25], v[26:41], v42", {2, kPacked, dstInit(kPacked)},
                {{10, 16, s0}, {26, 16, s1}, {42, 1, scaleBlock(c.scale, 1)}});
  const auto lane0 = unpacked(fmt, &out[0]);
  const auto lane2 = unpacked(fmt, &out[2 * kPacked]);
  if (fmt == kFp6) {
    // 0, -0, 0.0625 -> 0, just above -> 0.125, 0.1875 -> 0.25, 0.3125 -> 0.25,
    // 0.9375 -> 1, 1.0625 -> 1, 1.1875 -> 1.25, 2.125 -> 2, 2.375 -> 2.5,
    // 4.25 -> 4, 7.25 -> 7, 7.5, 7.75 -> 7.5, 8 -> 7.5, 1000, Inf, -Inf, NaN,
    // -NaN, denormal -> 0, -0.03 -> -0, -7.6 -> -7.5, -1.0625 -> -1.
    const uint8_t want[] = {0x00, 0x20, 0x00, 0x01, 0x01, 0x02, 0x02, 0x08, 0x08,
                            0x0a, 0x10, 0x12, 0x18, 0x1e, 0x1f, 0x1f, 0x1f, 0x1f,
                            0x1f, 0x3f, 0x1f, 0x3f, 0x00, 0x20, 0x3f, 0x28};
    for (unsigned i = 0; i < std::size(want); ++i)
      EXPECT_EQ(lane0[i], want[i]) << "item " << i;
  } else {
    // 0, -0, 0.03125 -> 0, 0.0625, 0.09375 -> 0.125, 0.15625 -> 0.125,
    // 0.21875 -> 0.25, 0.28125 -> 0.25, 1.125 -> 1, 1.375 -> 1.5, 14,
    // 26 -> 24, 27 -> 28, 28, 30 -> 28, 32 -> 28, 1e6, Inf, -Inf, NaN.
    const uint8_t want[] = {0x00, 0x20, 0x00, 0x01, 0x02, 0x02, 0x04, 0x04, 0x0c, 0x0e,
                            0x1b, 0x1e, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x3f, 0x1f};
    for (unsigned i = 0; i < std::size(want); ++i)
      EXPECT_EQ(lane0[i], want[i]) << "item " << i;
  }
  // The NaN scale saturates every item to +-max, keeping the sign.
  for (unsigned i = 0; i < kItems; ++i)
    EXPECT_EQ(lane2[i], std::signbit(c.x[2][i]) ? 0x3f : 0x1f) << "NaN scale, item " << i;
}

TEST_P(EmuCvt2xPk16, InterleaveAndLayoutByHand) {
  // Positive code k of a format at scale 127 comes from its own value, so the
  // packed result shows the order of items directly.
  const ElemFormat fmt = GetParam();
  const std::string op =
      fmt == kFp6 ? "v_cvt_scalef32_2xpk16_fp6_f32" : "v_cvt_scalef32_2xpk16_bf6_f32";
  auto value = [&](uint8_t code) { return bits(float(decodeElem(fmt, code))); };
  const Buffer ones = laneMajor(1, [](unsigned, unsigned) { return 127u << 23; });

  // src0 all code 1, src1 all code 2: items 1,2,1,2,... (12-bit period 0x081).
  const Buffer a =
      runBlocks(op + " v[2:7], v[10:25], v[26:41], v42", {2, kPacked, dstInit(kPacked)},
                {{10, 16, laneMajor(16, [&](unsigned, unsigned) { return value(1); })},
                 {26, 16, laneMajor(16, [&](unsigned, unsigned) { return value(2); })},
                 {42, 1, ones}});
  const uint32_t alternating[] = {0x81081081u, 0x10810810u, 0x08108108u,
                                  0x81081081u, 0x10810810u, 0x08108108u};
  for (unsigned l = 0; l < kLanes; ++l)
    for (unsigned r = 0; r < kPacked; ++r)
      ASSERT_EQ(a[l * kPacked + r], alternating[r]) << "lane " << l << " dword " << r;

  // src0[p] = code 2p, src1[p] = code 2p+1: item i is code i. Items 5, 10, 21
  // and 26 straddle dwords; the first two dwords written out.
  const Buffer b = runBlocks(
      op + " v[2:7], v[10:25], v[26:41], v42", {2, kPacked, dstInit(kPacked)},
      {{10, 16, laneMajor(16, [&](unsigned, unsigned p) { return value(uint8_t(2 * p)); })},
       {26, 16, laneMajor(16, [&](unsigned, unsigned p) { return value(uint8_t(2 * p + 1)); })},
       {42, 1, ones}});
  EXPECT_EQ(b[0], 0x440c2040u); // items 0-4 and the low 2 bits of item 5
  EXPECT_EQ(b[1], 0xa2481c61u); // item 5's high bits, 6-9, low 4 bits of 10
  std::array<uint8_t, kItems> identity;
  for (unsigned i = 0; i < kItems; ++i)
    identity[i] = uint8_t(i);
  const auto want = packed(fmt, identity);
  for (unsigned r = 0; r < kPacked; ++r)
    EXPECT_EQ(b[r], want[r]) << "dword " << r;
}

TEST_P(EmuCvt2xPk16, DestinationOverlappingTheSources) {
  // LLVM's own MC test: v[20:25] <- v[10:25], v[10:25]; llc emits
  // v[0:5] <- v[0:15], v[16:31]. All sources are read before D is written.
  const ElemFormat fmt = GetParam();
  const uint64_t seed = testing::testSeed("EmuCvt2xPk16.DestinationOverlappingTheSources");
  const ToFp6Case c = toFp6Case(fmt, seed);
  const Buffer s = laneMajor(16, [&](unsigned l, unsigned p) { return bits(c.x[l][p]); });
  const std::string op =
      fmt == kFp6 ? "v_cvt_scalef32_2xpk16_fp6_f32" : "v_cvt_scalef32_2xpk16_bf6_f32";
  const Buffer out = runBlocks(op + " v[20:25], v[10:25], v[10:25], v6",
                               {20, kPacked, Buffer(kLanes * kPacked, 0)},
                               {{10, 16, s}, {6, 1, scaleBlock(c.scale, seed)}});
  const Buffer want = expectedPacked(
      fmt, [&](unsigned l, unsigned i) { return encodeElemRne(fmt, c.x[l][i / 2], c.scale[l]); });
  EXPECT_TRUE(sameBlocks(out, want, kPacked));
}

INSTANTIATE_TEST_SUITE_P(Formats, EmuCvt2xPk16, ::testing::Values(kFp6, kBf6),
                         [](const auto &info) { return info.param == kFp6 ? "Fp6" : "Bf6"; });

TEST(EmuCvtFp6, ScaleFromAnInlineConstantAndExecMask) {
  // Scale 1.0 (b = 127) as an inline constant; lanes 32-63 are off and keep
  // all six destination dwords.
  const ToFp6Case c = toFp6Case(kFp6, 2);
  const Buffer s0 = laneMajor(16, [&](unsigned l, unsigned p) { return bits(c.x[l][2 * p]); });
  const Buffer s1 = laneMajor(16, [&](unsigned l, unsigned p) { return bits(c.x[l][2 * p + 1]); });
  const Buffer init = dstInit(kPacked);
  const Buffer out = runBlocks(R"(
  s_mov_b32 exec_hi, 0
  v_cvt_scalef32_2xpk16_fp6_f32 v[2:7], v[10:25], v[26:41], 1.0
  s_mov_b32 exec_hi, -1)",
                               {2, kPacked, init}, {{10, 16, s0}, {26, 16, s1}});
  Buffer want = expectedPacked(
      kFp6, [&](unsigned l, unsigned i) { return encodeElemRne(kFp6, c.x[l][i], 127); });
  std::copy(init.begin() + 32 * kPacked, init.end(), want.begin() + 32 * kPacked);
  EXPECT_TRUE(sameBlocks(out, want, kPacked));
}

// ---- v_cvt_scalef32_pk32_{fp6,bf6}_{bf16,f16} -------------------------------

struct Pk32From16 {
  ElemFormat fmt;
  bool bf16;
  const char *op;
};
class EmuCvtPk32From16 : public ::testing::TestWithParam<Pk32From16> {};

TEST_P(EmuCvtPk32From16, EveryLaneMatchesNumerics) {
  const ElemFormat fmt = GetParam().fmt;
  const bool bf16 = GetParam().bf16;
  const char *op = GetParam().op;
  const uint64_t seed = testing::testSeed("EmuCvtPk32From16.EveryLaneMatchesNumerics");
  const ToFp6Case c = toFp6Case(fmt, seed);
  // The 16-bit inputs, and the f32 values they stand for.
  std::vector<std::array<uint16_t, kItems>> h(kLanes);
  for (unsigned l = 0; l < kLanes; ++l)
    for (unsigned i = 0; i < kItems; ++i)
      h[l][i] = bf16 ? f32ToBf16(c.x[l][i]) : toF16(c.x[l][i]);
  const Buffer src = laneMajor(16, [&](unsigned l, unsigned r) {
    return uint32_t(h[l][2 * r]) | (uint32_t(h[l][2 * r + 1]) << 16); // element i in dword i/2
  });
  const Buffer out =
      runBlocks(std::string(op) + " v[2:7], v[10:25], v26", {2, kPacked, dstInit(kPacked)},
                {{10, 16, src}, {26, 1, scaleBlock(c.scale, seed)}});
  const Buffer want = expectedPacked(fmt, [&](unsigned l, unsigned i) {
    return encodeElemRne(fmt, bf16 ? bf16ToF32(h[l][i]) : fromF16(h[l][i]), c.scale[l]);
  });
  EXPECT_TRUE(sameBlocks(out, want, kPacked));
  // Negative control: high and low halves swapped within each dword.
  const Buffer wrong = expectedPacked(fmt, [&](unsigned l, unsigned i) {
    const uint16_t x = h[l][i ^ 1];
    return encodeElemRne(fmt, bf16 ? bf16ToF32(x) : fromF16(x), c.scale[l]);
  });
  EXPECT_FALSE(sameBlocks(out, wrong, kPacked));
}

INSTANTIATE_TEST_SUITE_P(Forms, EmuCvtPk32From16,
                         ::testing::Values(Pk32From16{kFp6, true, "v_cvt_scalef32_pk32_fp6_bf16"},
                                           Pk32From16{kFp6, false, "v_cvt_scalef32_pk32_fp6_f16"},
                                           Pk32From16{kBf6, true, "v_cvt_scalef32_pk32_bf6_bf16"},
                                           Pk32From16{kBf6, false, "v_cvt_scalef32_pk32_bf6_f16"}),
                         [](const auto &info) { return std::string(info.param.op).substr(15); });

// ---- v_cvt_scalef32_pk32_{f32,bf16,f16}_{fp6,bf6} ---------------------------

enum class Wide { F32, Bf16, F16 };
struct Pk32To {
  ElemFormat fmt;
  Wide out;
  const char *op;
};
class EmuCvtPk32FromFp6 : public ::testing::TestWithParam<Pk32To> {};

/// Packed inputs: lane 0 holds codes 0-31 (all positive codes), lane 1 codes
/// 32-63 (their negatives), both at scale 127; lanes 2-7 all 64 codes in turn
/// under the NaN scale, b = 0, 254, 1 ...; the rest random bits.
struct FromFp6Case {
  std::vector<uint8_t> scale;
  Buffer src; // lane-major, 6 dwords per lane
};
FromFp6Case fromFp6Case(ElemFormat fmt, uint64_t seed) {
  std::mt19937 rng(uint32_t(seed ^ (seed >> 32)));
  FromFp6Case c;
  c.src.resize(kLanes * kPacked);
  for (unsigned l = 0; l < kLanes; ++l) {
    const uint8_t fixed[] = {127, 127, 0xff, 0, 254, 1, 150, 100};
    c.scale.push_back(l < 8 ? fixed[l] : uint8_t(rng() % 256));
    std::array<uint8_t, kItems> codes;
    for (unsigned i = 0; i < kItems; ++i)
      codes[i] = l < 8 ? uint8_t((32 * (l % 2) + i) & 0x3f) : uint8_t(rng() & 0x3f);
    const auto d = packed(fmt, codes);
    std::copy(d.begin(), d.end(), c.src.begin() + l * kPacked);
  }
  return c;
}

uint32_t wideBits(Wide out, float v) {
  return out == Wide::F32 ? bits(v) : out == Wide::Bf16 ? f32ToBf16(v) : toF16(v);
}

TEST_P(EmuCvtPk32FromFp6, EveryLaneMatchesNumerics) {
  const ElemFormat fmt = GetParam().fmt;
  const Wide out = GetParam().out;
  const char *op = GetParam().op;
  const uint64_t seed = testing::testSeed("EmuCvtPk32FromFp6.EveryLaneMatchesNumerics");
  const FromFp6Case c = fromFp6Case(fmt, seed);
  const unsigned dwords = out == Wide::F32 ? 32 : 16;
  const std::string body = std::string(op) + " " + vrange(2, dwords) + ", v[40:45], v46";
  const Buffer got = runBlocks(body, {2, dwords, dstInit(dwords)},
                               {{40, kPacked, c.src}, {46, 1, scaleBlock(c.scale, seed)}});
  Buffer want(kLanes * dwords, 0);
  for (unsigned l = 0; l < kLanes; ++l) {
    const auto codes = unpacked(fmt, &c.src[l * kPacked]);
    for (unsigned i = 0; i < kItems; ++i) {
      const uint32_t v = wideBits(out, dequantElem(fmt, codes[i], c.scale[l]));
      if (out == Wide::F32)
        want[l * dwords + i] = v;
      else
        want[l * dwords + i / 2] |= v << (16 * (i % 2)); // element i: dword i/2, even low
    }
  }
  EXPECT_TRUE(sameBlocks(got, want, dwords));

  // By hand, lane 0 at scale 127: code 1 is the smallest subnormal, code 31
  // the largest value; lane 1 item 0 is code 32, -0.
  const float tiny = fmt == kFp6 ? 0.125f : 0.0625f, max = fmt == kFp6 ? 7.5f : 28.0f;
  if (out == Wide::F32) {
    EXPECT_EQ(flt(got[1]), tiny);
    EXPECT_EQ(flt(got[31]), max);
    EXPECT_EQ(got[32], 0x80000000u);
  } else {
    EXPECT_EQ(got[0] >> 16, wideBits(out, tiny));
    EXPECT_EQ(got[15] >> 16, wideBits(out, max));
    EXPECT_EQ(got[16] & 0xffff, 0x8000u);
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, EmuCvtPk32FromFp6,
                         ::testing::Values(Pk32To{kFp6, Wide::F32, "v_cvt_scalef32_pk32_f32_fp6"},
                                           Pk32To{kBf6, Wide::F32, "v_cvt_scalef32_pk32_f32_bf6"},
                                           Pk32To{kFp6, Wide::Bf16, "v_cvt_scalef32_pk32_bf16_fp6"},
                                           Pk32To{kBf6, Wide::Bf16, "v_cvt_scalef32_pk32_bf16_bf6"},
                                           Pk32To{kFp6, Wide::F16, "v_cvt_scalef32_pk32_f16_fp6"},
                                           Pk32To{kBf6, Wide::F16, "v_cvt_scalef32_pk32_f16_bf6"}),
                         [](const auto &info) { return std::string(info.param.op).substr(15); });

class EmuCvtFp6RoundTrip : public ::testing::TestWithParam<ElemFormat> {};

TEST_P(EmuCvtFp6RoundTrip, Pk32ThroughBf16) {
  // fp6 -> bf16 -> fp6 gives the codes back: every fp6 value times 2^(b-127)
  // is exact in bf16 for b <= 250 (b = 0 gives bf16 subnormals).
  const ElemFormat fmt = GetParam();
  const uint64_t seed = testing::testSeed("EmuCvtFp6RoundTrip.Pk32ThroughBf16");
  FromFp6Case c = fromFp6Case(fmt, seed);
  for (unsigned l = 0; l < kLanes; ++l)
    c.scale[l] = l == 2 ? 0 : l == 4 ? 250 : c.scale[l] % 251;
  const std::string to16 =
      fmt == kFp6 ? "v_cvt_scalef32_pk32_bf16_fp6" : "v_cvt_scalef32_pk32_bf16_bf6";
  const std::string to6 =
      fmt == kFp6 ? "v_cvt_scalef32_pk32_fp6_bf16" : "v_cvt_scalef32_pk32_bf6_bf16";
  const Buffer got = runBlocks(to16 + " v[10:25], v[2:7], v8\n  " + to6 + " v[26:31], v[10:25], v8",
                               {26, kPacked, dstInit(kPacked)},
                               {{2, kPacked, c.src}, {8, 1, scaleBlock(c.scale, seed)}});
  EXPECT_TRUE(sameBlocks(got, c.src, kPacked));
}

INSTANTIATE_TEST_SUITE_P(Formats, EmuCvtFp6RoundTrip, ::testing::Values(kFp6, kBf6),
                         [](const auto &info) { return info.param == kFp6 ? "Fp6" : "Bf6"; });

// ---- v_cvt_scalef32_sr_pk32_{fp6,bf6}_f32 -----------------------------------

class EmuCvtSrPk32 : public ::testing::TestWithParam<ElemFormat> {};

TEST_P(EmuCvtSrPk32, SeedAdvancesByPrngPerItem) {
  // ISA op 596: item 0 rounds with the seed, item i with v_prng_b32 applied
  // i times; the seed register is not written.
  const ElemFormat fmt = GetParam();
  const uint64_t seed = testing::testSeed("EmuCvtSrPk32.SeedAdvancesByPrngPerItem");
  const ToFp6Case c = toFp6Case(fmt, seed);
  std::mt19937 rng(uint32_t(seed >> 7));
  const Buffer src = laneMajor(32, [&](unsigned l, unsigned i) { return bits(c.x[l][i]); });
  // Lane 0's seed is 0, a fixed point of v_prng_b32: plain truncation.
  const Buffer seeds =
      laneMajor(1, [&](unsigned l, unsigned) { return l == 0 ? 0u : uint32_t(rng()); });
  const std::string op =
      fmt == kFp6 ? "v_cvt_scalef32_sr_pk32_fp6_f32" : "v_cvt_scalef32_sr_pk32_bf6_f32";
  const Buffer out = runBlocks(op + " v[2:7], v[10:41], v42, v43", {2, kPacked, dstInit(kPacked)},
                               {{10, 32, src}, {42, 1, seeds}, {43, 1, scaleBlock(c.scale, seed)}});
  auto expect = [&](bool advance) {
    return expectedPacked(fmt, [&](unsigned l, unsigned i) {
      uint32_t r = seeds[l];
      for (unsigned k = 0; advance && k < i; ++k)
        r = prngNext(r);
      return encodeElemSr(fmt, c.x[l][i], c.scale[l], r);
    });
  };
  EXPECT_TRUE(sameBlocks(out, expect(true), kPacked));
  // Negative control: one random word for all 32 items is caught.
  EXPECT_FALSE(sameBlocks(out, expect(false), kPacked));
  // Seed 0 truncates: 1.1875 -> 1.125 (E2M3 code 9), 1.375 -> 1.25 (E3M2 0x0d).
  const auto lane0 = unpacked(fmt, &out[0]);
  EXPECT_EQ(lane0[9], fmt == kFp6 ? 0x09 : 0x0d);
}

INSTANTIATE_TEST_SUITE_P(Formats, EmuCvtSrPk32, ::testing::Values(kFp6, kBf6),
                         [](const auto &info) { return info.param == kFp6 ? "Fp6" : "Bf6"; });

TEST(EmuCvtFp6, SrFrom16BitSourcesIsNotModelled) {
  // numerics' stochastic rounding is defined for f32 sources only; the 16-bit
  // forms must stop the run, not guess.
  AsmKernel k;
  k.body = "  v_cvt_scalef32_sr_pk32_fp6_bf16 v[0:5], v[6:21], v22, v23\n";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  EXPECT_FALSE(stats.ok());
}

} // namespace
} // namespace mxf::emu::test
