//===- test_valu_float.cpp - f32 VALU instructions and the division macro -===//

#include "emu_harness.h"

#include "numerics/formats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace mxf::emu::test {
namespace {

/// Runs `op` on v2..v4 (f32 bit patterns) -> v5.
Buffer runOp(const std::string &op, const Buffer &a, const Buffer &b, const Buffer &c,
             std::string *error = nullptr) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  global_load_dword v2, v1, s[6:7]
  global_load_dword v3, v1, s[8:9]
  global_load_dword v4, v1, s[10:11]
  v_mov_b32 v5, 0
  s_waitcnt vmcnt(0)
)" + op + R"(
  global_store_dword v1, v5, s[4:5]
)";
  Buffer out(64, 0), ia = a, ib = b, ic = c;
  auto stats = runAsm(k, {&out, &ia, &ib, &ic});
  if (error)
    *error = stats.ok() ? "" : stats.error();
  else
    EXPECT_TRUE(stats.ok()) << stats.error();
  return out;
}

Buffer floats(uint32_t seed, float scale = 10.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  Buffer b = lanes([&](unsigned) { return bits(normal(rng)); });
  b[0] = bits(0.0f);
  b[1] = bits(-0.0f);
  b[2] = bits(std::numeric_limits<float>::infinity());
  b[3] = bits(std::numeric_limits<float>::quiet_NaN());
  b[4] = bits(1e-40f); // denormal
  return b;
}

bool sameFloat(uint32_t x, uint32_t y) {
  const bool nx = std::isnan(flt(x)), ny = std::isnan(flt(y));
  return nx || ny ? nx && ny : x == y;
}

struct FloatCase {
  const char *name;
  const char *op;
  float (*ref)(float a, float b, float c);
};

class EmuValuF32 : public ::testing::TestWithParam<FloatCase> {};

TEST_P(EmuValuF32, MatchesIeee) {
  const FloatCase &c = GetParam();
  const Buffer a = floats(1), b = floats(2), cc = floats(3, 0.5f);
  const Buffer out = runOp(c.op, a, b, cc);
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t want = bits(c.ref(flt(a[l]), flt(b[l]), flt(cc[l])));
    ASSERT_TRUE(sameFloat(out[l], want))
        << c.op << " lane " << l << ": got " << flt(out[l]) << " want " << flt(want);
  }
}

