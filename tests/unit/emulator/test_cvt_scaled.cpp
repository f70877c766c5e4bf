//===- test_cvt_scaled.cpp - v_cvt_scalef32_* and v_prng_b32 --------------===//
//
// Expected values come from numerics/ (encodeElemRne, encodeElemSr,
// dequantElem, prngNext): the emulator must agree with the reference on
// every input, including the special cases of GFX950_SEMANTICS.md §C2.
//
//===----------------------------------------------------------------------===//

#include "emu_harness.h"

#include "numerics/formats.h"
#include "numerics/stochastic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace mxf::emu::test {
namespace {


Buffer interesting(uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  const float specials[] = {0.0f, -0.0f, 0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 6.0f,
                            7.0f, -5.0f, 100.0f, std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), 1e-40f, -0.2f};
  return lanes([&](unsigned l) {
    return l < std::size(specials) ? bits(specials[l]) : bits(normal(rng));
  });
}

Buffer scales(uint32_t seed) {
  std::mt19937 rng(seed);
  const uint8_t bytes[] = {127, 126, 128, 0, 1, 254, 0xff, 120};
  return lanes([&](unsigned l) {
    const uint8_t b = l < 8 ? bytes[l] : uint8_t(118 + rng() % 20);
    return (uint32_t(b) << 23) | (rng() & 0x807fffffu); // sign/mantissa are ignored
  });
}

uint8_t scaleOf(uint32_t bits) { return uint8_t((bits >> 23) & 0xff); }

class EmuCvtPkFp4Byte : public ::testing::TestWithParam<unsigned> {};

TEST_P(EmuCvtPkFp4Byte, WritesOneByteAndKeepsTheRest) {
  const unsigned byte = GetParam();
  const Buffer a = interesting(1), b = interesting(2), s = scales(3);
  const Buffer init = lanes([](unsigned l) { return 0xa5a5a5a5u ^ (l * 0x01000193u); });
  const std::string opsel = "op_sel:[0,0," + std::to_string(byte & 1) + "," +
                            std::to_string(byte >> 1) + "]";
  const Buffer out = runLaneOp("v_cvt_scalef32_pk_fp4_f32 v5, v2, v3, v4 " + opsel, a, b, s, init);
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t lo = encodeElemRne(ElemFormat::E2M1, flt(a[l]), scaleOf(s[l]));
    const uint32_t hi = encodeElemRne(ElemFormat::E2M1, flt(b[l]), scaleOf(s[l]));
    const uint32_t mask = 0xffu << (8 * byte);
    EXPECT_EQ(out[l], (init[l] & ~mask) | (((hi << 4) | lo) << (8 * byte))) << "lane " << l;
  }
}
INSTANTIATE_TEST_SUITE_P(Bytes, EmuCvtPkFp4Byte, ::testing::Values(0u, 1u, 2u, 3u));

TEST(EmuCvtScaled, FourConvertsFillADword) {
  const Buffer a = interesting(4), b = interesting(5), s = scales(6);
  const Buffer out = runLaneOp(R"(
  v_cvt_scalef32_pk_fp4_f32 v5, v2, v3, v4
  s_nop 0
  v_cvt_scalef32_pk_fp4_f32 v5, v3, v2, v4 op_sel:[0,0,1,0]
  s_nop 0
  v_cvt_scalef32_pk_fp4_f32 v5, -v2, v3, v4 op_sel:[0,0,0,1]
  s_nop 0
  v_cvt_scalef32_pk_fp4_f32 v5, |v3|, v2, v4 op_sel:[0,0,1,1])", a, b, s, Buffer(64, 0));
  for (unsigned l = 0; l < 64; ++l) {
    const uint8_t sc = scaleOf(s[l]);
    auto enc = [&](float x) { return uint32_t(encodeElemRne(ElemFormat::E2M1, x, sc)); };
    const float x = flt(a[l]), y = flt(b[l]);
    const uint32_t want = (enc(x) | enc(y) << 4) | (enc(y) | enc(x) << 4) << 8 |
                          (enc(-x) | enc(y) << 4) << 16 | (enc(std::fabs(y)) | enc(x) << 4) << 24;
    EXPECT_EQ(out[l], want) << "lane " << l;
  }
}

