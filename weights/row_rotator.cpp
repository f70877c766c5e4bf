//===- row_rotator.cpp - The reference rotation, fast ---------------------===//
//
// Every loop here is a plain loop over contiguous arrays without calls or
// early exits, written so that g++ -O3 vectorises it (docs/weights.md says
// which ones it does); no intrinsics, so the file builds for any target.
//
//===----------------------------------------------------------------------===//

#include "weights/row_rotator.h"

#include "numerics/exact_accumulator.h"
#include "numerics/formats.h"
#include "numerics/rotation.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

namespace mxf::weights {
namespace {

constexpr double kUnitRoundoff = 0x1p-53; // u of double

// Error bounds (docs/weights.md, "Why the fast rotation is exact"). For a
// chunk of C products summed in double in any order, with the f32
// accumulator as one more term, |computed - exact| <= C*u*(sum of |terms|)
// to first order; the two roundings of the test itself add 2u|d|. The
// constants below are at least twice those, so second-order terms and the
// rounding of the bound's own computation are covered.
//  - hadamard: a depth-log2(C) butterfly, then one product and one sum:
//    error <= (log2 C + 2) u (h sum|x| + |acc|); 32 u h sum|x| + 8 u |acc|
//    bounds it for C <= 256 (log2 C + 2 <= 10, doubled: 20 < 32).
constexpr double kHadamardSumSlack = 32 * kUnitRoundoff;
constexpr double kAccSlack = 8 * kUnitRoundoff;
//  - dense: sequential sum of C + 1 terms: 2 (C + 4) u (sum|x| max|R| + |acc|).
double denseSlack(int chunk) { return 2.0 * (chunk + 4) * kUnitRoundoff; }

uint32_t bitsOf(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

/// The f32 the exact value rounds to, if [d - e, d + e] (which contains the
/// exact value) rounds to a single f32; `uncertain` says it did not (or e
/// is not finite: Inf/NaN inputs always take the exact path).
inline float roundWithin(double d, double e, uint32_t &uncertain) {
  float lo = float(d - e), hi = float(d + e);
  uncertain |= (bitsOf(lo) ^ bitsOf(hi)) | uint32_t(!(e < std::numeric_limits<double>::max()));
  return lo;
}

/// Binades spanned by the nonzero values of n bf16 numbers (largest minus
/// smallest exponent field, subnormals counted as field 1, whose lsb they
/// share), or a huge number when any is Inf or NaN.
int exponentSpan(const uint16_t *x, int n) {
  int lo = 255, hi = 0, special = 0;
  for (int i = 0; i < n; ++i) {
    const int field = (x[i] >> 7) & 0xFF;
    const bool nonzero = (x[i] & 0x7FFF) != 0;
    const int effective = field > 1 ? field : 1;
    special |= field == 0xFF;
    lo = nonzero && effective < lo ? effective : lo;
    hi = nonzero && effective > hi ? effective : hi;
  }
  if (special)
    return 1 << 20;
  return hi >= lo ? hi - lo : 0;
}

/// exponentSpan over a whole learned matrix (size_t count).
int exponentSpanOf(const uint16_t *x, size_t n) {
  int lo = 255, hi = 0;
  for (size_t i = 0; i < n; ++i) {
    const int field = (x[i] >> 7) & 0xFF;
    if (field == 0xFF)
      return 1 << 20;
    if ((x[i] & 0x7FFF) == 0)
      continue;
    const int effective = field > 1 ? field : 1;
    lo = effective < lo ? effective : lo;
    hi = effective > hi ? effective : hi;
  }
  return hi >= lo ? hi - lo : 0;
}

int log2Of(int powerOfTwo) { return __builtin_ctz(unsigned(powerOfTwo)); }

/// Whether every double operation of the fast paths is exact for a block
/// whose inputs span `spanX` binades and whose matrix entries span `spanR`
/// (docs/weights.md): all values involved (products of two 8-bit
/// significands, their partial sums, the f32 accumulators, which are
/// multiples of the smallest product's lsb and below rs times the largest
/// product) then lie in one window of at most 53 bits, so the double
/// result is the exact sum and its conversion to f32 is the one rounding.
bool fitsInDouble(int spanX, int spanR, int rs) {
  return spanX + spanR + 16 + log2Of(rs) + 2 <= 53;
}

/// In-place Walsh-Hadamard transform (Sylvester order) of n doubles.
void walshHadamard(double *v, int n) {
  for (int h = 1; h < n; h *= 2)
    for (int base = 0; base < n; base += 2 * h)
      for (int i = base; i < base + h; ++i) {
        double a = v[i], b = v[i + h];
        v[i] = a + b;
        v[i + h] = a - b;
      }
}

double sumOfMagnitudes(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += std::fabs(v[i]);
  return s;
}

/// bf16(y) back to f32, as rotateForQuant's inter=bf16 (NaN: quiet, sign kept).
void roundRowToBf16(float *y, size_t k) {
  for (size_t i = 0; i < k; ++i) {
    uint32_t bits = bitsOf(y[i]);
    uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) & 0xFFFF0000u;
    uint32_t quietNaN = (bits | 0x00400000u) & 0xFFFF0000u;
    bool nan = (bits & 0x7FFFFFFFu) > 0x7F800000u;
    uint32_t out = nan ? quietNaN : rounded;
    std::memcpy(&y[i], &out, sizeof out);
  }
}

} // namespace

RotationPlan::RotationPlan(const RotateQuantProblem &p, const uint16_t *r)
    : problem(p), rotation(r) {
  // The fast paths read R[in][out]: an R given as R[out][in] (rconv=xrt) is
  // transposed once here, and the plan's problem says so.
  if (isLearned(p.rotation.kind) && r && p.rotation.convention == RotationConvention::XRt) {
    rotationXR = learnedMatricesXR(p.rotation, p.k, r);
    rotation = r = rotationXR.data();
    problem.rotation.convention = RotationConvention::XR;
  }
  const int rs = p.rotation.rs, chunk = p.rotation.chunk;
  if (p.rotation.kind == RotationKind::Hadamard) {
    hadamardBf16 = hadamardMatrixBf16(rs);
    // Entry (c*chunk + i, j) of the Sylvester matrix has the sign of
    // popcount((c*chunk + i) & j) = popcount(c*chunk & j) + popcount(i & j)
    // (chunk is a power of two: it divides rs). The first factor is this
    // table; the second is the chunk's own transform.
    const double h = double(bf16ToF32(hadamardBf16[0]));
    signedNorm.resize(size_t(rs / chunk) * rs);
    for (int c = 0; c < rs / chunk; ++c)
      for (int j = 0; j < rs; ++j)
        signedNorm[size_t(c) * rs + j] = (__builtin_popcount(unsigned(c * chunk & j)) & 1) ? -h : h;
  } else if (isLearned(p.rotation.kind)) {
    const size_t elements = rotationMatrixElements(p.rotation.kind, rs, p.k);
    const size_t matrixSize = size_t(rs) * rs;
    rDouble.resize(elements);
    rMaxAbs.assign(elements / matrixSize, 0.0);
    rSpan.resize(elements / matrixSize);
    for (size_t m = 0; m < rSpan.size(); ++m)
      rSpan[m] = exponentSpanOf(r + m * matrixSize, matrixSize);
    for (size_t i = 0; i < elements; ++i) {
      rDouble[i] = double(bf16ToF32(r[i]));
      // NaN entries make the bound NaN, which sends every output to the
      // exact path.
      double mag = std::fabs(rDouble[i]);
      double &m = rMaxAbs[i / matrixSize];
      m = (mag > m || std::isnan(mag)) ? mag : m;
    }
  }
}

RowRotator::RowRotator(const RotationPlan &plan) : plan_(plan) {
  const size_t rs = size_t(plan.problem.rotation.rs);
  xDouble_.resize(rs);
  transform_.resize(rs);
  sums_.resize(rs);
  acc_.resize(rs);
  next_.resize(rs);
}

float RowRotator::exactChunk(float acc, const uint16_t *x, const uint16_t *r, int k0, int j) {
  const int rs = plan_.problem.rotation.rs, chunk = plan_.problem.rotation.chunk;
  double terms[256];
  for (int k = 0; k < chunk; ++k) // bf16 x bf16 is exact in double
    terms[k] = double(bf16ToF32(x[k0 + k])) * double(bf16ToF32(r[size_t(k0 + k) * rs + j]));
  ++fallbacks_;
  return fusedSumF32(acc, terms, size_t(chunk));
}

void RowRotator::rotateHadamardBlock(const uint16_t *x, float *y) {
  const int rs = plan_.problem.rotation.rs, chunk = plan_.problem.rotation.chunk;
  const double h = std::fabs(plan_.signedNorm[0]);
  double *xd = xDouble_.data(), *w = transform_.data();
  float *acc = acc_.data(), *next = next_.data();
  for (int i = 0; i < rs; ++i) {
    xd[i] = double(bf16ToF32(x[i]));
    acc[i] = 0.0f;
  }
  // The Hadamard entries are one magnitude: they add no span.
  const bool exact = fitsInDouble(exponentSpan(x, rs), 0, rs);
  for (int c = 0; c < rs / chunk; ++c) {
    const double *xc = xd + c * chunk;
    for (int i = 0; i < chunk; ++i)
      w[i] = xc[i];
    walshHadamard(w, chunk);
    const double *sign = plan_.signedNorm.data() + size_t(c) * rs;
    if (exact) { // every operation exact: one rounding, to f32
      for (int jb = 0; jb < rs; jb += chunk)
        for (int i = 0; i < chunk; ++i)
          next[jb + i] = float(double(acc[jb + i]) + sign[jb + i] * w[i]);
      std::swap(acc, next);
      continue;
    }
    const double chunkSlack = kHadamardSumSlack * h * sumOfMagnitudes(xc, chunk);
    uint32_t uncertain = 0;
    for (int jb = 0; jb < rs; jb += chunk)
      for (int i = 0; i < chunk; ++i) {
        const int j = jb + i;
        const double d = double(acc[j]) + sign[j] * w[i];
        const double e = chunkSlack + kAccSlack * std::fabs(double(acc[j]));
        next[j] = roundWithin(d, e, uncertain);
      }
    if (uncertain) // rare: redo the undecided outputs exactly
      for (int j = 0; j < rs; ++j) {
        uint32_t undecided = 0;
        const double d = double(acc[j]) + sign[j] * w[j % chunk];
        roundWithin(d, chunkSlack + kAccSlack * std::fabs(double(acc[j])), undecided);
        if (undecided)
          next[j] = exactChunk(acc[j], x, plan_.hadamardBf16.data(), c * chunk, j);
      }
    std::swap(acc, next);
  }
  for (int j = 0; j < rs; ++j)
    y[j] = acc[j];
}

void RowRotator::rotateDenseBlock(const uint16_t *x, const uint16_t *r, const double *rd,
                                  double rMaxAbs, int rSpan, float *y) {
  const int rs = plan_.problem.rotation.rs, chunk = plan_.problem.rotation.chunk;
  const double slack = denseSlack(chunk);
  double *xd = xDouble_.data(), *sums = sums_.data();
  float *acc = acc_.data(), *next = next_.data();
  for (int i = 0; i < rs; ++i) {
    xd[i] = double(bf16ToF32(x[i]));
    acc[i] = 0.0f;
  }
  const bool exact = fitsInDouble(exponentSpan(x, rs), rSpan, rs);
  for (int k0 = 0; k0 < rs; k0 += chunk) {
    for (int j = 0; j < rs; ++j)
      sums[j] = double(acc[j]);
    for (int k = k0; k < k0 + chunk; ++k) {
      const double xk = xd[k];
      const double *row = rd + size_t(k) * rs;
      for (int j = 0; j < rs; ++j) // products of bf16 values are exact
        sums[j] += xk * row[j];
    }
    if (exact) {
      for (int j = 0; j < rs; ++j)
        next[j] = float(sums[j]);
      std::swap(acc, next);
      continue;
    }
    const double chunkSlack = slack * sumOfMagnitudes(xd + k0, chunk) * rMaxAbs;
    uint32_t uncertain = 0;
    for (int j = 0; j < rs; ++j)
      next[j] = roundWithin(sums[j], chunkSlack + slack * std::fabs(double(acc[j])), uncertain);
    if (uncertain)
      for (int j = 0; j < rs; ++j) {
        uint32_t undecided = 0;
        roundWithin(sums[j], chunkSlack + slack * std::fabs(double(acc[j])), undecided);
        if (undecided)
          next[j] = exactChunk(acc[j], x, r, k0, j);
      }
    std::swap(acc, next);
  }
  for (int j = 0; j < rs; ++j)
    y[j] = acc[j];
}

void RowRotator::rotate(const uint16_t *x, float *y) {
  const RotateQuantProblem &p = plan_.problem;
  const size_t k = p.k, rs = size_t(p.rotation.rs);
  switch (p.rotation.kind) {
  case RotationKind::None:
    for (size_t i = 0; i < k; ++i)
      y[i] = bf16ToF32(x[i]);
    break;
  case RotationKind::HadamardButterfly:
    // The reference's own f32 butterfly (numerics/rotation.h): identical bits.
    for (size_t b = 0; b < k; b += rs)
      butterflyRotateBlock(x + b, int(rs), y + b);
    break;
  case RotationKind::Hadamard:
    for (size_t b = 0; b < k; b += rs)
      rotateHadamardBlock(x + b, y + b);
    break;
  case RotationKind::Learned:
  case RotationKind::LearnedPerBlock: {
    const bool perBlock = p.rotation.kind == RotationKind::LearnedPerBlock;
    for (size_t b = 0; b < k; b += rs) {
      const size_t m = perBlock ? b / rs : 0;
      rotateDenseBlock(x + b, plan_.rotation + m * rs * rs, plan_.rDouble.data() + m * rs * rs,
                       plan_.rMaxAbs[m], plan_.rSpan[m], y + b);
    }
    break;
  }
  }
  if (p.inter == Intermediate::Bf16)
    roundRowToBf16(y, k);
}

} // namespace mxf::weights
