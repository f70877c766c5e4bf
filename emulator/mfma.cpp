//===- mfma.cpp - Matrix instructions: bf16 and scaled f8f6f4 MFMA --------===//
//
// Layouts per GFX950_SEMANTICS.md §C8 (bf16) and §C9 (scaled). Numerics: the
// documented MODEL, pending validation on hardware (§G1): every product of
// the instruction's chunk and C are summed exactly and rounded once to f32,
// nearest even (numerics' ExactAccumulator / fusedSumF32, the same definition
// the reference uses). Matrix instructions ignore EXEC. Broadcast controls
// (CBSZ/ABID/BLGP on the bf16 forms) are not modelled and stop the run.
//
//===----------------------------------------------------------------------===//

#include "emulator/opcode_table.h"
#include "emulator/operands.h"

#include "numerics/exact_accumulator.h"
#include "numerics/formats.h"

#include <cmath>
#include <vector>

namespace mxf::emu {

namespace {

using S = Status;

/// Geometry of one MFMA shape: N x N output, K per instruction.
struct Shape {
  unsigned n; // 16 or 32
  unsigned k;
};

/// Row (of D) held by lane `lane`, accumulator register `r` (§C8/§C9).
unsigned dRow(const Shape &shape, unsigned lane, unsigned r) {
  if (shape.n == 16)
    return 4 * (lane / 16) + r;
  return 8 * (r / 4) + 4 * (lane / 32) + (r % 4);
}

/// C values per (lane, register): registers, or a broadcast constant.
void readAccumulator(const Wave &w, const Operand &c, unsigned regs, std::vector<float> &out) {
  out.resize(size_t(regs) * kWaveSize);
  for (unsigned r = 0; r < regs; ++r)
    for (unsigned l = 0; l < kWaveSize; ++l)
      out[r * kWaveSize + l] =
          asFloat(c.isVector() ? w.lanes(c, r)[l] : readScalar32(w, c, 0));
}

/// v_mfma_f32_{16x16x32,32x32x16}_bf16 D, A, B, C.
template <unsigned N> S mfmaBf16(Wave &w, const Instruction &in) {
  const uint32_t w0 = in.words[0], w1 = in.words[1];
  const unsigned cbsz = (w0 >> 8) & 7, abid = (w0 >> 11) & 0xf, blgp = (w1 >> 29) & 7;
  if (cbsz || abid || blgp)
    return S::failure("MFMA broadcast controls (cbsz/abid/blgp) are not modelled");
  const Shape shape{N, N == 16 ? 32u : 16u};
  const unsigned regs = N * N / kWaveSize; // 4 or 16
  const Operand &a = in.src(0), &b = in.src(1), &c = in.src(2);
  if (a.count != 4 || b.count != 4 || in.dst().count != regs)
    return S::failure("unexpected MFMA operand sizes");
  // A[i][k], B[k][j] as floats (bf16 items t of a lane: VGPR t/2, half t%2).
  std::vector<double> A(N * shape.k), B(shape.k * N);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const unsigned row = l % N, g = l / N;
    for (unsigned t = 0; t < 8; ++t) {
      const unsigned k = 8 * g + t;
      const uint16_t av = uint16_t(w.lanes(a, t / 2)[l] >> (16 * (t % 2)));
      const uint16_t bv = uint16_t(w.lanes(b, t / 2)[l] >> (16 * (t % 2)));
      A[row * shape.k + k] = bf16ToF32(av);
      B[k * N + row] = bf16ToF32(bv);
    }
  }
  std::vector<float> C;
  readAccumulator(w, c, regs, C);
  std::vector<double> terms(shape.k);
  std::vector<uint32_t> D(size_t(regs) * kWaveSize);
  for (unsigned r = 0; r < regs; ++r)
    for (unsigned l = 0; l < kWaveSize; ++l) {
      const unsigned i = dRow(shape, l, r), j = l % N;
      for (unsigned k = 0; k < shape.k; ++k)
        terms[k] = A[i * shape.k + k] * B[k * N + j]; // exact: 8-bit significands
      D[r * kWaveSize + l] = asBits(fusedSumF32(C[r * kWaveSize + l], terms.data(), shape.k));
    }
  for (unsigned r = 0; r < regs; ++r)
    std::memcpy(w.lanes(in.dst(), r), &D[r * kWaveSize], 4 * kWaveSize);
  ++w.stats.mfma;
  return S::success();
}

/// Element types of the unscaled MFMA forms.
enum class Elem { F16, F32, Fp8, Bf8, I8 };

constexpr unsigned elemBits(Elem e) {
  return e == Elem::F32 ? 32 : e == Elem::F16 ? 16 : 8;
}

double elemValue(Elem e, uint32_t bits) {
  switch (e) {
  case Elem::F16: {
    const uint32_t sign = (bits >> 15) & 1, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
    double v = exponent == 0 ? std::ldexp(double(mantissa), -24)
               : exponent == 31 ? (mantissa ? std::nan("") : INFINITY)
                                : std::ldexp(double(mantissa | 0x400), int(exponent) - 25);
    return sign ? -v : v;
  }
  case Elem::F32: return double(asFloat(bits));
  case Elem::Fp8: return decodeElem(ElemFormat::E4M3, uint8_t(bits));
  case Elem::Bf8: return decodeElem(ElemFormat::E5M2, uint8_t(bits));
  case Elem::I8: return double(int8_t(uint8_t(bits)));
  }
  return 0;
}

/// The unscaled f16, f32, fp8/bf8 and i8 forms, N x N x K: lane l holds row
/// (or column) l % N and the K/(64/N) consecutive items of K-group l / N
/// (the bf16 forms' layout, §C8; the AMD matrix instruction calculator's
/// for these shapes), items packed little-endian in its VGPRs. f32 results:
/// the exact sum rounded once (the MODEL above; f32 x f32 products are exact
/// in double). i32 results: the integer sum, wrapping modulo 2^32.
template <unsigned N, unsigned K, Elem EA, Elem EB> S mfmaPlain(Wave &w, const Instruction &in) {
  const uint32_t w0 = in.words[0], w1 = in.words[1];
  const unsigned cbsz = (w0 >> 8) & 7, abid = (w0 >> 11) & 0xf, blgp = (w1 >> 29) & 7;
  if (cbsz || abid || blgp)
    return S::failure("MFMA broadcast controls (cbsz/abid/blgp) are not modelled");
  constexpr unsigned kItems = K * N / kWaveSize; // items of one lane
  constexpr unsigned kDwordsA = (kItems * elemBits(EA) + 31) / 32;
  constexpr unsigned kDwordsB = (kItems * elemBits(EB) + 31) / 32;
  constexpr unsigned kRegs = N * N / kWaveSize;
  const Operand &a = in.src(0), &b = in.src(1), &c = in.src(2);
  if (a.count != kDwordsA || b.count != kDwordsB || in.dst().count != kRegs)
    return S::failure("unexpected MFMA operand sizes");
  auto itemOf = [&](const Operand &op, Elem e, unsigned lane, unsigned t) -> uint32_t {
    const unsigned bits = elemBits(e), first = bits * t;
    const uint32_t dword = w.lanes(op, first / 32)[lane];
    return bits == 32 ? dword : (dword >> (first % 32)) & ((1u << bits) - 1);
  };
  std::vector<double> A(N * K), B(K * N);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const unsigned row = l % N, g = l / N;
    for (unsigned t = 0; t < kItems; ++t) {
      const unsigned k = kItems * g + t;
      A[row * K + k] = elemValue(EA, itemOf(a, EA, l, t));
      B[k * N + row] = elemValue(EB, itemOf(b, EB, l, t));
    }
  }
  const Shape shape{N, K};
  std::vector<uint32_t> D(size_t(kRegs) * kWaveSize);
  if constexpr (EA == Elem::I8) {
    for (unsigned r = 0; r < kRegs; ++r)
      for (unsigned l = 0; l < kWaveSize; ++l) {
        const unsigned i = dRow(shape, l, r), j = l % N;
        int64_t sum = int32_t(c.isVector() ? w.lanes(c, r)[l] : readScalar32(w, c, 0));
        for (unsigned k = 0; k < K; ++k)
          sum += int64_t(A[i * K + k]) * int64_t(B[k * N + j]);
        D[r * kWaveSize + l] = uint32_t(sum);
      }
  } else {
    std::vector<float> C;
    readAccumulator(w, c, kRegs, C);
    std::vector<double> terms(K);
    for (unsigned r = 0; r < kRegs; ++r)
      for (unsigned l = 0; l < kWaveSize; ++l) {
        const unsigned i = dRow(shape, l, r), j = l % N;
        for (unsigned k = 0; k < K; ++k)
          terms[k] = A[i * K + k] * B[k * N + j];
        D[r * kWaveSize + l] = asBits(fusedSumF32(C[r * kWaveSize + l], terms.data(), K));
      }
  }
  for (unsigned r = 0; r < kRegs; ++r)
    std::memcpy(w.lanes(in.dst(), r), &D[r * kWaveSize], 4 * kWaveSize);
  ++w.stats.mfma;
  return S::success();
}

