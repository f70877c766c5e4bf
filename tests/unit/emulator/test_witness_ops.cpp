//===- test_witness_ops.cpp - Instructions the witness corpus brought in ---===//
//
// Hand-computed results for the instructions Triton's gfx950 code objects use
// and our kernels did not (tests/witness): the unscaled MFMA forms (f16, f32,
// fp8, i8), v_rcp_iflag_f32, v_fmamk_f32, v_cvt_pk_f16_f32, v_pk_sub_i16,
// v_cvt_scalef32_pk_bf16_fp8, ds_swizzle_b32, buffer and global atomics, and
// s_setreg of MODE.FP16_OVFL. The MFMA layouts here restate the emulator's
// (lane l: row l % N, K-group l / N); the corpus checks them against an H200.
//
//===----------------------------------------------------------------------===//

#include "emu_harness.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace mxf::emu::test {
namespace {

unsigned dRow(unsigned n, unsigned l, unsigned r) {
  return n == 16 ? 4 * (l / 16) + r : 8 * (r / 4) + 4 * (l / 32) + r % 4;
}

/// Runs `mnemonic` (N x N x K, `bits`-bit elements) on integer-valued A, B
/// and C, encoded by `encode`; returns D row-major, as raw dwords.
std::vector<uint32_t> runPlainMfma(const std::string &mnemonic, unsigned n, unsigned k,
                                   unsigned bits, const std::vector<int> &A,
                                   const std::vector<int> &B, uint32_t (*encode)(int),
                                   std::string &error) {
  const unsigned items = k * n / 64, dwords = (items * bits + 31) / 32, regs = n * n / 64;
  Buffer a(64 * 4, 0), b(64 * 4, 0), d(64 * regs, 0);
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned t = 0; t < items; ++t) {
      const unsigned kk = items * (l / n) + t, row = l % n, at = bits * t;
      a[4 * l + at / 32] |= encode(A[row * k + kk]) << (at % 32);
      b[4 * l + at / 32] |= encode(B[kk * n + row]) << (at % 32);
    }
  auto range = [](unsigned first, unsigned count) {
    return count == 1 ? std::to_string(first)
                      : "[" + std::to_string(first) + ":" + std::to_string(first + count - 1) + "]";
  };
  AsmKernel kernel;
  std::string body = std::string(kPrologue) + R"(
  v_lshlrev_b32 v2, 4, v0
  global_load_dwordx4 v[10:13], v2, s[6:7]
  global_load_dwordx4 v[14:17], v2, s[8:9]
  s_waitcnt vmcnt(0)
)";
  body += "  " + mnemonic + " v" + range(20, regs) + ", v" + range(10, dwords) + ", v" +
          range(14, dwords) + ", 0\n  s_nop 15\n";
  body += "  v_lshlrev_b32 v3, " + std::to_string(regs == 16 ? 6 : regs == 4 ? 4 : 2) + ", v0\n";
  for (unsigned q = 0; q < regs / 4; ++q)
    body += "  global_store_dwordx4 v3, v[" + std::to_string(20 + 4 * q) + ":" +
            std::to_string(23 + 4 * q) + "], s[4:5] offset:" + std::to_string(16 * q) + "\n";
  kernel.body = body;
  auto stats = runAsm(kernel, {&d, &a, &b});
  std::vector<uint32_t> D(n * n, 0);
  if (!stats.ok()) {
    error = stats.error();
    return D;
  }
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned r = 0; r < regs; ++r)
      D[dRow(n, l, r) * n + l % n] = d[regs * l + r];
  return D;
}

uint32_t encodeF16(int v) { // small integers are exact in f16
  if (v == 0)
    return 0u;
  const uint32_t sign = v < 0 ? 0x8000u : 0u;
  const int m = v < 0 ? -v : v;
  const int e = 31 - __builtin_clz(unsigned(m));
  const uint32_t mantissa = (uint32_t(m) << (10 - e)) & 0x3ff;
  return sign | (uint32_t(e + 15) << 10) | mantissa;
}
uint32_t encodeF32(int v) { return bits(float(v)); }
uint32_t encodeI8(int v) { return uint32_t(uint8_t(int8_t(v))); }
uint32_t encodeFp8(int v) { // E4M3: small integers |v| <= 8 are exact
  if (v == 0)
    return 0;
  const uint32_t sign = v < 0 ? 0x80u : 0u;
  const int m = v < 0 ? -v : v;
  const int e = 31 - __builtin_clz(unsigned(m));
  return sign | (uint32_t(e + 7) << 3) | ((uint32_t(m) << (3 - e)) & 7);
}