float ieeeMax(float a, float b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
float maximum(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
  return ieeeMax(a, b);
}

const FloatCase kFloatCases[] = {
    {"add", "v_add_f32 v5, v2, v3", [](float a, float b, float) { return a + b; }},
    {"sub", "v_sub_f32 v5, v2, v3", [](float a, float b, float) { return a - b; }},
    {"subrev", "v_subrev_f32 v5, v2, v3", [](float a, float b, float) { return b - a; }},
    {"mul", "v_mul_f32 v5, v2, v3", [](float a, float b, float) { return a * b; }},
    {"mul_e64_neg", "v_mul_f32_e64 v5, -v2, v3", [](float a, float b, float) { return -a * b; }},
    {"fma", "v_fma_f32 v5, v2, v3, v4",
     [](float a, float b, float c) { return std::fma(a, b, c); }},
    {"fma_neg_const", "v_fma_f32 v5, -v2, v3, 1.0",
     [](float a, float b, float) { return std::fma(-a, b, 1.0f); }},
    {"fmac", "v_mov_b32 v5, v4\n v_fmac_f32 v5, v2, v3",
     [](float a, float b, float c) { return std::fma(a, b, c); }},
    {"max", "v_max_f32 v5, v2, v3", [](float a, float b, float) { return ieeeMax(a, b); }},
    {"maximum3_abs", "v_maximum3_f32 v5, |v2|, |v3|, |v4|",
     [](float a, float b, float c) {
       return maximum(maximum(std::fabs(a), std::fabs(b)), std::fabs(c));
     }},
    {"maximum3", "v_maximum3_f32 v5, v2, v3, v4",
     [](float a, float b, float c) { return maximum(maximum(a, b), c); }},
    {"rcp", "v_rcp_f32 v5, v2", [](float a, float, float) { return 1.0f / a; }},
    {"sqrt", "v_sqrt_f32 v5, |v2|", [](float a, float, float) { return std::sqrt(std::fabs(a)); }},
    {"clamp", "v_add_f32_e64 v5, v2, v3 clamp",
     [](float a, float b, float) {
       const float r = a + b;
       return std::isnan(r) ? 0.0f : std::fmin(std::fmax(r, 0.0f), 1.0f);
     }},
    {"omod_mul2", "v_add_f32_e64 v5, v2, v3 mul:2",
     [](float a, float b, float) { return (a + b) * 2.0f; }},
    {"omod_div2", "v_mul_f32_e64 v5, v2, v3 div:2",
     [](float a, float b, float) { return (a * b) * 0.5f; }},
    {"inline_half", "v_mul_f32 v5, 0.5, v2", [](float a, float, float) { return 0.5f * a; }},
    {"inline_neg4", "v_mul_f32 v5, -4.0, v2", [](float a, float, float) { return -4.0f * a; }},
    {"inline_inv2pi", "v_mul_f32 v5, 0.15915494, v2",
     [](float a, float, float) { return 0.15915494f * a; }},
    {"literal", "v_mul_f32 v5, 0x40490fdb, v2",
     [](float a, float, float) { return 3.14159274f * a; }},
    {"cvt_f32_u32", "v_cvt_f32_u32 v5, v2",
     [](float a, float, float) { return float(bits(a)); }},
    {"cvt_i32_f32", "v_cvt_i32_f32 v5, v2",
     [](float a, float, float) {
       int32_t r = std::isnan(a) ? 0 : a >= 2147483648.0f ? INT32_MAX
                 : a <= -2147483648.0f ? INT32_MIN : int32_t(a);
       return flt(uint32_t(r));
     }},
    {"cvt_pk_bf16", "v_cvt_pk_bf16_f32 v5, v2, v3",
     [](float a, float b, float) {
       return flt(uint32_t(f32ToBf16(a)) | (uint32_t(f32ToBf16(b)) << 16));
     }},
    {"cvt_f32_bf16", "v_cvt_f32_bf16 v5, v2",
     [](float a, float, float) { return flt(bits(a) << 16); }},
    {"ldexp", "v_ldexp_f32 v5, v2, 7", [](float a, float, float) { return std::ldexp(a, 7); }},
    {"floor", "v_floor_f32 v5, v2", [](float a, float, float) { return std::floor(a); }},
};

std::string caseName(const ::testing::TestParamInfo<FloatCase> &info) { return info.param.name; }
INSTANTIATE_TEST_SUITE_P(Ops, EmuValuF32, ::testing::ValuesIn(kFloatCases), caseName);

/// The division sequence llc emits for an f32 fdiv with denormals enabled.
constexpr const char *kDivide = R"(
  v_div_scale_f32 v12, s[12:13], v3, v3, v2
  v_div_scale_f32 v13, vcc, v2, v3, v2
  v_rcp_f32 v14, v12
  v_fma_f32 v15, -v12, v14, 1.0
  v_fmac_f32 v14, v15, v14
  v_mul_f32 v15, v13, v14
  v_fma_f32 v16, -v12, v15, v13
  v_fmac_f32 v15, v16, v14
  v_fma_f32 v12, -v12, v15, v13
  v_div_fmas_f32 v14, v12, v14, v15
  v_div_fixup_f32 v5, v14, v3, v2
)";