struct MxFormat {
  ElemFormat format;
  unsigned bits;
};

bool mxFormat(unsigned code, MxFormat &out) {
  switch (code) {
  case 0: out = {ElemFormat::E4M3, 8}; return true;
  case 1: out = {ElemFormat::E5M2, 8}; return true;
  case 2: out = {ElemFormat::E2M3, 6}; return true;
  case 3: out = {ElemFormat::E3M2, 6}; return true;
  case 4: out = {ElemFormat::E2M1, 4}; return true;
  default: return false;
  }
}

/// Item t (0..31) of a lane's packed operand: a dense little-endian bit
/// string over the operand's dwords (§A "Packing").
uint8_t item(const Wave &w, const Operand &op, unsigned lane, unsigned bits, unsigned t) {
  const unsigned first = bits * t;
  uint64_t window = 0;
  const unsigned dword = first / 32;
  window = w.lanes(op, dword)[lane];
  if (dword + 1 < op.count)
    window |= uint64_t(w.lanes(op, dword + 1)[lane]) << 32;
  return uint8_t((window >> (first % 32)) & ((1u << bits) - 1));
}

/// K index of item t for lane group g (§C9 data layout table).
unsigned itemK(unsigned n, unsigned bits, unsigned g, unsigned t) {
  if (bits != 8)
    return 32 * g + t;
  const unsigned half = n == 16 ? 64 : 32; // second half of K for t >= 16
  return t < 16 ? 16 * g + t : half + 16 * g + (t - 16);
}

