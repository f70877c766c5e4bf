//===- e2e_inputs.cpp - Random activations and rotations for the e2e suite ===//
//
// The generators behind docs/verification.md, "Inputs". Where a
// distribution aims at an exact value in the *rotated* domain (the scale
// boundaries), the construction is spelled out next to the code, because
// only some rotations let an exact bf16 input produce an exact rotated value.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_inputs.h"

#include "numerics/formats.h"
#include "numerics/rotation.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

namespace mxf::e2e {
namespace {

constexpr size_t kBlock = 32; // elements per E8M0 scale

double uniform(std::mt19937_64 &rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}
int uniformInt(std::mt19937_64 &rng, int lo, int hi) { // inclusive
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}
bool chance(std::mt19937_64 &rng, double p) { return uniform(rng, 0.0, 1.0) < p; }
uint16_t withSign(uint16_t bits, bool negative) {
  return negative ? uint16_t(bits | 0x8000) : uint16_t(bits & 0x7FFF);
}
uint16_t bf16(double v) { return f32ToBf16(static_cast<float>(v)); }

/// A random binade for a boundary block: mostly around 1, sometimes across
/// most of the f32 range. The top is kept low enough that no rotation of the
/// suite (|y| <= RS * max|R| * max|x|) can overflow f32.
int boundaryExponent(std::mt19937_64 &rng) {
  const double p = uniform(rng, 0.0, 1.0);
  if (p < 0.65)
    return uniformInt(rng, -12, 12);
  // The f32 subnormal threshold, where scale rules test for a rounded
  // maximum of zero (scale=even: amax + 2^21 below 2^-126 in its bits) and
  // the maxima 6 * 2^-129 = 1.5 * 2^-127 and 1.75 * 2^-127 are subnormals.
  if (p < 0.75)
    return uniformInt(rng, -133, -124);
  return uniformInt(rng, -110, 100);
}

void fillNormal(std::vector<uint16_t> &row, std::mt19937_64 &rng) {
  const double sigma = std::exp2(uniform(rng, -8, 8));
  std::normal_distribution<double> normal(0.0, sigma);
  for (uint16_t &v : row)
    v = bf16(normal(rng));
}

void fillHeavyTailed(std::vector<uint16_t> &row, std::mt19937_64 &rng) {
  const double sigma = std::exp2(uniform(rng, -4, 4));
  std::student_t_distribution<double> t(3.0);
  for (uint16_t &v : row)
    v = bf16(sigma * t(rng));
  // One outlier per block, scaled by 10..1000 (log-uniform): the outlier
  // channels that make rotation worthwhile in the first place.
  for (size_t block = 0; block < row.size() / kBlock; ++block) {
    uint16_t &v = row[block * kBlock + uniformInt(rng, 0, kBlock - 1)];
    v = bf16(bf16ToF32(v) * std::pow(10.0, uniform(rng, 1, 3)));
  }
}

void fillZeroBlocks(const KernelSpec &spec, std::vector<uint16_t> &row, std::mt19937_64 &rng) {
  fillNormal(row, rng);
  // A zero block only stays zero through the rotation when the whole
  // rotation block is zero, so zero whole units of RS channels; plain
  // 32-blocks inside a live rotation block are zeroed too (they test the
  // rotation's mixing, and the RS=0 kernel's zero blocks). Signs of the
  // zeros are random: -0 must give the -0 code without rotation.
  const size_t unit = spec.RS > 0 ? size_t(spec.RS) : kBlock;
  auto zero = [&](size_t begin, size_t count) {
    for (size_t i = begin; i < begin + count; ++i)
      row[i] = chance(rng, 0.5) ? 0x8000 : 0x0000;
  };
  bool any = false;
  for (size_t u = 0; u < row.size() / unit; ++u)
    if (chance(rng, 0.4)) {
      zero(u * unit, unit);
      any = true;
    }
  if (!any)
    zero(size_t(uniformInt(rng, 0, int(row.size() / unit) - 1)) * unit, unit);
  for (size_t b = 0; b < row.size() / kBlock; ++b)
    if (chance(rng, 0.15))
      zero(b * kBlock, kBlock);
}

/// One 32-block whose largest magnitude is exactly a boundary value A (in
/// bf16): sometimes all 32 elements are +-A (ties), otherwise one is and
/// the rest are random below it.
void boundaryBlock(uint16_t *block, std::mt19937_64 &rng) {
  const float a = boundaryValue(uniformInt(rng, 0, 2), boundaryExponent(rng), uniformInt(rng, -1, 1));
  const uint16_t aBits = f32ToBf16(a);
  const bool allTied = chance(rng, 0.25);
  for (size_t i = 0; i < kBlock; ++i) {
    // RNE of a value below A cannot exceed A (A is itself a bf16 value).
    const uint16_t below = f32ToBf16(float(a * uniform(rng, 0.0, 1.0)));
    block[i] = withSign(allTied ? aBits : below, chance(rng, 0.5));
  }
  block[uniformInt(rng, 0, kBlock - 1)] = withSign(aBits, chance(rng, 0.5));
}

/// Hadamard with RS = 64 or 256: the entries are exactly +-1/8 or +-1/16,
/// H.H = I exactly, and a one-hot x (c at channel j) rotates to
/// y_i = +-c/sqrt(RS) exactly: every rotated value of the block sits on the
/// boundary B = c/sqrt(RS). A second input c2 = sqrt(RS)*ulp_f32(B) at channel
/// j^32 moves the rotated values one f32 ulp: sign(H[j][i]*H[j^32][i]) =
/// (-1)^bit5(i), so the even 32-blocks of the rotation block get |y| = B + u
/// and the odd ones B - u (or the reverse when c2 < 0). Both channels lie in
/// different 32-channel chunks, so the chunked accumulation is exact too.
///
/// Three units in four split c into a + b' at channels j and j^1 (same sign,
/// a in (0.51, 0.75) c, so b' = c - a is a bf16 too): sign(H[j][i]*H[j^1][i])
/// = (-1)^bit0(i), so every 32-block holds the boundary (a + b')/sqrt(RS) = B
/// at its even or odd positions and the smaller (a - b')/sqrt(RS), 0.02-0.5 B,
/// at the others. Without them every element of a block has the same
/// magnitude, and a scale off by one power of two dequantizes to the same
/// values (6 * 2^k and 3 * 2^(k+1)): only elements below two scale steps
/// tell the scales apart through a GEMM's y.
void hadamardBoundaryUnit(uint16_t *unit, int rs, std::mt19937_64 &rng) {
  const double root = std::sqrt(double(rs)); // 8 or 16: exact
  const float b = boundaryValue(uniformInt(rng, 0, 2), boundaryExponent(rng), uniformInt(rng, -1, 1));
  std::fill(unit, unit + rs, uint16_t(0));
  const int j = uniformInt(rng, 0, rs - 1);
  const bool negative = chance(rng, 0.5);
  const double c = double(bf16ToF32(f32ToBf16(float(b * root))));
  unit[j] = withSign(f32ToBf16(float(c)), negative);
  if (chance(rng, 0.75)) {
    const double a = double(bf16ToF32(f32ToBf16(float(c * uniform(rng, 0.51, 0.75)))));
    const double rest = c - a; // exact: see above
    if (rest > 0 && double(bf16ToF32(f32ToBf16(float(rest)))) == rest) {
      unit[j] = withSign(f32ToBf16(float(a)), negative);
      unit[j ^ 1] = withSign(f32ToBf16(float(rest)), negative);
    }
  }
  if (chance(rng, 0.75) && b > 0) { // b is 0 when one bf16 ulp below 2^-133
    // One f32 ulp of B (2^-149 at least: B may be an f32 subnormal).
    const double ulp = std::ldexp(1.0, std::max(std::ilogb(b) - 23, -149));
    unit[j ^ 32] = withSign(f32ToBf16(float(ulp * root)), chance(rng, 0.5));
  }
}

void fillScaleBoundaries(const KernelSpec &spec, std::vector<uint16_t> &row,
                         std::mt19937_64 &rng) {
  if (spec.rot == RotationKind::Hadamard && (spec.RS == 64 || spec.RS == 256)) {
    for (size_t u = 0; u < row.size() / size_t(spec.RS); ++u)
      hadamardBoundaryUnit(row.data() + u * spec.RS, spec.RS, rng);
    return;
  }
  if (isLearned(spec.rot)) {
    // A signed permutation (MatrixKind::SignedPermutation) sends each rotated
    // 32-block 32 values from anywhere in the rotation block, so only a row
    // whose every element is a boundary value guarantees a boundary maximum
    // in every rotated block. A common binade per rotation block, minus a
    // few, keeps magnitudes spread.
    for (size_t u = 0; u < row.size() / size_t(spec.RS); ++u) {
      const int top = boundaryExponent(rng);
      for (size_t i = 0; i < size_t(spec.RS); ++i) {
        const float v = boundaryValue(uniformInt(rng, 0, 2), top - uniformInt(rng, 0, 8),
                                      uniformInt(rng, -1, 1));
        row[u * spec.RS + i] = chance(rng, 0.1) ? 0 : withSign(f32ToBf16(v), chance(rng, 0.5));
      }
    }
    return;
  }
  // RS=0 keeps these maxima exactly. Hadamard with RS=32 or 128 cannot
  // reach a boundary exactly (its bf16 entry 1/sqrt(RS) is not a power of
  // two, so every rotated value is that entry times a dyadic rational); the
  // boundary inputs still exercise the rotation with extreme binades.
  for (size_t b = 0; b < row.size() / kBlock; ++b)
    boundaryBlock(row.data() + b * kBlock, rng);
}

void fillSubnormals(std::vector<uint16_t> &row, std::mt19937_64 &rng) {
  // bf16 has f32's exponent range, so a bf16 subnormal is an f32 subnormal.
  for (size_t b = 0; b < row.size() / kBlock; ++b) {
    const bool onlySubnormal = chance(rng, 0.4);
    for (size_t i = 0; i < kBlock; ++i) {
      const double p = uniform(rng, 0.0, 1.0);
      uint16_t bits;
      if (onlySubnormal || p < 0.55)
        bits = uint16_t(uniformInt(rng, 1, 0x7F)); // exponent field 0
      else if (p < 0.75)
        bits = uint16_t((uniformInt(rng, 1, 3) << 7) | uniformInt(rng, 0, 0x7F)); // smallest normals
      else if (p < 0.85)
        bits = f32ToBf16(float(std::ldexp(uniform(rng, 1.0, 2.0), uniformInt(rng, -126, -100))));
      else
        bits = 0;
      row[b * kBlock + i] = withSign(bits, chance(rng, 0.5));
    }
  }
}

/// Normal rows with a non-finite or overflowing value planted in about half
/// of the rotation units (32-blocks without rotation): the scale rules'
/// special cases (a NaN block, an Inf block, a maximum whose rounding
/// carries into exponent 255) that no finite distribution reaches. What a
/// kernel must produce for them is numerics' choice (scale_rules.cpp).
void fillNonFinite(const KernelSpec &spec, std::vector<uint16_t> &row, std::mt19937_64 &rng) {
  fillNormal(row, rng);
  const size_t unit = spec.RS > 0 ? size_t(spec.RS) : kBlock;
  const bool hadamard = spec.rot == RotationKind::Hadamard && spec.RS > 0;
  // IEEE 754 leaves the sign of a NaN that arithmetic produces unspecified,
  // and FP4/FP6 have no NaN: a NaN element becomes +-max by its sign
  // (GFX950_SEMANTICS.md C1). The f32 butterfly's adds may be commuted by
  // LLVM (fadd is commutative) or rewritten with a sign modifier, either of
  // which picks a NaN of another sign, so the butterfly's NaN codes are not
  // defined by numerics/ and its rows get only the finite huge values (one
  // per block, so that no sum overflows).
  const bool nanSignDefined = spec.rot != RotationKind::HadamardButterfly;
  bool any = false;
  for (size_t u = 0; u < row.size() / unit; ++u) {
    if (!chance(rng, 0.5) && (any || u + 1 < row.size() / unit))
      continue;
    any = true;
    uint16_t *p = row.data() + u * unit;
    const size_t at = size_t(uniformInt(rng, 0, int(unit) - 1));
    switch (nanSignDefined ? uniformInt(rng, 0, 4) : 2) {
    case 0: // a quiet NaN with a random payload and sign
      p[at] = withSign(uint16_t(0x7FC0 | uniformInt(rng, 0, 0x3F)), chance(rng, 0.5));
      break;
    case 1: // an infinity (two of opposite signs make the rotated block NaN)
      p[at] = withSign(0x7F80, chance(rng, 0.5));
      if (chance(rng, 0.3))
        p[(at + 1) % unit] = withSign(0x7F80, (p[at] & 0x8000) == 0);
      break;
    case 2: // the largest bf16 values, whose scale=even rounding carries
      // into exponent 255 (bf16 0x7F60 = 1.75 * 2^127 and above)
      p[at] = withSign(uint16_t(uniformInt(rng, 0x7F60, 0x7F7F)), chance(rng, 0.5));
      break;
    case 3: // a whole 32-block of huge values: rotated sums overflow f32
      for (size_t i = at / kBlock * kBlock; i < at / kBlock * kBlock + kBlock; ++i)
        p[i % unit] = withSign(uint16_t(uniformInt(rng, 0x7E00, 0x7F7F)), chance(rng, 0.5));
      break;
    case 4:
      if (hadamard) {
        // x = c * (signs of Hadamard row r): y_r = sqrt(RS) * c exactly and
        // the rest of the rotated unit 0, so the rotated maximum lands in
        // [1.75 * 2^127, Inf] with c in [1.75 * 2^127 / sqrt(RS), ...].
        const double root = std::sqrt(double(spec.RS));
        const uint16_t c = f32ToBf16(float(std::ldexp(uniform(rng, 1.75, 2.0), 127) / root));
        const size_t r = at;
        for (size_t j = 0; j < unit; ++j)
          p[j] = withSign(c, hadamardSign(int(r), int(j)) < 0);
      } else {
        p[at] = 0x7F7F; // bf16's largest finite value
      }
      break;
    }
  }
}

} // namespace

const char *distributionName(Distribution distribution) {
  switch (distribution) {
  case Distribution::Normal:
    return "normal";
  case Distribution::HeavyTailed:
    return "heavy_tailed";
  case Distribution::ZeroBlocks:
    return "zero_blocks";
  case Distribution::ScaleBoundaries:
    return "scale_boundaries";
  case Distribution::Subnormals:
    return "subnormals";
  case Distribution::NonFinite:
    return "non_finite";
  }
  return "?";
}

Distribution distributionFor(size_t base, size_t row) {
  return static_cast<Distribution>((base + row) % kNumDistributions);
}

const char *matrixKindName(MatrixKind kind) {
  switch (kind) {
  case MatrixKind::Orthogonal:
    return "orthogonal";
  case MatrixKind::RandomBf16:
    return "random_bf16";
  case MatrixKind::SignedPermutation:
    return "signed_permutation";
  }
  return "?";
}

MatrixKind matrixKindFor(size_t base) {
  // Mostly orthogonal (what a learned rotation is), sometimes arbitrary
  // values, sometimes a signed permutation so that the scale boundaries of
  // the ScaleBoundaries rows reach the rotated domain.
  static constexpr MatrixKind kCycle[] = {MatrixKind::Orthogonal, MatrixKind::SignedPermutation,
                                          MatrixKind::Orthogonal, MatrixKind::RandomBf16};
  return kCycle[base % std::size(kCycle)];
}

float boundaryValue(int mantissaChoice, int exponent, int ulps) {
  static constexpr double kMantissas[] = {1.0, 1.75, 6.0};
  // No lower than bf16's smallest subnormal 2^-133 (below it the value
  // would round to 0, and one ulp below 0 is the NaN 0xFFFF).
  exponent = std::max(exponent, -133);
  const float exact = static_cast<float>(std::ldexp(kMantissas[mantissaChoice], exponent));
  // The value is positive and a bf16, so stepping its bits moves one ulp.
  return bf16ToF32(uint16_t(f32ToBf16(exact) + ulps));
}

std::vector<uint16_t> activationRow(const KernelSpec &spec, Distribution distribution,
                                    std::mt19937_64 &rng) {
  std::vector<uint16_t> row(static_cast<size_t>(spec.K));
  switch (distribution) {
  case Distribution::Normal:
    fillNormal(row, rng);
    break;
  case Distribution::HeavyTailed:
    fillHeavyTailed(row, rng);
    break;
  case Distribution::ZeroBlocks:
    fillZeroBlocks(spec, row, rng);
    break;
  case Distribution::ScaleBoundaries:
    fillScaleBoundaries(spec, row, rng);
    break;
  case Distribution::Subnormals:
    fillSubnormals(row, rng);
    break;
  case Distribution::NonFinite:
    fillNonFinite(spec, row, rng);
    break;
  }
  return row;
}

std::vector<double> randomOrthogonal(int rs, std::mt19937_64 &rng) {
  // Modified Gram-Schmidt over the columns of a normal matrix (column j is
  // q[i * rs + j]); a normal matrix is full rank with probability one.
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> q(size_t(rs) * rs);
  for (double &v : q)
    v = normal(rng);
  for (int j = 0; j < rs; ++j) {
    for (int p = 0; p < j; ++p) {
      double dot = 0;
      for (int i = 0; i < rs; ++i)
        dot += q[size_t(i) * rs + p] * q[size_t(i) * rs + j];
      for (int i = 0; i < rs; ++i)
        q[size_t(i) * rs + j] -= dot * q[size_t(i) * rs + p];
    }
    double norm = 0;
    for (int i = 0; i < rs; ++i)
      norm += q[size_t(i) * rs + j] * q[size_t(i) * rs + j];
    norm = std::sqrt(norm);
    for (int i = 0; i < rs; ++i)
      q[size_t(i) * rs + j] /= norm;
  }
  return q;
}

std::vector<uint16_t> learnedRotation(const KernelSpec &spec, MatrixKind kind,
                                      std::mt19937_64 &rng) {
  const size_t elements = rotationMatrixElements(spec.rot, spec.RS, size_t(spec.K));
  if (elements == 0)
    return {};
  const int rs = spec.RS;
  const size_t perMatrix = size_t(rs) * rs;
  const size_t count = elements / perMatrix;
  std::vector<uint16_t> out(elements);

  // Gram-Schmidt of 64 matrices of 256 x 256 would dominate the test, so
  // per-block matrices come from a pool of at most 4, each block taking one
  // with its rows permuted and its columns' signs flipped: still orthogonal
  // (before rounding) and different per block.
  std::vector<std::vector<uint16_t>> pool;
  if (kind == MatrixKind::Orthogonal)
    for (size_t p = 0; p < std::min<size_t>(count, 4); ++p) {
      std::vector<double> q = randomOrthogonal(rs, rng);
      std::vector<uint16_t> rounded(perMatrix);
      for (size_t i = 0; i < perMatrix; ++i)
        rounded[i] = bf16(q[i]);
      pool.push_back(std::move(rounded));
    }

  std::vector<int> perm(rs);
  std::normal_distribution<double> normal(0.0, 1.0 / std::sqrt(double(rs)));
  for (size_t m = 0; m < count; ++m) {
    uint16_t *r = out.data() + m * perMatrix;
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    switch (kind) {
    case MatrixKind::Orthogonal: {
      const std::vector<uint16_t> &base = pool[size_t(uniformInt(rng, 0, int(pool.size()) - 1))];
      const bool shuffled = m > 0; // the first matrix is a pool matrix as drawn
      std::vector<bool> flip(rs);
      for (int j = 0; j < rs; ++j)
        flip[j] = shuffled && chance(rng, 0.5);
      for (int i = 0; i < rs; ++i)
        for (int j = 0; j < rs; ++j) {
          const uint16_t v = base[size_t(shuffled ? perm[i] : i) * rs + j];
          r[size_t(i) * rs + j] = flip[j] ? uint16_t(v ^ 0x8000) : v;
        }
      break;
    }
    case MatrixKind::RandomBf16:
      for (size_t i = 0; i < perMatrix; ++i)
        r[i] = chance(rng, 0.02) ? 0 : bf16(normal(rng));
      break;
    case MatrixKind::SignedPermutation:
      std::fill(r, r + perMatrix, uint16_t(0));
      for (int i = 0; i < rs; ++i)
        r[size_t(i) * rs + perm[i]] = withSign(0x3F80, chance(rng, 0.5)); // +-1.0
      break;
    }
  }
  return out;
}

std::mt19937_64 runEngine(uint64_t seed, uint64_t run) {
  // splitmix64 of (seed, run): neighbouring runs get unrelated streams.
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (run + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return std::mt19937_64(z ^ (z >> 31));
}

SelectionInputs drawSelection(const KernelSpec &spec, bool rotate, std::mt19937_64 &rng) {
  SelectionInputs drawn;
  if (spec.select == RotationSelect::Flag) {
    drawn.selection = rotate ? int64_t(int32_t(rng() | 1)) : 0;
  } else if (spec.select == RotationSelect::Mask) {
    drawn.layerMask.resize(size_t(spec.layers));
    for (int32_t &entry : drawn.layerMask)
      entry = rng() % 2 ? int32_t(rng() | 1) : 0;
    const int64_t layer = int64_t(rng() % uint64_t(spec.layers));
    drawn.layerMask[size_t(layer)] = rotate ? int32_t(rng() | 1) : 0;
    drawn.selection = layer;
  }
  return drawn;
}

std::vector<uint16_t> stridedRows(const std::vector<uint16_t> &dense, size_t rows, size_t cols,
                                  size_t stride) {
  std::vector<uint16_t> out((rows - 1) * stride + cols);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = uint16_t(0x7FC1 + i % 7);
  for (size_t row = 0; row < rows; ++row)
    std::copy_n(dense.begin() + long(row * cols), cols, out.begin() + long(row * stride));
  return out;
}

} // namespace mxf::e2e
