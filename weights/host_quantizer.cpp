//===- host_quantizer.cpp - quant_weight on the host, fast ----------------===//

#include "weights/host_quantizer.h"

#include "numerics/packing.h"
#include "weights/row_quantizer.h"
#include "weights/row_rotator.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace mxf::weights {
namespace {

// Threads take rows in batches of this many from a shared counter: small
// enough to balance (the exact fallback makes some rows slower), large
// enough that the counter is not contended. A multiple of 16 keeps every
// preshuffle and W6A16 tile in one batch (not needed for correctness: every byte has
// one writer either way).
constexpr size_t kRowsPerBatch = 32;

/// Where packed byte `colByte` of row `row` goes in AITER's (16, 16)
/// preshuffle (numerics/layouts.h): 16-byte runs of a row stay contiguous.
size_t preshuffledRunOffset(size_t row, size_t colByte, size_t kBytes) {
  return (row / 16) * 16 * kBytes + (colByte / 32) * 512 + ((colByte % 32) / 16) * 256 +
         (row % 16) * 16;
}

struct Output {
  WeightLayout weightLayout;
  ScaleLayout scaleLayout;
  size_t k, rowBytes, cols, paddedCols;
  uint8_t *codes, *scales;
};

void storeRow(const Output &out, size_t row, const uint8_t *packed, const uint8_t *rowScales) {
  if (out.weightLayout == WeightLayout::Plain) {
    std::memcpy(out.codes + row * out.rowBytes, packed, out.rowBytes);
  } else if (out.weightLayout == WeightLayout::W6A16Tile16x128) {
    tileRowW6A16(packed, row, out.k, out.codes);
  } else {
    for (size_t b = 0; b < out.rowBytes; b += 16)
      std::memcpy(out.codes + preshuffledRunOffset(row, b, out.rowBytes), packed + b, 16);
  }
  if (out.scaleLayout == ScaleLayout::Plain) {
    std::memcpy(out.scales + row * out.cols, rowScales, out.cols);
  } else {
    for (size_t c = 0; c < out.cols; ++c)
      out.scales[a4w4ScaleIndex(row, c, out.paddedCols)] = rowScales[c];
  }
}

} // namespace

Result<QuantWeightSizes> checkQuantWeight(const RotateQuantProblem &problem,
                                          WeightLayout weightLayout, size_t n,
                                          const uint16_t *rotation) {
  if (weightLayout == WeightLayout::Preshuffle16x16 && problem.quant.format != ElemFormat::E2M1)
    return Result<QuantWeightSizes>::failure("wlayout=preshuffle_16x16 needs fmt=fp4");
  if (weightLayout == WeightLayout::W6A16Tile16x128 && problem.quant.format != ElemFormat::E2M3)
    return Result<QuantWeightSizes>::failure("wlayout=w6a16_16x128 needs fmt=fp6_e2m3");
  if (Status s = checkRotateQuant(problem); !s.ok())
    return s;
  if (isLearned(problem.rotation.kind) && !rotation)
    return Result<QuantWeightSizes>::failure("a learned rotation needs its matrix (input r)");
  QuantWeightSizes sizes;
  const size_t rowBytes = packedBytes(problem.quant.format, problem.k);
  if (n != 0 && rowBytes > SIZE_MAX / n)
    return Result<QuantWeightSizes>::failure("N=" + std::to_string(n) + " x K=" +
                                             std::to_string(problem.k) + " overflows size_t");
  sizes.codeBytes = n * rowBytes;
  if (weightLayout == WeightLayout::Preshuffle16x16) {
    if (n == 0 || n % 16 != 0)
      return Result<QuantWeightSizes>::failure(
          "preshuffleWeights16x16: n (rows) = " + std::to_string(n) +
          " is not a positive multiple of 16 (layout (16, 16) tiles 16 rows)");
    if (rowBytes % 32 != 0)
      return Result<QuantWeightSizes>::failure(
          "preshuffleWeights16x16: kBytes (packed bytes per row) = " + std::to_string(rowBytes) +
          " is not a multiple of 32 (layout (16, 16) tiles 32 bytes = 64 fp4 elements along K)");
  }
  if (weightLayout == WeightLayout::W6A16Tile16x128)
    if (Status s = checkW6A16Args("wlayout=w6a16_16x128", n, problem.k); !s.ok())
      return s;
  const size_t cols = problem.k / kMxBlock;
  if (problem.scaleLayout == ScaleLayout::A6W6Tiles)
    return Result<QuantWeightSizes>::failure(
        "weight scales are plain or a4w4_shuffle; mxfp6_c0c1_256_padk2 tiles come from "
        "numerics packA6W6 or rotate_quant");
  if (problem.scaleLayout == ScaleLayout::Plain) {
    sizes.scaleShape = {n, cols};
  } else {
    if (Status s = checkA4W4ScaleArgs(n, cols, kA4W4RowPadding); !s.ok())
      return s;
    sizes.scaleShape = a4w4ShuffledShape(n, cols, kA4W4RowPadding);
  }
  sizes.scaleBytes = sizes.scaleShape.rows * sizes.scaleShape.cols;
  return sizes;
}

