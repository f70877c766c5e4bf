//===- test_mfma.cpp - bf16 and scaled MFMA: layouts and the sum model ----===//
//
// The tests build A, B, C as matrices, place them into lanes with the
// layout formulas of GFX950_SEMANTICS.md §C8/§C9 (written out again here,
// independently of emulator/mfma.cpp), run the instruction, and read D back
// with the same formulas. Expected values: exact sum of all products and C,
// rounded once (the documented model, §C9).
//
//===----------------------------------------------------------------------===//

#include "emu_harness.h"

#include "numerics/exact_accumulator.h"
#include "numerics/formats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace mxf::emu::test {
namespace {

/// D row held by lane l in accumulator register r (§C8).
unsigned dRow(unsigned n, unsigned l, unsigned r) {
  return n == 16 ? 4 * (l / 16) + r : 8 * (r / 4) + 4 * (l / 32) + r % 4;
}

struct Bf16Result {
  std::vector<float> d; // [n][n]
  std::string error;
};

/// Runs v_mfma_f32_{n}x{n}x{k}_bf16 on row-major A [n][k], B [k][n], C [n][n].
Bf16Result runBf16(unsigned n, const std::vector<uint16_t> &A, const std::vector<uint16_t> &B,
                   const std::vector<float> &C, bool agpr) {
  const unsigned k = n == 16 ? 32 : 16, regs = n * n / 64;
  Buffer a(64 * 4), b(64 * 4), c(64 * regs), d(64 * regs, 0);
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned t = 0; t < 8; ++t) {
      const unsigned kk = 8 * (l / n) + t, row = l % n;
      a[4 * l + t / 2] |= uint32_t(A[row * k + kk]) << (16 * (t % 2));
      b[4 * l + t / 2] |= uint32_t(B[kk * n + row]) << (16 * (t % 2));
    }
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned r = 0; r < regs; ++r)
      c[regs * l + r] = bits(C[dRow(n, l, r) * n + l % n]);
  AsmKernel kernel;
  kernel.agprs = agpr ? 16 : 0;
  std::string body = std::string(kPrologue) + R"(
  v_lshlrev_b32 v2, 4, v0
  global_load_dwordx4 v[10:13], v2, s[6:7]
  global_load_dwordx4 v[14:17], v2, s[8:9]
)";
  const std::string D = n == 16 ? "[20:23]" : "[20:35]";
  body += n == 16 ? "  v_lshlrev_b32 v3, 4, v0\n" : "  v_lshlrev_b32 v3, 6, v0\n";
  for (unsigned q = 0; q < regs / 4; ++q)
    body += "  global_load_dwordx4 v[" + std::to_string(20 + 4 * q) + ":" +
            std::to_string(23 + 4 * q) + "], v3, s[10:11] offset:" + std::to_string(16 * q) + "\n";
  body += "  s_waitcnt vmcnt(0)\n";
  const std::string shape = n == 16 ? "16x16x32" : "32x32x16";
  if (agpr) {
    for (unsigned r = 0; r < regs; ++r)
      body += "  v_accvgpr_write_b32 a" + std::to_string(r) + ", v" + std::to_string(20 + r) + "\n";
    body += "  v_mfma_f32_" + shape + "_bf16 a[0:" + std::to_string(regs - 1) + "], v[10:13], v[14:17], a[0:" +
            std::to_string(regs - 1) + "]\n  s_nop 15\n";
    for (unsigned r = 0; r < regs; ++r)
      body += "  v_accvgpr_read_b32 v" + std::to_string(20 + r) + ", a" + std::to_string(r) + "\n";
  } else {
    body += "  v_mfma_f32_" + shape + "_bf16 v" + D + ", v[10:13], v[14:17], v" + D + "\n  s_nop 15\n";
  }
  for (unsigned q = 0; q < regs / 4; ++q)
    body += "  global_store_dwordx4 v3, v[" + std::to_string(20 + 4 * q) + ":" +
            std::to_string(23 + 4 * q) + "], s[4:5] offset:" + std::to_string(16 * q) + "\n";
  kernel.body = body;
  Bf16Result result;
  auto stats = runAsm(kernel, {&d, &a, &b, &c});
  if (!stats.ok()) {
    result.error = stats.error();
    return result;
  }
  result.d.assign(n * n, 0);
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned r = 0; r < regs; ++r)
      result.d[dRow(n, l, r) * n + l % n] = flt(d[regs * l + r]);
  return result;
}