void checkPlainMfma(const std::string &mnemonic, unsigned n, unsigned k, unsigned elemBits,
                    uint32_t (*encode)(int), int range, bool integerResult) {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> small(-range, range);
  std::vector<int> A(n * k), B(k * n);
  for (int &v : A) v = small(rng);
  for (int &v : B) v = small(rng);
  std::string error;
  std::vector<uint32_t> D = runPlainMfma(mnemonic, n, k, elemBits, A, B, encode, error);
  ASSERT_TRUE(error.empty()) << mnemonic << ": " << error;
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j) {
      int64_t want = 0;
      for (unsigned kk = 0; kk < k; ++kk)
        want += int64_t(A[i * k + kk]) * B[kk * n + j];
      const uint32_t expected = integerResult ? uint32_t(int32_t(want)) : bits(float(want));
      ASSERT_EQ(D[i * n + j], expected) << mnemonic << " D[" << i << "][" << j << "] seed " << seed;
    }
}

TEST(EmuWitnessOps, MfmaF16_32x32x16) { checkPlainMfma("v_mfma_f32_32x32x16_f16", 32, 16, 16, encodeF16, 16, false); }
TEST(EmuWitnessOps, MfmaF16_16x16x32) { checkPlainMfma("v_mfma_f32_16x16x32_f16", 16, 32, 16, encodeF16, 16, false); }
TEST(EmuWitnessOps, MfmaF32_16x16x4) { checkPlainMfma("v_mfma_f32_16x16x4_f32", 16, 4, 32, encodeF32, 1000, false); }
TEST(EmuWitnessOps, MfmaI8_32x32x32) { checkPlainMfma("v_mfma_i32_32x32x32_i8", 32, 32, 8, encodeI8, 127, true); }
TEST(EmuWitnessOps, MfmaI8_16x16x64) { checkPlainMfma("v_mfma_i32_16x16x64_i8", 16, 64, 8, encodeI8, 127, true); }
TEST(EmuWitnessOps, MfmaFp8_32x32x16) { checkPlainMfma("v_mfma_f32_32x32x16_fp8_fp8", 32, 16, 8, encodeFp8, 8, false); }
TEST(EmuWitnessOps, MfmaFp8_16x16x32) { checkPlainMfma("v_mfma_f32_16x16x32_fp8_fp8", 16, 32, 8, encodeFp8, 8, false); }

Buffer floats(std::initializer_list<float> head, float fill) {
  Buffer b(64, bits(fill));
  unsigned i = 0;
  for (float f : head)
    b[i++] = bits(f);
  return b;
}

TEST(EmuWitnessOps, RcpIflagIsTheReciprocal) {
  const Buffer a = lanes([](unsigned l) { return bits(float(l + 1) * 0.75f); });
  const Buffer out = runLaneOp("v_rcp_iflag_f32 v5, v2", a, a, a);
  for (unsigned l = 0; l < 64; ++l)
    ASSERT_EQ(out[l], bits(1.0f / (float(l + 1) * 0.75f))) << "lane " << l;
}

TEST(EmuWitnessOps, FmamkAndFmaakAreFused) {
  const Buffer a = lanes([](unsigned l) { return bits(1.0f + std::ldexp(float(l), -12)); });
  const Buffer b = lanes([](unsigned l) { return bits(-float(l)); });
  const Buffer mk = runLaneOp("v_fmamk_f32 v5, v2, 0x40400000, v3", a, b, b);
  const Buffer ak = runLaneOp("v_fmaak_f32 v5, v2, v3, 0x40400000", a, b, b);
  for (unsigned l = 0; l < 64; ++l) {
    ASSERT_EQ(mk[l], bits(std::fma(flt(a[l]), 3.0f, flt(b[l])))) << "lane " << l;
    ASSERT_EQ(ak[l], bits(std::fma(flt(a[l]), flt(b[l]), 3.0f))) << "lane " << l;
  }
}

