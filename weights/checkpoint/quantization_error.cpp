//===- quantize_check.cpp - mxforge quantize --check: error figures -------===//

#include "weights/checkpoint/quantization_error.h"

#include "weights/weight_layouts.h"

#include "numerics/formats.h"
#include "numerics/layouts.h"
#include "numerics/packing.h"
#include "numerics/rotation.h"

#include <cmath>
#include <vector>

namespace mxf::weights {
namespace {

/// The rotation matrix of one block as doubles (row-major R[in][out]).
std::vector<double> blockMatrix(const RotateQuantProblem &p, const uint16_t *rotation,
                                size_t block) {
  const int rs = p.rotation.rs;
  std::vector<double> m(size_t(rs) * rs);
  switch (p.rotation.kind) {
  case RotationKind::Hadamard: {
    std::vector<uint16_t> h = hadamardMatrixBf16(rs);
    for (size_t i = 0; i < m.size(); ++i)
      m[i] = bf16ToF32(h[i]);
    break;
  }
  case RotationKind::HadamardButterfly:
    for (int i = 0; i < rs; ++i)
      for (int j = 0; j < rs; ++j)
        m[size_t(i) * rs + j] =
            ((__builtin_popcount(unsigned(i & j)) & 1) ? -1.0 : 1.0) / std::sqrt(double(rs));
    break;
  case RotationKind::Learned:
  case RotationKind::LearnedPerBlock: {
    const uint16_t *r = rotation + (p.rotation.kind == RotationKind::Learned
                                        ? 0
                                        : block * size_t(rs) * rs);
    for (size_t i = 0; i < m.size(); ++i)
      m[i] = bf16ToF32(r[i]);
    break;
  }
  case RotationKind::None:
    break;
  }
  return m;
}

} // namespace

QuantizationError measureQuantization(const RotateQuantProblem &p, WeightLayout weightLayout,
                                      const uint16_t *w, size_t n, const uint16_t *rotation,
                                      const uint8_t *codes, const uint8_t *scales) {
  const size_t k = p.k, cols = k / kMxBlock;
  QuantizedRows rows;
  rows.rows = n;
  rows.k = k;
  rows.format = p.quant.format;
  // The bytes were just written in these layouts, so the sizes hold.
  const WeightPlacement written{weightLayout, p.scaleLayout};
  const std::pair<size_t, size_t> bytes =
      placedWeightBytes(n, k, p.quant.format, written).value();
  PlacedWeights plain = relayoutWeights(n, k, p.quant.format, written, WeightPlacement{}, codes,
                                        bytes.first, scales, bytes.second)
                            .value();
  rows.codes = std::move(plain.codes);
  rows.scales = std::move(plain.scales);
  const std::vector<float> deq = dequantizeRows(rows);
  const double maxValue = formatInfo(p.quant.format).maxValue;

  const size_t rs = p.rotation.kind == RotationKind::None ? k : size_t(p.rotation.rs);
  std::vector<std::vector<double>> matrices;
  if (p.rotation.kind != RotationKind::None)
    for (size_t b = 0; b < (p.rotation.kind == RotationKind::LearnedPerBlock ? k / rs : 1); ++b)
      matrices.push_back(blockMatrix(p, rotation, b));

  double errSource = 0, normSource = 0, errRotated = 0, normRotated = 0;
  size_t clipped = 0;
  std::vector<float> rotated(k);
  for (size_t r = 0; r < n; ++r) {
    rotateForQuant(p, w + r * k, rotation, rotated.data());
    const float *d = deq.data() + r * k;
    for (size_t c = 0; c < k; ++c) {
      const double diff = double(d[c]) - rotated[c];
      errRotated += diff * diff;
      normRotated += double(rotated[c]) * rotated[c];
      const double limit = maxValue * e8m0Value(rows.scales[r * cols + c / kMxBlock]);
      clipped += std::fabs(rotated[c]) > limit;
    }
    for (size_t b = 0; b < k; b += rs) { // un-rotate: W^ = deq . R^T
      const std::vector<double> *m =
          matrices.empty() ? nullptr : &matrices[matrices.size() == 1 ? 0 : b / rs];
      for (size_t i = 0; i < rs; ++i) {
        double value = d[b + i];
        if (m) {
          value = 0;
          for (size_t j = 0; j < rs; ++j)
            value += double(d[b + j]) * (*m)[i * rs + j];
        }
        const double source = bf16ToF32(w[r * k + b + i]);
        errSource += (value - source) * (value - source);
        normSource += source * source;
      }
    }
  }
  QuantizationError e;
  e.relativeToSource = normSource > 0 ? std::sqrt(errSource / normSource) : 0;
  e.relativeToRotated = normRotated > 0 ? std::sqrt(errRotated / normRotated) : 0;
  e.clippedFraction = n * k != 0 ? double(clipped) / double(n * k) : 0;
  return e;
}

} // namespace mxf::weights