Status quantWeightInto(const RotateQuantProblem &problem, WeightLayout weightLayout,
                       const uint16_t *w, size_t n, const uint16_t *rotation, unsigned threads,
                       uint8_t *codes, uint8_t *scales, const RowProgress &progress) {
  Result<QuantWeightSizes> sizes = checkQuantWeight(problem, weightLayout, n, rotation);
  if (!sizes.ok())
    return sizes.status();
  const size_t k = problem.k;
  const Output out{weightLayout, problem.scaleLayout, k, packedBytes(problem.quant.format, k),
                   k / kMxBlock, sizes.value().scaleShape.cols, codes, scales};
  if (problem.scaleLayout != ScaleLayout::Plain) // padding first; rows overwrite the rest
    std::memset(scales, kScalePadByte, sizes.value().scaleBytes);

  const RotationPlan plan(problem, rotation);
  std::atomic<size_t> nextBatch{0}, rowsDone{0};
  auto worker = [&](bool reports) {
    RowRotator rotator(plan);
    RowQuantizer quantizer(problem.quant, k);
    std::vector<float> rotated(k);
    std::vector<uint8_t> packed(out.rowBytes), rowScales(out.cols);
    for (;;) {
      const size_t first = nextBatch.fetch_add(kRowsPerBatch);
      if (first >= n)
        return;
      for (size_t row = first; row < std::min(n, first + kRowsPerBatch); ++row) {
        rotator.rotate(w + row * k, rotated.data());
        quantizer.quantize(rotated.data(), row, packed.data(), rowScales.data());
        storeRow(out, row, packed.data(), rowScales.data());
      }
      const size_t done = rowsDone.fetch_add(std::min(n, first + kRowsPerBatch) - first) +
                          (std::min(n, first + kRowsPerBatch) - first);
      if (reports && progress)
        progress(done);
    }
  };
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::min<size_t>(threads, std::max<size_t>(1, (n + kRowsPerBatch - 1) /
                                                                      kRowsPerBatch)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(worker, false);
  worker(true); // the caller's thread, which alone reports progress
  for (std::thread &t : pool)
    t.join();
  return Status::success();
}

Result<QuantizedRows> quantWeightHost(const RotateQuantProblem &problem,
                                      WeightLayout weightLayout, const uint16_t *w, size_t n,
                                      const uint16_t *rotation, unsigned threads) {
  Result<QuantWeightSizes> sizes = checkQuantWeight(problem, weightLayout, n, rotation);
  if (!sizes.ok())
    return sizes.status();
  QuantizedRows rows;
  rows.rows = n;
  rows.k = problem.k;
  rows.format = problem.quant.format;
  rows.codes.resize(sizes.value().codeBytes);
  rows.scaleShape = sizes.value().scaleShape;
  rows.scales.resize(sizes.value().scaleBytes);
  if (Status s = quantWeightInto(problem, weightLayout, w, n, rotation, threads,
                                 rows.codes.data(), rows.scales.data());
      !s.ok())
    return s;
  return rows;
}

} // namespace mxf::weights