TEST(EmuCvtScaled, SpecialValuesFollowC2) {
  // NaN/Inf -> +-6 (code 7), NaN scale -> +-6, -0 -> 0x8, 6.5 -> 6, 0.25 -> 0.
  const float inf = std::numeric_limits<float>::infinity(),
              nan = std::numeric_limits<float>::quiet_NaN();
  const Buffer a = lanes([&](unsigned l) {
    const float v[] = {nan, inf, -inf, -0.0f, 6.5f, 0.25f, 0.75f, 2.5f};
    return bits(v[l % 8]);
  });
  const Buffer s = lanes([](unsigned l) { return l < 56 ? 127u << 23 : 0xffu << 23; });
  const Buffer out = runLaneOp("v_cvt_scalef32_pk_fp4_f32 v5, v2, v2, v4", a, a, s, Buffer(64, 0));
  const uint8_t want[] = {7, 7, 15, 8, 7, 0, 2, 4}; // ties to even: 0.75 -> 1.0, 2.5 -> 2.0
  for (unsigned l = 0; l < 56; ++l)
    EXPECT_EQ(out[l] & 0xf, want[l % 8]) << "lane " << l;
  for (unsigned l = 56; l < 64; ++l)
    EXPECT_EQ(out[l] & 0x7, 7u) << "NaN scale, lane " << l;
}

TEST(EmuCvtScaled, ExecMaskedLanesKeepTheirValue) {
  const Buffer a = interesting(7), s = scales(8), init(64, 0x12345678u);
  const Buffer out = runLaneOp(R"(
  s_mov_b32 exec_hi, 0
  v_cvt_scalef32_pk_fp4_f32 v5, v2, v2, v4
  s_mov_b32 exec_hi, -1)", a, a, s, init);
  for (unsigned l = 32; l < 64; ++l)
    EXPECT_EQ(out[l], 0x12345678u);
}

TEST(EmuCvtScaled, PkF32Fp4Dequantizes) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  global_load_dword v2, v1, s[6:7]
  global_load_dword v4, v1, s[8:9]
  s_waitcnt vmcnt(0)
  v_cvt_scalef32_pk_f32_fp4 v[6:7], v2, v4 op_sel:[1,1,0]
  v_lshlrev_b32 v3, 3, v0
  global_store_dwordx2 v3, v[6:7], s[4:5]
)";
  Buffer codes = lanes([](unsigned l) { return (l * 0x9e3779b9u); });
  Buffer s = scales(9), out(128, 0);
  auto stats = runAsm(k, {&out, &codes, &s});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l) {
    const uint8_t byte = uint8_t(codes[l] >> 24);
    const float lo = dequantElem(ElemFormat::E2M1, byte & 0xf, scaleOf(s[l]));
    const float hi = dequantElem(ElemFormat::E2M1, byte >> 4, scaleOf(s[l]));
    EXPECT_TRUE(out[2 * l] == bits(lo) || (std::isnan(lo) && std::isnan(flt(out[2 * l])))) << l;
    EXPECT_TRUE(out[2 * l + 1] == bits(hi) || (std::isnan(hi) && std::isnan(flt(out[2 * l + 1])))) << l;
  }
}

