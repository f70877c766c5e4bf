//===- reference.cpp - Reference kernels of the four families -------------===//

#include "numerics/reference.h"

#include "numerics/a6w6.h"
#include "numerics/exact_accumulator.h"
#include "numerics/formats.h"
#include "numerics/packing.h"

#include <algorithm>
#include <string>

namespace mxf {
namespace {

/// Plain scales [rows, cols] into the problem's layout.
void storeScales(ScaleLayout layout, size_t rowPadding, std::vector<uint8_t> plain, size_t rows,
                 size_t cols, QuantizedRows &out) {
  if (layout == ScaleLayout::Plain) {
    out.scaleShape = {rows, cols};
    out.scales = std::move(plain);
    return;
  }
  out.scaleShape = a4w4ShuffledShape(rows, cols, rowPadding);
  out.scales = shuffleScalesA4W4(plain.data(), rows, cols, rowPadding);
}

/// Quantize rows with plain scales; `rowOf(i)` gives the input row pointer.
template <typename RowFn>
QuantizedRows quantizeRows(const RotateQuantProblem &problem, size_t rows, RowFn rowOf,
                           const uint16_t *rotation, std::vector<uint8_t> &plainScales) {
  const size_t k = problem.k;
  const ElemFormat format = problem.quant.format;
  const size_t rowBytes = packedBytes(format, k);
  QuantizedRows out;
  out.rows = rows;
  out.k = k;
  out.format = format;
  out.codes.assign(rows * rowBytes, 0);
  plainScales.assign(rows * (k / kMxBlock), 0);
  std::vector<float> rotated(k);
  std::vector<uint8_t> codes(k);
  for (size_t row = 0; row < rows; ++row) {
    rotateForQuant(problem, rowOf(row), rotation, rotated.data());
    quantizeRow(problem.quant, rotated.data(), k, row, codes.data(),
                plainScales.data() + row * (k / kMxBlock));
    packCodes(format, codes.data(), k, out.codes.data() + row * rowBytes);
  }
  return out;
}

} // namespace

Status checkRotateQuant(const RotateQuantProblem &problem) {
  if (problem.k == 0 || problem.k % kMxBlock != 0)
    return Status::failure("K=" + std::to_string(problem.k) +
                           " must be a positive multiple of 32");
  return checkRotation(problem.rotation, problem.k);
}

void rotateForQuant(const RotateQuantProblem &problem, const uint16_t *x,
                    const uint16_t *rotation, float *y) {
  rotateRow(problem.rotation, x, problem.k, rotation, y);
  if (problem.inter == Intermediate::Bf16)
    for (size_t i = 0; i < problem.k; ++i)
      y[i] = bf16ToF32(f32ToBf16(y[i]));
}

Result<QuantizedRows> rotateQuant(const RotateQuantProblem &problem, const uint16_t *x,
                                  size_t m, const uint16_t *rotation) {
  if (Status s = checkRotateQuant(problem); !s.ok())
    return s;
  if (isLearned(problem.rotation.kind) && !rotation)
    return Result<QuantizedRows>::failure("a learned rotation needs its matrix (input r)");
  std::vector<uint8_t> plain;
  QuantizedRows out = quantizeRows(
      problem, m, [&](size_t row) { return x + row * problem.k; }, rotation, plain);
  if (problem.scaleLayout == ScaleLayout::A6W6Tiles) {
    // AITER's A6W6 operand: codes and scales in its tiles, padding included.
    if (formatInfo(problem.quant.format).bits != 6)
      return Result<QuantizedRows>::failure(
          "layout mxfp6_c0c1_256_padk2 holds 6-bit codes, not " +
          std::string(formatInfo(problem.quant.format).specName));
    Result<A6W6Operand> tiles = packA6W6(out.codes.data(), plain.data(), m, problem.k);
    if (!tiles.ok())
      return tiles.status();
    const A6W6Shape shape = a6w6Shape(m, problem.k);
    out.codes = std::move(tiles.value().codes);
    out.scales = std::move(tiles.value().scales);
    out.scaleShape = {shape.paddedRows(), shape.scaleRowBytes()};
    return out;
  }
  storeScales(problem.scaleLayout, kA4W4RowPadding, std::move(plain), m, problem.k / kMxBlock,
              out);
  return out;
}

Result<MoeQuantized> rotateQuantMoe(const MoeProblem &problem, const uint16_t *x, size_t m,
                                    const int32_t *topkIds, const float *topkWeights,
                                    const int32_t *expertMask, const uint16_t *rotation) {
  const RotateQuantProblem &quant = problem.quant;
  if (Status s = checkRotateQuant(quant); !s.ok())
    return s;
  if (problem.rows != MoeRows::Tokens && problem.rows != MoeRows::Routed)
    return Result<MoeQuantized>::failure("rotate_quant_moe: rows must be Tokens or Routed");
  if (quant.scaleLayout == ScaleLayout::A6W6Tiles)
    return Result<MoeQuantized>::failure(
        "rotate_quant_moe: sorted scales are plain or a4w4_shuffle, not mxfp6_c0c1_256_padk2");
  if (isLearned(quant.rotation.kind) && !rotation)
    return Result<MoeQuantized>::failure("a learned rotation needs its matrix (input r)");
  if (m >= (size_t(1) << 24))
    return Result<MoeQuantized>::failure("rotate_quant_moe: m = " + std::to_string(m) +
                                         " must be below 2^24 (sorted ids keep 24 token bits)");
  MoeRouting routing;
  routing.topkIds = topkIds;
  routing.topkWeights = topkWeights;
  routing.expertMask = expertMask;
  routing.m = int(m);
  routing.topk = problem.topk;
  routing.experts = problem.experts;
  routing.block = problem.block;
  Result<MoeSorting> sorting = moeSort(routing);
  if (!sorting.ok())
    return sorting.status();
  if (!x)
    return Result<MoeQuantized>::failure("rotate_quant_moe: x is null");
  MoeQuantized out;
  out.sorting = std::move(sorting.value());
  const size_t topk = size_t(problem.topk);

  // Rotation and quantization are per row, so every input row is quantized
  // once, whatever the number of slots that name it (AITER's small-m path
  // re-quantizes a token per slot; the bytes are the same). Stage 1's rows
  // are the m tokens; stage 2's are the m*topk (token, slot) rows, row
  // token*topk + slot (AITER's stage-2 sort gathers scale rows that way).
  const size_t inputRows = problem.rows == MoeRows::Tokens ? m : m * topk;
  std::vector<uint8_t> rowScales;
  out.quantized = quantizeRows(
      quant, inputRows, [&](size_t row) { return x + row * quant.k; }, rotation, rowScales);

  const size_t cols = quant.k / kMxBlock;
  const size_t sortedRows = out.sorting.sortedIds.size();
  std::vector<uint8_t> sortedScales(sortedRows * cols, kMoeScalePadByte);
  for (size_t i = 0; i < sortedRows; ++i) {
    const int32_t entry = out.sorting.sortedIds[i];
    const size_t token = size_t(entry & 0xFFFFFF), slot = size_t(entry >> 24);
    if (slot >= topk || token >= m)
      continue; // sentinel: a padding row
    const size_t row = problem.rows == MoeRows::Tokens ? token : token * topk + slot;
    std::copy_n(rowScales.begin() + long(row * cols), cols, sortedScales.begin() + long(i * cols));
  }

  // What a kernel writes: the rows of valid entries, whole 32-row groups of
  // the shuffle (a group is 32 * pad8(cols) contiguous bytes, so the written
  // rows are a prefix of the buffer).
  const size_t numValid = size_t(out.sorting.numValid());
  if (quant.scaleLayout == ScaleLayout::Plain) {
    out.scaleBytesWritten = numValid * cols;
  } else {
    const ScaleShape written = a4w4ShuffledShape(numValid, cols, kMoeRowPadding);
    out.scaleBytesWritten = written.rows * written.cols;
  }
  if (quant.scaleLayout == ScaleLayout::Plain) {
    out.quantized.scaleShape = {sortedRows, cols};
    out.quantized.scales = std::move(sortedScales);
  } else {
    out.quantized.scaleShape = a4w4ShuffledShape(sortedRows, cols, kMoeRowPadding);
    out.quantized.scales = shuffleScalesA4W4(sortedScales.data(), sortedRows, cols,
                                             kMoeRowPadding, kMoeScalePadByte);
  }
  return out;
}

size_t gemmChains(size_t k) {
  const size_t chunks = k / 128;
  return chunks >= 4 ? 4 : chunks >= 2 ? 2 : 1;
}

Result<std::vector<double>> gemmActivationValues(const RotateQuantProblem &act, const uint16_t *x,
                                                 size_t m, const uint16_t *rotation) {
  if (act.quant.format != ElemFormat::E2M1 && act.quant.format != ElemFormat::E2M3)
    return Result<std::vector<double>>::failure(
        "rotate_quant_gemm needs fmt=fp4 (A4W4) or fmt=fp6_e2m3 (W6A16)");
  const size_t k = act.k, cols = k / kMxBlock;
  std::vector<double> values(m * k);
  if (act.quant.format == ElemFormat::E2M3) {
    if (Status s = checkRotateQuant(act); !s.ok())
      return s;
    if (isLearned(act.rotation.kind) && !rotation)
      return Result<std::vector<double>>::failure("a learned rotation needs its matrix (input r)");
    std::vector<float> rotated(k);
    for (size_t i = 0; i < m; ++i) {
      rotateForQuant(act, x + i * k, rotation, rotated.data());
      for (size_t c = 0; c < k; ++c)
        values[i * k + c] = bf16ToF32(f32ToBf16(rotated[c]));
    }
    return values;
  }
  RotateQuantProblem plainAct = act;
  plainAct.scaleLayout = ScaleLayout::Plain;
  Result<QuantizedRows> a = rotateQuant(plainAct, x, m, rotation);
  if (!a.ok())
    return a.status();
  std::vector<uint8_t> codes(k);
  for (size_t i = 0; i < m; ++i) {
    unpackCodes(ElemFormat::E2M1, a.value().codes.data() + i * (k / 2), k, codes.data());
    for (size_t c = 0; c < k; ++c)
      values[i * k + c] = decodeElem(ElemFormat::E2M1, codes[c]) *
                          e8m0Value(a.value().scales[i * cols + c / kMxBlock]);
  }
  return values;
}

namespace {

/// The weight operand [n, k] as exact values: fp4 codes times 2^(e-127), or
/// fp6 e2m3 codes converted as v_cvt_scalef32_pk32_bf16_fp6 converts them
/// (to bf16, exact for every scale a bf16 weight can have produced).
Result<std::vector<double>> gemmWeightValues(const GemmProblem &problem, ElemFormat format,
                                             const uint8_t *weightCodes,
                                             const uint8_t *weightScales) {
  const size_t k = problem.activation.k, n = problem.n, cols = k / kMxBlock;
  const size_t rowBytes = packedBytes(format, k);
  std::vector<uint8_t> plain(weightCodes, weightCodes + n * rowBytes);
  if (problem.weightLayout != WeightLayout::Plain) {
    Result<std::vector<uint8_t>> unshuffled =
        problem.weightLayout == WeightLayout::Preshuffle16x16
            ? unpreshuffleWeights16x16(weightCodes, n, rowBytes)
            : untileWeightsW6A16(weightCodes, n, k);
    if (!unshuffled.ok())
      return unshuffled.status();
    plain = std::move(unshuffled.value());
  }
  const std::vector<uint8_t> scales =
      problem.weightScaleLayout == ScaleLayout::Plain
          ? std::vector<uint8_t>(weightScales, weightScales + n * cols)
          : unshuffleScalesA4W4(weightScales, n, cols, kA4W4RowPadding);
  std::vector<double> values(n * k);
  std::vector<uint8_t> codes(k);
  for (size_t j = 0; j < n; ++j) {
    unpackCodes(format, plain.data() + j * rowBytes, k, codes.data());
    for (size_t c = 0; c < k; ++c) {
      const uint8_t scale = scales[j * cols + c / kMxBlock];
      values[j * k + c] =
          format == ElemFormat::E2M1
              ? decodeElem(format, codes[c]) * e8m0Value(scale)
              : double(bf16ToF32(f32ToBf16(dequantElem(format, codes[c], scale))));
    }
  }
  return values;
}

} // namespace

size_t gemmChannelOfTerm(ElemFormat format, size_t group, size_t term) {
  if (format == ElemFormat::E2M1)
    return term; // one group: the chunk's 128 channels
  // v_mfma_f32_16x16x32_bf16 t: lane group g's items 8t..8t+7 of its block.
  return 32 * (term / 8) + 8 * group + term % 8;
}

Result<std::vector<uint16_t>> rotateQuantGemm(const GemmProblem &problem, const uint16_t *x,
                                              size_t m, const uint16_t *rotation,
                                              const uint8_t *weightCodes,
                                              const uint8_t *weightScales) {
  const RotateQuantProblem &act = problem.activation;
  const ElemFormat format = act.quant.format;
  const bool w6a16 = format == ElemFormat::E2M3;
  if (format != ElemFormat::E2M1 && !w6a16)
    return Result<std::vector<uint16_t>>::failure(
        "rotate_quant_gemm needs fmt=fp4 (A4W4) or fmt=fp6_e2m3 (W6A16)");
  const bool layoutFits = w6a16 ? problem.weightLayout != WeightLayout::Preshuffle16x16
                                : problem.weightLayout != WeightLayout::W6A16Tile16x128;
  if (!layoutFits)
    return Result<std::vector<uint16_t>>::failure(
        std::string("rotate_quant_gemm with fmt=") + formatInfo(format).specName +
        " takes wlayout=plain or " + (w6a16 ? "w6a16_16x128" : "preshuffle_16x16") + ", not " +
        weightLayoutName(problem.weightLayout));
  if (problem.weightScaleLayout == ScaleLayout::A6W6Tiles)
    return Result<std::vector<uint16_t>>::failure(
        "rotate_quant_gemm's weight scales are plain or a4w4_shuffle, not mxfp6_c0c1_256_padk2");
  if (problem.n == 0 || problem.n % 16 != 0)
    return Result<std::vector<uint16_t>>::failure(
        "N=" + std::to_string(problem.n) + " must be a positive multiple of 16");
  if (problem.gemmChunk == 0 || problem.gemmChunk % kMxBlock != 0 ||
      act.k % problem.gemmChunk != 0 || (w6a16 && problem.gemmChunk != 128))
    return Result<std::vector<uint16_t>>::failure(
        "gemm chunk " + std::to_string(problem.gemmChunk) +
        (w6a16 ? " must be 128 (W6A16: four 32-channel bf16 MFMAs) dividing K"
               : " must be a multiple of 32 dividing K"));
  const size_t chains = problem.chains ? problem.chains : gemmChains(act.k);
  Result<std::vector<double>> a = gemmActivationValues(act, x, m, rotation);
  if (!a.ok())
    return a.status();
  Result<std::vector<double>> w = gemmWeightValues(problem, format, weightCodes, weightScales);
  if (!w.ok())
    return w.status();

  const size_t k = act.k, n = problem.n, chunk = problem.gemmChunk;
  const size_t groups = w6a16 ? kGemmW6A16Groups : 1, terms = chunk / groups;
  std::vector<uint16_t> y(m * n);
  for (size_t i = 0; i < m; ++i) {
    const double *aRow = a.value().data() + i * k;
    for (size_t j = 0; j < n; ++j) {
      const double *wRow = w.value().data() + j * k;
      std::vector<float> acc(chains, 0.0f);
      for (size_t k0 = 0; k0 < k; k0 += chunk) {
        float &chain = acc[(k0 / chunk) % chains];
        for (size_t group = 0; group < groups; ++group) {
          ExactAccumulator sum; // one MFMA: its products and C, rounded once
          sum.add(double(chain));
          for (size_t term = 0; term < terms; ++term) {
            const size_t c = k0 + gemmChannelOfTerm(format, group, term);
            sum.add(aRow[c] * wRow[c]); // each product is exact
          }
          chain = sum.roundToF32();
        }
      }
      float total = acc[0];
      for (size_t c = 1; c < chains; ++c)
        total = total + acc[c]; // f32, round to nearest even
      y[i * n + j] = f32ToBf16(total);
    }
  }
  return y;
}

Result<QuantizedRows> quantWeight(const RotateQuantProblem &problem, WeightLayout weightLayout,
                                  const uint16_t *w, size_t n, const uint16_t *rotation) {
  if (weightLayout == WeightLayout::Preshuffle16x16 && problem.quant.format != ElemFormat::E2M1)
    return Result<QuantizedRows>::failure("wlayout=preshuffle_16x16 needs fmt=fp4");
  if (weightLayout == WeightLayout::W6A16Tile16x128) {
    if (problem.quant.format != ElemFormat::E2M3)
      return Result<QuantizedRows>::failure("wlayout=w6a16_16x128 needs fmt=fp6_e2m3");
    // Checked before quantizing, so a bad shape costs nothing.
    if (Status s = checkRotateQuant(problem); !s.ok())
      return s;
    if (Status s = checkW6A16Args("wlayout=w6a16_16x128", n, problem.k); !s.ok())
      return s;
  }
  Result<QuantizedRows> rows = rotateQuant(problem, w, n, rotation);
  if (!rows.ok() || weightLayout == WeightLayout::Plain)
    return rows;
  // Only the byte placement differs from plain: the codes are the same.
  Result<std::vector<uint8_t>> placed =
      weightLayout == WeightLayout::Preshuffle16x16
          ? preshuffleWeights16x16(rows.value().codes.data(), n, problem.k / 2)
          : tileWeightsW6A16(rows.value().codes.data(), n, problem.k);
  if (!placed.ok())
    return placed.status();
  rows.value().codes = std::move(placed.value());
  return rows;
}

std::vector<float> dequantizeRows(const QuantizedRows &rows) {
  const size_t cols = rows.k / kMxBlock, rowBytes = packedBytes(rows.format, rows.k);
  std::vector<float> out(rows.rows * rows.k);
  std::vector<uint8_t> codes(rows.k);
  for (size_t r = 0; r < rows.rows; ++r) {
    unpackCodes(rows.format, rows.codes.data() + r * rowBytes, rows.k, codes.data());
    for (size_t c = 0; c < rows.k; ++c)
      out[r * rows.k + c] = dequantElem(rows.format, codes[c], rows.scales[r * cols + c / kMxBlock]);
  }
  return out;
}

} // namespace mxf