TEST(EmuWitnessOps, CvtPkF16F32RoundsEachHalf) {
  const Buffer a = floats({1.0f, 65504.0f, 1e6f, -2.5f, 1.0f + std::ldexp(1.0f, -11)}, 0.5f);
  const Buffer b = floats({-1.0f, 0.0f, -0.0f, 6.1035156e-05f, 3.0f}, 2.0f);
  const Buffer out = runLaneOp("v_cvt_pk_f16_f32 v5, v2, v3", a, b, b);
  const uint32_t expected[5] = {0xbc003c00u, 0x00007bffu, 0x80007c00u, 0x0400c100u, 0x42003c00u};
  for (unsigned l = 0; l < 5; ++l)
    ASSERT_EQ(out[l], expected[l]) << "lane " << l;
  ASSERT_EQ(out[5], 0x40003800u);
}

TEST(EmuWitnessOps, PkSubI16WrapsEachHalf) {
  const Buffer a = lanes([](unsigned l) { return 0x80000005u + l * 0x00010003u; });
  const Buffer b = lanes([](unsigned l) { return 0x00017fffu + l; });
  const Buffer out = runLaneOp("v_pk_sub_i16 v5, v2, v3", a, b, b);
  for (unsigned l = 0; l < 64; ++l) {
    const uint16_t lo = uint16_t(uint16_t(a[l]) - uint16_t(b[l]));
    const uint16_t hi = uint16_t(uint16_t(a[l] >> 16) - uint16_t(b[l] >> 16));
    ASSERT_EQ(out[l], uint32_t(lo) | (uint32_t(hi) << 16)) << "lane " << l;
  }
}

TEST(EmuWitnessOps, CvtScalef32PkBf16Fp8) {
  // Word 0 of v2: codes 0x38 (1.0) and 0xc4 (-3.0) in E4M3; scale 4.0.
  const Buffer a(64, 0x12ccc438u), scale(64, bits(4.0f));
  const Buffer out = runLaneOp("v_cvt_scalef32_pk_bf16_fp8 v5, v2, v3", a, scale, scale);
  const Buffer hi = runLaneOp("v_cvt_scalef32_pk_bf16_fp8 v5, v2, v3 op_sel:[1,0,0]", a, scale, scale);
  for (unsigned l = 0; l < 64; ++l) {
    ASSERT_EQ(out[l], uint32_t(f32ToBf16(4.0f)) | (uint32_t(f32ToBf16(-12.0f)) << 16));
    // 0xcc = -(1 + 4/8) * 2^2 = -6, 0x12 = (1 + 2/8) * 2^-5: times 4.
    ASSERT_EQ(hi[l], uint32_t(f32ToBf16(-24.0f)) | (uint32_t(f32ToBf16(1.25f / 8.0f)) << 16));
  }
}

TEST(EmuWitnessOps, DsSwizzleBitmaskAndQuadModes) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  v_add_u32 v2, 100, v0
  s_mov_b64 exec, 0xfffffffffffffff7
  ds_swizzle_b32 v3, v2 offset:swizzle(SWAP,16)
  ds_swizzle_b32 v4, v2 offset:swizzle(QUAD_PERM,3,2,1,0)
  ds_swizzle_b32 v5, v2 offset:swizzle(BITMASK_PERM,"00p11")
  s_waitcnt lgkmcnt(0)
  s_mov_b64 exec, -1
  v_lshlrev_b32 v6, 16, v4
  v_or_b32 v3, v3, v6
  v_lshlrev_b32 v7, 4, v0
  global_store_dword v1, v3, s[4:5]
  global_store_dword v1, v5, s[6:7]
)";
  Buffer out(64, 7), out2(64, 7);
  auto stats = runAsm(k, {&out, &out2});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l) {
    if (l == 3)
      continue; // inactive during the swizzles: its v3 was never written
    const unsigned swap = l ^ 16, quad = (l & ~3u) | (3 - (l & 3));
    const uint32_t s = swap == 3 ? 0 : 100 + swap, q = quad == 3 ? 0 : 100 + quad;
    ASSERT_EQ(out[l], s | (q << 16)) << "lane " << l;
    // "00p11": and_mask 0b00011... bit i of the pattern from the left is bit
    // 4-i: 0 -> and 0, 1 -> or 1, p -> keep, i -> invert.
    const unsigned bm = (l & ~31u) | ((l & 0x4) | 0x3);
    ASSERT_EQ(out2[l], bm == 3 ? 0u : 100 + bm) << "lane " << l;
  }
}