/// v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4 D, A, B, C, scaleA, scaleB.
template <unsigned N> S mfmaScaled(Wave &w, const Instruction &in) {
  if (in.size != 16)
    return S::failure("a scaled MFMA must be one 16-byte instruction");
  const uint32_t s0 = in.words[0], s1 = in.words[1]; // the load-scale VOP3P word
  const uint32_t m0 = in.words[2], m1 = in.words[3]; // the MFMA word
  const unsigned cbsz = (m0 >> 8) & 7, abid = (m0 >> 11) & 0xf, blgp = (m1 >> 29) & 7;
  MxFormat fa, fb;
  if (!mxFormat(cbsz, fa) || !mxFormat(blgp, fb))
    return S::failure("cbsz/blgp " + std::to_string(cbsz) + "/" + std::to_string(blgp) +
                      " is not an MX format (0..4)");
  const unsigned opsel = (s0 >> 11) & 7, opselHi = (s1 >> 27) & 3;
  const unsigned byteA = ((opselHi & 1) << 1) | (opsel & 1);
  const unsigned byteB = (((opselHi >> 1) & 1) << 1) | ((opsel >> 1) & 1);
  const bool useScales = abid & 1; // ABID[0]=0: scales forced to 127
  const Operand &a = in.src(0), &b = in.src(1), &c = in.src(2);
  const Operand &scaleA = in.src(3), &scaleB = in.src(4);
  if (a.count != fa.bits || b.count != fb.bits)
    return S::failure("A/B register counts " + std::to_string(a.count) + "/" +
                      std::to_string(b.count) + " do not match the formats (8/6/4 VGPRs)");
  const unsigned K = N == 16 ? 128 : 64;
  const unsigned regs = N * N / kWaveSize;
  std::vector<double> A(N * K), B(K * N);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const unsigned row = l % N, g = l / N;
    for (unsigned t = 0; t < 32; ++t) {
      A[row * K + itemK(N, fa.bits, g, t)] = decodeElem(fa.format, item(w, a, l, fa.bits, t));
      B[itemK(N, fb.bits, g, t) * N + row] = decodeElem(fb.format, item(w, b, l, fb.bits, t));
    }
  }
  // Scale of row/column x for K-block kb: lane x + N*kb, selected byte.
  auto scale = [&](const Operand &op, unsigned x, unsigned kb, unsigned byte) -> int {
    if (!useScales)
      return 127;
    const uint32_t v = op.isVector() ? w.lanes(op, 0)[x + N * kb] : readScalar32(w, op);
    return int((v >> (8 * byte)) & 0xff);
  };
  std::vector<float> C;
  readAccumulator(w, c, regs, C);
  const Shape shape{N, K};
  std::vector<uint32_t> D(size_t(regs) * kWaveSize);
  for (unsigned r = 0; r < regs; ++r)
    for (unsigned l = 0; l < kWaveSize; ++l) {
      const unsigned i = dRow(shape, l, r), j = l % N;
      ExactAccumulator acc;
      acc.add(double(C[r * kWaveSize + l]));
      for (unsigned kb = 0; kb < K / 32; ++kb) {
        const int sa = scale(scaleA, i, kb, byteA), sb = scale(scaleB, j, kb, byteB);
        if (sa == 0xff || sb == 0xff) {
          acc.add(std::numeric_limits<double>::quiet_NaN()); // NaN scale (§C9 ⚠U)
          continue;
        }
        const int exponent = sa + sb - 254;
        for (unsigned k = 32 * kb; k < 32 * kb + 32; ++k)
          acc.add(std::ldexp(A[i * K + k] * B[k * N + j], exponent));
      }
      D[r * kWaveSize + l] = asBits(acc.roundToF32());
    }
  for (unsigned r = 0; r < regs; ++r)
    std::memcpy(w.lanes(in.dst(), r), &D[r * kWaveSize], 4 * kWaveSize);
  ++w.stats.mfma;
  return S::success();
}

} // namespace

