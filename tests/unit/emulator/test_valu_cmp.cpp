//===- test_valu_cmp.cpp - v_cmp*, v_cmpx*, v_cndmask ---------------------===//

#include "emu_harness.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace mxf::emu::test {
namespace {

/// Runs `op`, which must leave a lane mask in s[20:21]; returns the mask.
uint64_t runMask(const std::string &op, const Buffer &a, const Buffer &b,
                 const std::string &execSetup = "") {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  global_load_dword v2, v1, s[6:7]
  global_load_dword v3, v1, s[8:9]
  v_mov_b32 v4, 0
  s_waitcnt vmcnt(0)
)" + execSetup + op + R"(
  s_mov_b64 exec, -1
  v_mov_b32 v5, s20
  v_mov_b32 v6, s21
  global_store_dword v1, v5, s[4:5]
  global_store_dword v1, v6, s[4:5] offset:256
)";
  Buffer out(128, 0), ia = a, ib = b;
  auto stats = runAsm(k, {&out, &ia, &ib});
  EXPECT_TRUE(stats.ok()) << stats.error();
  return out[0] | (uint64_t(out[64]) << 32);
}

Buffer values(uint32_t seed) {
  return lanes([seed](unsigned l) { return ((l * 7 + seed) % 13) * 0x10000001u + (l % 3); });
}

template <typename F> uint64_t expected(const Buffer &a, const Buffer &b, F f, uint64_t exec = ~0ull) {
  uint64_t m = 0;
  for (unsigned l = 0; l < 64; ++l)
    if ((exec >> l) & 1 && f(a[l], b[l]))
      m |= 1ull << l;
  return m;
}

struct CmpCase {
  const char *name;
  const char *cmp;
  bool (*ref)(uint32_t, uint32_t);
};

class EmuCmp : public ::testing::TestWithParam<CmpCase> {};

TEST_P(EmuCmp, E32WritesVcc) {
  const CmpCase &c = GetParam();
  const Buffer a = values(1), b = values(5);
  EXPECT_EQ(runMask(std::string(c.cmp) + "_e32 vcc, v2, v3\n s_mov_b64 s[20:21], vcc\n", a, b),
            expected(a, b, c.ref));
}

TEST_P(EmuCmp, E64WritesSgprPairAndZeroesInactiveLanes) {
  const CmpCase &c = GetParam();
  const Buffer a = values(2), b = values(3);
  const uint64_t exec = 0xf0f0f0f00ff00ff0ull;
  const std::string setup = "s_mov_b32 exec_lo, 0x0ff00ff0\n s_mov_b32 exec_hi, 0xf0f0f0f0\n"
                            "s_mov_b64 s[20:21], -1\n";
  EXPECT_EQ(runMask(std::string(c.cmp) + "_e64 s[20:21], v2, v3\n", a, b, setup),
            expected(a, b, c.ref, exec));
}

const CmpCase kCmpCases[] = {
    {"eq_u32", "v_cmp_eq_u32", [](uint32_t a, uint32_t b) { return a == b; }},
    {"ne_u32", "v_cmp_ne_u32", [](uint32_t a, uint32_t b) { return a != b; }},
    {"lt_u32", "v_cmp_lt_u32", [](uint32_t a, uint32_t b) { return a < b; }},
    {"gt_u32", "v_cmp_gt_u32", [](uint32_t a, uint32_t b) { return a > b; }},
    {"le_u32", "v_cmp_le_u32", [](uint32_t a, uint32_t b) { return a <= b; }},
    {"ge_u32", "v_cmp_ge_u32", [](uint32_t a, uint32_t b) { return a >= b; }},
    {"lt_i32", "v_cmp_lt_i32", [](uint32_t a, uint32_t b) { return int32_t(a) < int32_t(b); }},
    {"gt_i32", "v_cmp_gt_i32", [](uint32_t a, uint32_t b) { return int32_t(a) > int32_t(b); }},
    {"lt_f32", "v_cmp_lt_f32", [](uint32_t a, uint32_t b) { return flt(a) < flt(b); }},
    {"neq_f32", "v_cmp_neq_f32", [](uint32_t a, uint32_t b) { return !(flt(a) == flt(b)); }},
};
std::string cmpName(const ::testing::TestParamInfo<CmpCase> &info) { return info.param.name; }
INSTANTIATE_TEST_SUITE_P(Ops, EmuCmp, ::testing::ValuesIn(kCmpCases), cmpName);

TEST(EmuCmp, U64Compares) {
  const Buffer a = values(4), b = values(6);
  // Compare {a, b} as one u64 per lane against the constant 0x0000000300000002.
  const uint64_t got = runMask(R"(
  s_mov_b32 s22, 2
  s_mov_b32 s23, 3
  v_cmp_gt_u64_e64 s[20:21], v[2:3], s[22:23]
)", a, b);
  uint64_t want = 0;
  for (unsigned l = 0; l < 64; ++l)
    if (((uint64_t(b[l]) << 32) | a[l]) > 0x0000000300000002ull)
      want |= 1ull << l;
  EXPECT_EQ(got, want);
  const uint64_t eq =
      runMask("v_mov_b32 v4, 0\nv_mov_b32 v5, 0\nv_cmp_eq_u64_e64 s[20:21], 0, v[4:5]\n", a, b);
  EXPECT_EQ(eq, ~0ull); // v[4:5] is zero in every lane
  // Unwritten, v[4:5] holds the emulator's register poison, not 0.
  EXPECT_EQ(runMask("v_cmp_eq_u64_e64 s[20:21], 0, v[6:7]\n", a, b), 0ull);
}

TEST(EmuCmp, OrderedF32WithNaN) {
  Buffer a = lanes([](unsigned l) {
    return l % 4 == 0 ? bits(std::numeric_limits<float>::quiet_NaN()) : bits(float(l));
  });
  const uint64_t got = runMask("v_cmp_o_f32_e64 s[20:21], v2, v2\n", a, a);
  EXPECT_EQ(got, expected(a, a, [](uint32_t x, uint32_t) { return !std::isnan(flt(x)); }));
}

TEST(EmuCmp, CmpxWritesExec) {
  const Buffer a = values(7), b = values(8);
  const uint64_t got = runMask(R"(
  v_cmpx_lt_u32_e64 s[22:23], v2, v3
  s_mov_b64 s[20:21], exec
)", a, b);
  EXPECT_EQ(got, expected(a, b, [](uint32_t x, uint32_t y) { return x < y; }));
}

TEST(EmuCmp, CndmaskE32AndE64) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  v_and_b32 v2, 1, v0
  v_cmp_eq_u32_e32 vcc, 1, v2
  v_cndmask_b32_e32 v3, 10, v0, vcc
  v_cmp_gt_u32_e64 s[12:13], 32, v0
  v_cndmask_b32_e64 v4, v3, -1, s[12:13]
  global_store_dword v1, v4, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(k, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], l < 32 ? ~0u : (l % 2 ? l : 10u)) << l;
}

} // namespace
} // namespace mxf::emu::test
