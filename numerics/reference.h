//===- reference.h - Reference kernels of the four families ------*- C++ -*-===//
//
// What every generated kernel must compute, as plain functions over host
// arrays (bf16 as uint16_t bit patterns). The e2e suite compares emulated
// kernels with these bit for bit; docs/numerics.md defines every step.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_NUMERICS_REFERENCE_H
#define MXFORGE_NUMERICS_REFERENCE_H

#include "numerics/layouts.h"
#include "numerics/moe_sorting.h"
#include "numerics/options.h"
#include "numerics/quantize.h"
#include "numerics/rotation.h"
#include "support/status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxf {

/// Row padding of shuffled scales: gemm_a4w4 pads rows to 256, MoE-sorted
/// scales to 32 (MX_LAYOUTS.md).
constexpr size_t kA4W4RowPadding = 256;
constexpr size_t kMoeRowPadding = 32;

/// Rotation, intermediate rounding and quantization of rows of K channels.
struct RotateQuantProblem {
  size_t k = 0;
  RotationConfig rotation;
  Intermediate inter = Intermediate::F32;
  QuantConfig quant;
  ScaleLayout scaleLayout = ScaleLayout::Plain;
};

/// Codes and scales of `rows` quantized rows.
struct QuantizedRows {
  size_t rows = 0;
  size_t k = 0;
  ElemFormat format = ElemFormat::E2M1;
  /// [rows, packedBytes(format, k)] (or preshuffled); with
  /// ScaleLayout::A6W6Tiles the tiled codes (numerics/a6w6.h), padding and
  /// guard tiles included.
  std::vector<uint8_t> codes;
  ScaleShape scaleShape{};     // [rows, k/32] plain, or the padded shuffled or tiled shape
  std::vector<uint8_t> scales;
};

/// Validate a problem (K a positive multiple of 32, rotation consistent).
Status checkRotateQuant(const RotateQuantProblem &problem);

/// Rotate (and, with inter=bf16, round to bf16) one row: k f32 values.
void rotateForQuant(const RotateQuantProblem &problem, const uint16_t *x,
                    const uint16_t *rotation, float *y);

/// rotate_quant: x [m, K] bf16 -> codes [m, K*bits/8], scales.
/// `rotation` holds rotationMatrixElements() bf16 values for learned kinds.
Result<QuantizedRows> rotateQuant(const RotateQuantProblem &problem, const uint16_t *x,
                                  size_t m, const uint16_t *rotation);

/// Padding byte of MoE-sorted scales: AITER's torch reference of its sorted
/// MXFP4 scales (op_tests/test_moe_sorting_mxfp4.py) writes 0 for sentinel
/// rows and pads rows to 32 with 0, and its kernels are held to that.
constexpr uint8_t kMoeScalePadByte = 0;

/// Which rows rotate_quant_moe quantizes (spec key stage).
enum class MoeRows : uint8_t {
  Tokens = 1, // x [m, K]: one row per token (stage 1, the up/gate GEMM input)
  Routed = 2, // x [m, topk, K]: one row per (token, slot) (stage 2, the down GEMM input)
};

struct MoeProblem {
  RotateQuantProblem quant;
  MoeRows rows = MoeRows::Tokens;
  int topk = 0, experts = 0, block = 0;
};

/// rotate_quant_moe: codes in input-row order (token order [m, packed], or
/// (token, slot) order [m, topk, packed] for MoeRows::Routed); scales in
/// sorted order: row i holds the scales of the input row sortedIds[i] names
/// (token, or token*topk + slot), sentinel rows kMoeScalePadByte; shuffled
/// with rows padded to 32 (padding kMoeScalePadByte) when scaleLayout says so.
struct MoeQuantized {
  MoeSorting sorting;
  QuantizedRows quantized; // codes by input row; scales by sorted entry
  /// The prefix of quantized.scales a kernel writes: the scale rows of the
  /// valid entries (numValid rows, padded to 32 when shuffled). The bytes
  /// after it are never written (AITER leaves them unwritten too: its GEMM
  /// reads only valid blocks); here they hold kMoeScalePadByte.
  size_t scaleBytesWritten = 0;
};
Result<MoeQuantized> rotateQuantMoe(const MoeProblem &problem, const uint16_t *x, size_t m,
                                    const int32_t *topkIds, const float *topkWeights,
                                    const int32_t *expertMask, const uint16_t *rotation);