void checkBf16(unsigned n, bool agpr, uint32_t seed) {
  const unsigned k = n == 16 ? 32 : 16;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<uint16_t> A(n * k), B(k * n);
  std::vector<float> C(n * n);
  for (auto &v : A) v = f32ToBf16(float(small(rng)) * 0.5f);
  for (auto &v : B) v = f32ToBf16(float(small(rng)));
  for (auto &v : C) v = float(small(rng)) * 0.25f;
  Bf16Result r = runBf16(n, A, B, C, agpr);
  ASSERT_TRUE(r.error.empty()) << r.error;
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j) {
      double want = C[i * n + j];
      for (unsigned kk = 0; kk < k; ++kk)
        want += double(bf16ToF32(A[i * k + kk])) * bf16ToF32(B[kk * n + j]);
      ASSERT_EQ(r.d[i * n + j], float(want)) << "D[" << i << "][" << j << "]";
    }
}

TEST(EmuMfma, Bf16_16x16x32_Layout) { checkBf16(16, false, 1); }
TEST(EmuMfma, Bf16_16x16x32_Agpr) { checkBf16(16, true, 2); }
TEST(EmuMfma, Bf16_32x32x16_Layout) { checkBf16(32, false, 3); }
TEST(EmuMfma, Bf16_32x32x16_Agpr) { checkBf16(32, true, 4); }

TEST(EmuMfma, Bf16ExactSumThenOneRounding) {
  // Row 0: C = 1, products 2^24, -2^24, and 2^-30 terms: sequential f32
  // summation would lose the small terms; the model keeps them exactly and
  // rounds once (1 + 32 * 2^-30 rounds to 1 + 2^-25 -> 1 in f32... so use a
  // sum that lands between two floats).
  const unsigned n = 16, k = 32;
  std::vector<uint16_t> A(n * k, 0), B(k * n, 0);
  std::vector<float> C(n * n, 0.0f);
  C[0] = 1.0f;
  A[0] = f32ToBf16(16777216.0f);
  B[0] = f32ToBf16(1.0f);
  A[1] = f32ToBf16(-16777216.0f);
  B[1 * n] = f32ToBf16(1.0f);
  A[2] = f32ToBf16(std::ldexp(1.0f, -24)); // 2^-24 * 1 + 1 = 1 + 2^-24: a tie
  B[2 * n] = f32ToBf16(1.0f);
  A[3] = f32ToBf16(std::ldexp(1.0f, -40)); // breaks the tie upwards
  B[3 * n] = f32ToBf16(1.0f);
  Bf16Result r = runBf16(n, A, B, C, false);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.d[0], std::nextafter(1.0f, 2.0f)); // exact: 1 + 2^-24 + 2^-40
}

TEST(EmuMfma, InlineZeroAccumulator) {
  AsmKernel kernel;
  kernel.body = std::string(kPrologue) + R"(
  v_mov_b32 v10, 0x3f803f80
  v_mov_b32 v11, 0x3f803f80
  v_mov_b32 v12, 0x3f803f80
  v_mov_b32 v13, 0x3f803f80
  v_mfma_f32_16x16x32_bf16 v[20:23], v[10:13], v[10:13], 0
  s_nop 7
  global_store_dword v1, v22, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(kernel, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(flt(out[0]), 32.0f);
  EXPECT_EQ(stats.value().mfmaCount, 1u);
}

TEST(EmuMfma, IgnoresExec) {
  AsmKernel kernel;
  kernel.body = std::string(kPrologue) + R"(
  v_mov_b32 v10, 0x3f803f80
  v_mov_b32 v11, 0x3f803f80
  v_mov_b32 v12, 0x3f803f80
  v_mov_b32 v13, 0x3f803f80
  s_mov_b64 s[12:13], exec
  s_mov_b64 exec, 1
  v_mfma_f32_16x16x32_bf16 v[20:23], v[10:13], v[10:13], 0
  s_nop 7
  s_mov_b64 exec, s[12:13]
  global_store_dword v1, v23, s[4:5]
)";
  Buffer out(64, 0);
  auto stats = runAsm(kernel, {&out});
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(flt(out[63]), 32.0f);
}

