//===- rotation.cpp - Block-diagonal online rotations ---------------------===//

#include "numerics/rotation.h"

#include "numerics/exact_accumulator.h"
#include "numerics/formats.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace mxf {
namespace {

bool isSupportedSize(int rs) {
  return std::find(std::begin(kSupportedRotationSizes), std::end(kSupportedRotationSizes), rs) !=
         std::end(kSupportedRotationSizes);
}

/// y_block = x_block . R with the MFMA summation order (see rotation.h);
/// R(in, out) is r[in * inStride + out * outStride].
void matrixRotateBlock(const uint16_t *x, const uint16_t *r, size_t inStride, size_t outStride,
                       int rs, int chunk, float *y) {
  std::vector<double> terms(size_t(chunk), 0.0);
  for (int j = 0; j < rs; ++j) {
    float acc = 0.0f;
    for (int k0 = 0; k0 < rs; k0 += chunk) {
      for (int k = 0; k < chunk; ++k) // bf16 x bf16 is exact in double
        terms[size_t(k)] = double(bf16ToF32(x[k0 + k])) * double(bf16ToF32(r[size_t(k0 + k) * inStride + size_t(j) * outStride]));
      acc = fusedSumF32(acc, terms.data(), terms.size());
    }
    y[j] = acc;
  }
}


} // namespace

int hadamardSign(int i, int j) { return (__builtin_popcount(unsigned(i & j)) & 1) ? -1 : 1; }

void butterflyRotateBlock(const uint16_t *x, int rs, float *y) {
  for (int i = 0; i < rs; ++i)
    y[i] = bf16ToF32(x[i]);
  for (int h = 1; h < rs; h *= 2)
    for (int base = 0; base < rs; base += 2 * h)
      for (int i = base; i < base + h; ++i) {
        float a = y[i], b = y[i + h];
        y[i] = a + b;
        y[i + h] = a - b;
      }
  const float norm = hadamardNormF32(rs);
  for (int i = 0; i < rs; ++i)
    y[i] *= norm;
}

float hadamardNormF32(int rs) {
  // 1/sqrt(rs) for rs = 2^n: 2^(-n/2), times sqrt(1/2) when n is odd. long
  // double carries 64 bits, far more than needed to round correctly to f32
  // for these four constants (a test checks them against their bit patterns).
  long double value = 1.0L / std::sqrt((long double)rs);
  return float(value);
}

std::vector<uint16_t> hadamardMatrixBf16(int rs) {
  const uint16_t positive = f32ToBf16(hadamardNormF32(rs));
  const uint16_t negative = uint16_t(positive | 0x8000);
  std::vector<uint16_t> matrix(size_t(rs) * rs);
  for (int i = 0; i < rs; ++i)
    for (int j = 0; j < rs; ++j)
      matrix[size_t(i) * rs + j] = hadamardSign(i, j) > 0 ? positive : negative;
  return matrix;
}

std::vector<uint16_t> learnedMatricesXR(const RotationConfig &config, size_t k,
                                        const uint16_t *matrices) {
  const size_t elements = rotationMatrixElements(config.kind, config.rs, k);
  std::vector<uint16_t> out(matrices, matrices + elements);
  if (config.convention != RotationConvention::XRt)
    return out;
  const size_t rs = size_t(config.rs);
  for (size_t base = 0; base < elements; base += rs * rs)
    for (size_t in = 0; in < rs; ++in)
      for (size_t o = 0; o < rs; ++o)
        out[base + in * rs + o] = matrices[base + o * rs + in];
  return out;
}

size_t rotationMatrixElements(RotationKind kind, int rs, size_t k) {
  if (kind == RotationKind::Learned)
    return size_t(rs) * rs;
  if (kind == RotationKind::LearnedPerBlock)
    return rs > 0 ? (k / size_t(rs)) * rs * rs : 0;
  return 0;
}

Status checkRotation(const RotationConfig &config, size_t k) {
  if (config.kind == RotationKind::None)
    return config.rs == 0 ? Status::success()
                          : Status::failure("rotation none needs RS=0, got RS=" +
                                            std::to_string(config.rs));
  if (!isSupportedSize(config.rs))
    return Status::failure("RS=" + std::to_string(config.rs) +
                           ": rotation size must be one of 32, 64, 128, 256");
  if (k == 0 || k % size_t(config.rs) != 0)
    return Status::failure("K=" + std::to_string(k) + " is not a positive multiple of RS=" +
                           std::to_string(config.rs));
  if (config.chunk <= 0 || config.rs % config.chunk != 0)
    return Status::failure("chunk=" + std::to_string(config.chunk) + " must divide RS=" +
                           std::to_string(config.rs));
  return Status::success();
}

void rotateRow(const RotationConfig &config, const uint16_t *x, size_t k,
               const uint16_t *matrices, float *y) {
  const int rs = config.rs;
  switch (config.kind) {
  case RotationKind::None:
    for (size_t i = 0; i < k; ++i)
      y[i] = bf16ToF32(x[i]);
    return;
  case RotationKind::HadamardButterfly:
    for (size_t b = 0; b < k; b += size_t(rs))
      butterflyRotateBlock(x + b, rs, y + b);
    return;
  case RotationKind::Hadamard: {
    std::vector<uint16_t> h = hadamardMatrixBf16(rs);
    for (size_t b = 0; b < k; b += size_t(rs))
      matrixRotateBlock(x + b, h.data(), size_t(rs), 1, rs, config.chunk, y + b);
    return;
  }
  case RotationKind::Learned:
  case RotationKind::LearnedPerBlock: {
    // R(in, out) through the convention: r[in][out], or r[out][in] for xrt.
    const bool transposed = config.convention == RotationConvention::XRt;
    for (size_t b = 0; b < k; b += size_t(rs)) {
      size_t block = b / size_t(rs);
      const uint16_t *r = config.kind == RotationKind::Learned
                              ? matrices
                              : matrices + block * size_t(rs) * size_t(rs);
      matrixRotateBlock(x + b, r, transposed ? 1 : size_t(rs), transposed ? size_t(rs) : 1, rs,
                        config.chunk, y + b);
    }
    return;
  }
  }
}

} // namespace mxf