/// The number of accumulation chains of rotate_quant_gemm at K (chunks of
/// 128): 4 from 4 chunks on, 2 for 2 or 3, 1 for one. A function of K only,
/// so that the kernel, the reference and every caller agree on the order.
size_t gemmChains(size_t k);

/// rotate_quant_gemm: y = A . dequant(W)^T in f32, bf16 out, where
///  - A4W4 (activation.quant.format fp4): A = dequant(Q(x.R)), W fp4 codes
///    in `weightLayout` (plain or preshuffle_16x16);
///  - W6A16 (format fp6_e2m3): A = bf16(x.R) (the intermediate rounding
///    first, as rotate_quant's), W fp6 e2m3 codes in plain or w6a16_16x128,
///    each converted to bf16 as v_cvt_scalef32_pk32_bf16_fp6 does;
/// with E8M0 weight scales in `weightScaleLayout` (shuffled: rows padded to
/// 256). Accumulation (docs/numerics.md): per output, K is taken in chunks
/// of `gemmChunk` (128); chunk c belongs to chain c % P (P = `chains`, 0
/// meaning gemmChains(K)); each chain starts at +0 and adds its chunks in
/// ascending order. A4W4 adds a chunk's exact sum to the chain's f32
/// accumulator with one rounding (one v_mfma_scale_f32_16x16x128_f8f6f4);
/// W6A16 adds it in kGemmW6A16Groups exact sums, group t over the channels
/// gemmChannelOfTerm(fp6_e2m3, t, 0..31), one rounding each (one
/// v_mfma_f32_16x16x32_bf16 each). The output is bf16 of the chains summed
/// in chain order with f32 additions, ((c0 + c1) + c2) + c3. Activation
/// scales stay internal (their layout is irrelevant).
constexpr size_t kGemmW6A16Groups = 4;
/// Channel (within its 128-channel chunk) of term `term` of MFMA group
/// `group`: A4W4 has one group, term = channel; W6A16's group t holds
/// 32 g + 8 t + i for term 8 g + i (lane group g feeds items 8t..8t+7 of its
/// 32-channel block, as the converted weights sit in its registers).
size_t gemmChannelOfTerm(ElemFormat format, size_t group, size_t term);

struct GemmProblem {
  RotateQuantProblem activation; // quant.format: fp4 (A4W4) or fp6_e2m3 (W6A16)
  size_t n = 0;
  WeightLayout weightLayout = WeightLayout::Plain;
  ScaleLayout weightScaleLayout = ScaleLayout::Plain;
  size_t gemmChunk = 128;
  size_t chains = 0; // 0: gemmChains(activation.k)
};
/// The GEMM's activation operand [m, k] as exact values: the dequantized
/// MXFP4 codes of rotate_quant (A4W4, activation.quant.format fp4), or the
/// rotated rows rounded to bf16 (W6A16, fp6_e2m3: the bf16 MFMA's B operand).
Result<std::vector<double>> gemmActivationValues(const RotateQuantProblem &activation,
                                                 const uint16_t *x, size_t m,
                                                 const uint16_t *rotation);

Result<std::vector<uint16_t>> rotateQuantGemm(const GemmProblem &problem, const uint16_t *x,
                                              size_t m, const uint16_t *rotation,
                                              const uint8_t *weightCodes,
                                              const uint8_t *weightScales);

/// quant_weight: W [n, K] bf16 -> rotated codes in `weightLayout` (fp4 only
/// for preshuffle_16x16; fp6_e2m3 only, n % 16 == 0 and K % 128 == 0 for
/// w6a16_16x128) and scales in problem.scaleLayout (rows padded to 256 when
/// shuffled), so that (x.R).(W.R)^T = x.W^T.
Result<QuantizedRows> quantWeight(const RotateQuantProblem &problem, WeightLayout weightLayout,
                                  const uint16_t *w, size_t n, const uint16_t *rotation);

/// Dequantize plain-layout rows to f32 (tests and the demo's error figures).
std::vector<float> dequantizeRows(const QuantizedRows &rows);

} // namespace mxf

#endif // MXFORGE_NUMERICS_REFERENCE_H