// --- Scaled MFMA -------------------------------------------------------------

struct Fmt {
  ElemFormat format;
  unsigned bits;
  const char *name;
};
const Fmt kFormats[] = {{ElemFormat::E4M3, 8, "fp8"},
                        {ElemFormat::E5M2, 8, "bf8"},
                        {ElemFormat::E2M3, 6, "fp6"},
                        {ElemFormat::E3M2, 6, "bf6"},
                        {ElemFormat::E2M1, 4, "fp4"}};

/// K of item t in lane group g (§C9 data layout).
unsigned itemK(unsigned n, unsigned bits, unsigned g, unsigned t) {
  if (bits != 8)
    return 32 * g + t;
  return t < 16 ? 16 * g + t : (n == 16 ? 64 : 32) + 16 * g + (t - 16);
}

/// Packs items into a lane's `bits`-VGPR tuple (dense bit string).
void packItem(uint32_t *dwords, unsigned bits, unsigned t, uint8_t code) {
  const unsigned first = bits * t;
  const uint64_t v = uint64_t(code) << (first % 32);
  dwords[first / 32] |= uint32_t(v);
  if ((first % 32) + bits > 32)
    dwords[first / 32 + 1] |= uint32_t(v >> 32);
}

uint8_t randomCode(std::mt19937 &rng, const Fmt &f) {
  std::uniform_int_distribution<int> any(0, (1 << f.bits) - 1);
  for (;;) {
    const uint8_t code = uint8_t(any(rng));
    if (std::isfinite(decodeElem(f.format, code)))
      return code;
  }
}

struct ScaledCase {
  unsigned n, fa, fb, byteA, byteB;
};