/// Quotients of magnitude 2^192 and more overflow inside the macro (the
/// scaled quotient estimate itself is infinite) and come out NaN by the ISA
/// pseudo-code; such lanes are skipped (docs/emulator.md, "Limits").
void checkDivision(const Buffer &num, const Buffer &den) {
  const Buffer z(64, 0);
  const Buffer out = runOp(kDivide, num, den, z);
  for (unsigned l = 0; l < 64; ++l) {
    const float want = flt(num[l]) / flt(den[l]);
    if (std::isfinite(flt(num[l])) && flt(den[l]) != 0.0f &&
        std::fabs(double(flt(num[l])) / double(flt(den[l]))) >= std::ldexp(1.0, 192))
      continue;
    ASSERT_TRUE(sameFloat(out[l], bits(want)))
        << flt(num[l]) << " / " << flt(den[l]) << ": got " << flt(out[l]) << " want " << want;
  }
}

TEST(EmuDivision, RandomValuesAreCorrectlyRounded) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> expo(-30, 30);
  for (int round = 0; round < 20; ++round) {
    Buffer n = lanes([&](unsigned) { return bits(std::ldexp(mant(rng), expo(rng))); });
    Buffer d = lanes([&](unsigned) { return bits(std::ldexp(mant(rng), expo(rng))); });
    checkDivision(n, d);
  }
}

TEST(EmuDivision, NearPowersOfTwo) {
  Buffer n = lanes([](unsigned l) {
    const float base = std::ldexp(1.0f, int(l % 16) - 8);
    return bits(std::nextafter(base, l % 2 ? 0.0f : 1e30f));
  });
  Buffer d = lanes([](unsigned l) {
    const float values[] = {6.0f, 3.0f, 7.0f, 1.0f, 0.75f, 1.5f, 4.0f, 5.0f};
    return bits(std::nextafter(values[l % 8], (l / 8) % 2 ? 0.0f : 100.0f));
  });
  checkDivision(n, d);
  Buffer sixes(64, bits(6.0f));
  checkDivision(n, sixes); // the RCEIL scale rule's amax / 6
}

TEST(EmuDivision, ExtremeRanges) {
  // Quotients that overflow, reach the denormal range, or need the
  // numerator/denominator scaling of v_div_scale_f32.
  const float nums[] = {3e38f, 1e-38f, 1e-45f, 2.5e-40f, 1e30f, 1e-30f, 7.0f, -5.0f};
  const float dens[] = {1e-10f, 3e38f, 3.0f, 1e-39f, 1e-20f, 1e20f, 1e-40f, 3e-41f};
  Buffer n = lanes([&](unsigned l) { return bits(nums[l % 8] * (1 + (l / 8) * 0.1f)); });
  Buffer d = lanes([&](unsigned l) { return bits(dens[(l / 8) % 8] * (l % 2 ? -1.0f : 1.0f)); });
  checkDivision(n, d);
}

TEST(EmuDivision, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(),
              nan = std::numeric_limits<float>::quiet_NaN();
  const float values[] = {0.0f, -0.0f, inf, -inf, nan, 1.0f, -2.0f, 1e-45f};
  Buffer n = lanes([&](unsigned l) { return bits(values[l % 8]); });
  Buffer d = lanes([&](unsigned l) { return bits(values[l / 8]); });
  checkDivision(n, d);
}

TEST(EmuValuF32, MaxPrefersPositiveZero) {
  const Buffer a(64, bits(-0.0f)), b(64, bits(0.0f)), z(64, 0);
  const Buffer out = runOp("v_max_f32 v5, v2, v3", a, b, z);
  EXPECT_EQ(out[0], bits(0.0f));
  const Buffer out2 = runOp("v_maximum3_f32 v5, v2, v3, v2", a, b, z);
  EXPECT_EQ(out2[0], bits(0.0f));
}

TEST(EmuValuF32, CmpClass) {
  const Buffer a = floats(9), z(64, 0);
  const Buffer out = runOp("v_mov_b32 v6, 0x3fc\n v_cmp_class_f32 vcc, v2, v6\n v_cndmask_b32 v5, 0, 1, vcc", a, z, z);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], std::isnan(flt(a[l])) ? 0u : 1u) << l; // 0x3fc: all but NaNs
}

} // namespace
} // namespace mxf::emu::test