TEST(EmuWitnessOps, BufferAndGlobalAtomics) {
  AsmKernel k;
  // Every lane adds lane+1 to counter[l % 4] (buffer_atomic_add, returning
  // with sc0, gfx950's glc), and smax's -(l) into best[l % 2] (global_atomic_smax, returning).
  k.body = std::string(kPrologue) + R"(
  s_mov_b32 s12, s4
  s_and_b32 s13, s5, 0xffff
  s_mov_b32 s14, 16
  s_mov_b32 s15, 0x27000
  v_and_b32 v2, 3, v0
  v_lshlrev_b32 v2, 2, v2
  v_add_u32 v3, 1, v0
  buffer_atomic_add v3, v2, s[12:15], 0 offen sc0
  v_and_b32 v4, 1, v0
  v_lshlrev_b32 v4, 2, v4
  v_sub_u32 v5, 0, v0
  global_atomic_smax v6, v4, v5, s[6:7] sc0
  s_waitcnt vmcnt(0)
  v_or_b32 v7, v3, v6
  global_store_dword v1, v7, s[8:9]
)";
  Buffer counters(4, 1000), best(2, bits(0) | 0x80000000u), seen(64, 0);
  auto stats = runAsm(k, {&counters, &best, &seen});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned c = 0; c < 4; ++c) {
    uint32_t sum = 1000;
    for (unsigned l = c; l < 64; l += 4)
      sum += l + 1;
    EXPECT_EQ(counters[c], sum) << "counter " << c;
  }
  EXPECT_EQ(best[0], 0u);          // max of 0, -2, -4, ...
  EXPECT_EQ(best[1], uint32_t(-1)); // max of -1, -3, ...
  // Lane order within one wave: lane 0 saw 1000 and INT_MIN.
  EXPECT_EQ(seen[0], 1000u | 0x80000000u);
}

TEST(EmuWitnessOps, SetregModeFp16OverflowClampsF16Converts) {
  AsmKernel k;
  k.body = std::string(kPrologue) + R"(
  v_mov_b32 v2, 0x49742400
  v_cvt_f16_f32 v3, v2
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 23, 1), 1
  v_cvt_f16_f32 v4, v2
  s_getreg_b32 s20, hwreg(HW_REG_MODE, 23, 1)
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 23, 1), 0
  v_cvt_f16_f32 v5, v2
  v_lshlrev_b32 v4, 16, v4
  v_or_b32 v3, v3, v4
  v_mov_b32 v6, s20
  v_lshlrev_b32 v6, 31, v6
  v_or_b32 v3, v3, v6
  global_store_dword v1, v3, s[4:5]
  global_store_dword v1, v5, s[6:7]
)";
  Buffer out(64, 0), after(64, 0);
  auto stats = runAsm(k, {&out, &after});
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (unsigned l = 0; l < 64; ++l) {
    ASSERT_EQ(out[l], 0x7c00u | (0x7bffu << 16) | 0x80000000u) << "lane " << l; // 1e6
    ASSERT_EQ(after[l], 0x7c00u) << "lane " << l;
  }
  // Any other MODE change stops the run.
  AsmKernel bad;
  bad.body = std::string(kPrologue) + "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 3\n";
  Buffer none(64, 0);
  auto refused = runAsm(bad, {&none});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("only FP16_OVFL is modelled"), std::string::npos) << refused.error();
}

} // namespace
} // namespace mxf::emu::test