void checkScaled(const ScaledCase &c, uint32_t seed) {
  const Fmt &fa = kFormats[c.fa], &fb = kFormats[c.fb];
  const unsigned n = c.n, K = n == 16 ? 128 : 64, regs = n * n / 64;
  std::mt19937 rng(seed);
  std::vector<uint8_t> A(n * K), B(K * n);
  for (auto &v : A) v = randomCode(rng, fa);
  for (auto &v : B) v = randomCode(rng, fb);
  std::uniform_int_distribution<int> scaleDist(118, 136);
  // Scale bytes: lane x + n*kb holds row/col x's block kb in byte byteA/byteB;
  // other bytes get noise that must be ignored.
  Buffer sa = lanes([&](unsigned) { return uint32_t(rng()); });
  Buffer sb = lanes([&](unsigned) { return uint32_t(rng()); });
  std::vector<int> scaleA(64), scaleB(64);
  for (unsigned l = 0; l < 64; ++l) {
    scaleA[l] = scaleDist(rng);
    scaleB[l] = scaleDist(rng);
    sa[l] = (sa[l] & ~(0xffu << (8 * c.byteA))) | (uint32_t(scaleA[l]) << (8 * c.byteA));
    sb[l] = (sb[l] & ~(0xffu << (8 * c.byteB))) | (uint32_t(scaleB[l]) << (8 * c.byteB));
  }
  Buffer a(64 * 8, 0), b(64 * 8, 0), cc(64 * regs), d(64 * regs, 0);
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned t = 0; t < 32; ++t) {
      const unsigned row = l % n, g = l / n;
      packItem(&a[8 * l], fa.bits, t, A[row * K + itemK(n, fa.bits, g, t)]);
      packItem(&b[8 * l], fb.bits, t, B[itemK(n, fb.bits, g, t) * n + row]);
    }
  std::vector<float> C(n * n);
  for (auto &v : C) v = float(int(rng() % 17) - 8);
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned r = 0; r < regs; ++r)
      cc[regs * l + r] = bits(C[dRow(n, l, r) * n + l % n]);

  auto range = [](unsigned first, unsigned count) {
    return "[" + std::to_string(first) + ":" + std::to_string(first + count - 1) + "]";
  };
  std::string body = std::string(kPrologue) + R"(
  s_load_dwordx4 s[12:15], s[0:1], 0x20
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v2, 5, v0
  global_load_dwordx4 v[10:13], v2, s[6:7]
  global_load_dwordx4 v[14:17], v2, s[6:7] offset:16
  global_load_dwordx4 v[20:23], v2, s[8:9]
  global_load_dwordx4 v[24:27], v2, s[8:9] offset:16
  global_load_dword v30, v1, s[12:13]
  global_load_dword v31, v1, s[14:15]
)";
  body += n == 16 ? "  v_lshlrev_b32 v3, 4, v0\n" : "  v_lshlrev_b32 v3, 6, v0\n";
  for (unsigned q = 0; q < regs / 4; ++q)
    body += "  global_load_dwordx4 v" + range(40 + 4 * q, 4) + ", v3, s[10:11] offset:" +
            std::to_string(16 * q) + "\n";
  body += "  s_waitcnt vmcnt(0)\n";
  const std::string shape = n == 16 ? "16x16x128" : "32x32x64";
  body += "  v_mfma_scale_f32_" + shape + "_f8f6f4 v" + range(40, regs) + ", v" +
          range(10, fa.bits) + ", v" + range(20, fb.bits) + ", v" + range(40, regs) +
          ", v30, v31 op_sel:[" + std::to_string(c.byteA & 1) + "," + std::to_string(c.byteB & 1) +
          ",0] op_sel_hi:[" + std::to_string(c.byteA >> 1) + "," + std::to_string(c.byteB >> 1) +
          ",0] cbsz:" + std::to_string(c.fa) + " blgp:" + std::to_string(c.fb) + "\n  s_nop 15\n";
  for (unsigned q = 0; q < regs / 4; ++q)
    body += "  global_store_dwordx4 v3, v" + range(40 + 4 * q, 4) + ", s[4:5] offset:" +
            std::to_string(16 * q) + "\n";
  AsmKernel kernel;
  kernel.body = body;
  auto stats = runAsm(kernel, {&d, &a, &b, &cc, &sa, &sb});
  ASSERT_TRUE(stats.ok()) << stats.error();

  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j) {
      ExactAccumulator acc;
      acc.add(C[i * n + j]);
      for (unsigned k = 0; k < K; ++k) {
        const unsigned kb = k / 32;
        const int e = scaleA[i + n * kb] + scaleB[j + n * kb] - 254;
        acc.add(std::ldexp(decodeElem(fa.format, A[i * K + k]) * decodeElem(fb.format, B[k * n + j]), e));
      }
      const float want = acc.roundToF32();
      unsigned lane = 0, reg = 0;
      for (unsigned l = 0; l < 64; ++l)
        for (unsigned r = 0; r < regs; ++r)
          if (l % n == j && dRow(n, l, r) == i) {
            lane = l;
            reg = r;
          }
      ASSERT_EQ(flt(d[regs * lane + reg]), want)
          << shape << " " << fa.name << " x " << fb.name << " D[" << i << "][" << j << "]";
    }
}

class EmuScaledMfma : public ::testing::TestWithParam<ScaledCase> {};
TEST_P(EmuScaledMfma, LayoutScalesAndExactSum) {
  const ScaledCase &c = GetParam();
  checkScaled(c, 100 * c.fa + 10 * c.fb + c.n);
}

std::vector<ScaledCase> scaledCases() {
  std::vector<ScaledCase> out;
  for (unsigned n : {16u, 32u})
    for (unsigned fa = 0; fa < 5; ++fa)
      for (unsigned fb = 0; fb < 5; ++fb)
        out.push_back({n, fa, fb, (fa + fb) % 4, (fa + 2 * fb + n / 16) % 4});
  return out;
}
std::string scaledName(const ::testing::TestParamInfo<ScaledCase> &info) {
  const ScaledCase &c = info.param;
  return std::string(c.n == 16 ? "m16x16x128_" : "m32x32x64_") + kFormats[c.fa].name + "_" +
         kFormats[c.fb].name;
}
INSTANTIATE_TEST_SUITE_P(Formats, EmuScaledMfma, ::testing::ValuesIn(scaledCases()), scaledName);

} // namespace
} // namespace mxf::emu::test