TEST(EmuCvtScaled, RoundTripThroughPackAndUnpack) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  global_load_dword v2, v1, s[6:7]
  global_load_dword v3, v1, s[8:9]
  s_waitcnt vmcnt(0)
  v_mov_b32 v4, 0x3f800000
  v_mov_b32 v5, 0
  v_cvt_scalef32_pk_fp4_f32 v5, v2, v3, v4 op_sel:[0,0,0,1]
  s_nop 0
  v_cvt_scalef32_pk_f32_fp4 v[6:7], v5, v4 op_sel:[0,1,0]
  v_lshlrev_b32 v8, 3, v0
  global_store_dwordx2 v8, v[6:7], s[4:5]
)";
  const float grid[] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  Buffer a = lanes([&](unsigned l) { return bits(grid[l % 8] * (l & 8 ? -1.0f : 1.0f)); });
  Buffer b = lanes([&](unsigned l) { return bits(grid[(l / 2) % 8]); });
  Buffer out(128, 0);
  auto stats = runAsm(k, {&out, &a, &b});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(flt(out[2 * l]), flt(a[l])) << l;
    EXPECT_EQ(out[2 * l + 1], b[l]) << l;
  }
}

TEST(EmuCvtScaled, StochasticPkFp4UsesSeedThenPrng) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  global_load_dword v2, v1, s[6:7]
  global_load_dword v3, v1, s[8:9]
  global_load_dword v10, v1, s[10:11]
  s_waitcnt vmcnt(0)
  v_mov_b32 v4, 0x3f000000
  v_mov_b32 v5, 0
  v_cvt_scalef32_sr_pk_fp4_f32 v5, v[2:3], v10, v4 op_sel:[0,0,1,0]
  s_nop 0
  global_store_dword v1, v5, s[4:5]
)";
  Buffer a = interesting(10), b = interesting(11);
  Buffer seed = lanes([](unsigned l) { return 0x12345u * (l + 1) * 2654435761u; });
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out, &a, &b, &seed});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t lo = encodeElemSr(ElemFormat::E2M1, flt(a[l]), 126, seed[l]);
    const uint32_t hi = encodeElemSr(ElemFormat::E2M1, flt(b[l]), 126, prngNext(seed[l]));
    EXPECT_EQ(out[l], ((hi << 4) | lo) << 8) << "lane " << l;
  }
}

TEST(EmuCvtScaled, PkFp4FromBf16) {
  const Buffer x = lanes([](unsigned l) {
    return uint32_t(f32ToBf16(float(l) * 0.37f - 9.0f)) |
           (uint32_t(f32ToBf16(float(l) * -0.11f)) << 16);
  });
  const Buffer s = scales(12);
  const Buffer out = runLaneOp("v_cvt_scalef32_pk_fp4_bf16 v5, v2, v4 op_sel:[0,0,0,1]", x, x, s,
                           Buffer(64, 0));
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t lo = encodeElemRne(ElemFormat::E2M1, bf16ToF32(uint16_t(x[l])), scaleOf(s[l]));
    const uint32_t hi = encodeElemRne(ElemFormat::E2M1, bf16ToF32(uint16_t(x[l] >> 16)), scaleOf(s[l]));
    EXPECT_EQ(out[l], ((hi << 4) | lo) << 16) << l;
  }
}

TEST(EmuCvtScaled, PkFp8F32WritesAWord) {
  const Buffer a = interesting(13), b = interesting(14), s = scales(15), init(64, 0xdead0000u);
  const Buffer out = runLaneOp("v_cvt_scalef32_pk_fp8_f32 v5, v2, v3, v4", a, b, s, init);
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t lo = encodeElemRne(ElemFormat::E4M3, flt(a[l]), scaleOf(s[l]));
    const uint32_t hi = encodeElemRne(ElemFormat::E4M3, flt(b[l]), scaleOf(s[l]));
    EXPECT_EQ(out[l], 0xdead0000u | (hi << 8) | lo) << l;
  }
}

TEST(EmuCvtScaled, Prng) {
  const Buffer a = lanes([](unsigned l) { return l * 0x9e3779b9u; });
  const Buffer out = runLaneOp("v_prng_b32 v5, v2", a, a, a, Buffer(64, 0));
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], prngNext(a[l]));
}

} // namespace
} // namespace mxf::emu::test