void registerMfma(OpRegistry &r) {
  r.add("v_mfma_f32_16x16x32_bf16", mfmaBf16<16>);
  r.add("v_mfma_f32_32x32x16_bf16", mfmaBf16<32>);
  r.add("v_mfma_f32_16x16x32_f16", mfmaPlain<16, 32, Elem::F16, Elem::F16>);
  r.add("v_mfma_f32_32x32x16_f16", mfmaPlain<32, 16, Elem::F16, Elem::F16>);
  r.add("v_mfma_f32_16x16x4f32", mfmaPlain<16, 4, Elem::F32, Elem::F32>);
  r.add("v_mfma_f32_32x32x2f32", mfmaPlain<32, 2, Elem::F32, Elem::F32>);
  r.add("v_mfma_i32_16x16x64_i8", mfmaPlain<16, 64, Elem::I8, Elem::I8>);
  r.add("v_mfma_i32_32x32x32_i8", mfmaPlain<32, 32, Elem::I8, Elem::I8>);
  r.add("v_mfma_f32_16x16x32_fp8_fp8", mfmaPlain<16, 32, Elem::Fp8, Elem::Fp8>);
  r.add("v_mfma_f32_16x16x32_fp8_bf8", mfmaPlain<16, 32, Elem::Fp8, Elem::Bf8>);
  r.add("v_mfma_f32_16x16x32_bf8_fp8", mfmaPlain<16, 32, Elem::Bf8, Elem::Fp8>);
  r.add("v_mfma_f32_16x16x32_bf8_bf8", mfmaPlain<16, 32, Elem::Bf8, Elem::Bf8>);
  r.add("v_mfma_f32_32x32x16_fp8_fp8", mfmaPlain<32, 16, Elem::Fp8, Elem::Fp8>);
  r.add("v_mfma_f32_32x32x16_fp8_bf8", mfmaPlain<32, 16, Elem::Fp8, Elem::Bf8>);
  r.add("v_mfma_f32_32x32x16_bf8_fp8", mfmaPlain<32, 16, Elem::Bf8, Elem::Fp8>);
  r.add("v_mfma_f32_32x32x16_bf8_bf8", mfmaPlain<32, 16, Elem::Bf8, Elem::Bf8>);
  r.add("v_mfma_scale_f32_16x16x128_f8f6f4", mfmaScaled<16>);
  r.add("v_mfma_scale_f32_32x32x64_f8f6f4", mfmaScaled<32>);
}

} // namespace mxf::emu
