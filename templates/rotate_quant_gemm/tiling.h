//===- tiling.h - How rotate_quant_gemm's work is split -----------*- C++ -*-===//
//
// Two GEMMs share it: fmt=fp4 is A4W4 (the activations rotated and
// quantized to MXFP4), fmt=fp6_e2m3 is W6A16 (the activations rotated and
// rounded to bf16, MXFP6 weights converted to bf16 in registers).
// One workgroup computes y for 16 rows (grid y) and columnsPerWorkgroup
// output channels (grid x): 16 per weight tile, each tile shared by `chains`
// waves (numerics gemmChains: chunk c of K belongs to chain c % chains), and
// each wave multiplying `tilesPerWave` tiles with the same activations, so
// that x is rotated and quantized once per workgroup for all of them.
// It walks K in slices: each wave first issues the first weight loads of its
// chunks of the slice, then the waves quantize the slice of their 16
// activation rows into LDS with rotate_quant's own emitter (round robin over
// rotation units), then each wave runs its chunks' MFMAs, tile by tile
// within each chunk, issuing the slice's later weight loads as the earlier
// ones are used (A4W4: one
// v_mfma_scale_f32_16x16x128_f8f6f4; W6A16: four v_mfma_f32_16x16x32_bf16
// after one v_cvt_scalef32_pk32_bf16_fp6), its chain's accumulator carried
// across slices. At the end the chains of a tile are added in chain order
// through LDS. docs/templates.md ("rotate_quant_gemm") says why.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_TILING_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_TILING_H

#include "templates/common/rotating_quantizer/tiling.h"

#include "abi/gemm_split.h"

#include "support/status.h"
#include "spec/kernel_spec.h"

namespace mxf {

/// K channels of one scaled MFMA (numerics' GemmProblem::gemmChunk).
constexpr int kGemmChunkChannels = 128;
/// The most K channels one slice puts into LDS: A4W4 34 KiB of codes and
/// scales for 16 rows at 4096, W6A16 64 KiB of bf16 at 2048.
constexpr int kGemmMaxSliceChannels = 4096;
constexpr int kGemmW6A16MaxSliceChannels = 2048;

/// fmt=fp6_e2m3: the W6A16 GEMM (bf16 activations, MXFP6 weights).
inline bool isW6A16Gemm(const KernelSpec &spec) { return spec.fmt == ElemFormat::E2M3; }

/// The spec rotate_quant's emitter builds the activation side from: the
/// GEMM's own for A4W4; for W6A16 the same rotation with fmt=fp4 and
/// round=rne (its quantizer is never used: the rotated values go to LDS as
/// bf16, GemmActivationEmitter::prepareBf16).
KernelSpec gemmActivationSpec(const KernelSpec &spec);

/// The activation side's decisions for the rotating quantizer: x at its
/// row stride, codes and scales into LDS (no padding rows, no front end);
/// the GEMM kernel asks for its own register budget.
const QuantizerFamily &gemmActivationQuantizer();

struct GemmTiling {
  KernelTiling activation; // rotate_quant's tiling of the same spec
  int sliceChannels = 0;   // S: a multiple of 128 and of the unit, dividing K
  int unitsPerSlice = 0;   // S / activation.channelsPerUnit
  /// Units whose x a wave loads before computing them: 32 VGPRs of x (RS=32:
  /// 8, 64: 4, 128: 2, 256: 1; no rotation: 2 of 64 channels, 4 of 32).
  /// Units whose loads sit inside their computation (the butterfly, a
  /// per-block R through each wave's LDS) go one at a time.
  int unitsInFlight = 1;
  int slices = 0;          // K / S
  int chains = 1;              // numerics gemmChains(K): waves per weight tile
  int tilesPerWorkgroup = 0;   // tile groups: waves / chains
  /// Weight tiles each wave multiplies: its tile group's tiles are
  /// g, g + tilesPerWorkgroup, ... of the workgroup's columns. As many as
  /// keep the grid at about kGemmTargetWorkgroups per 16 rows.
  int tilesPerWave = 1;
  /// abi/gemm_split.h: each workgroup runs one chain (blockIdx.x % chains)
  /// of tilesPerWorkgroup tiles, one per wave, and the `chains` workgroups
  /// of a column group add their partial sums through the `ws` operand.
  /// Its workspace layout (GemmChainSplit::split says whether it splits).
  GemmChainSplit split;
  /// The columns of one column group: 16 * tilesPerWorkgroup * tilesPerWave.
  int columnsPerGroup = 0;
  /// Workgroups per column group along grid x: 1, or `chains` when split.
  int workgroupsPerGroup = 1;
  /// The most chunks of one slice a wave multiplies: ceil((S/128) / chains).
  int chunksPerWave = 0;
  /// Weight loads (one chunk of one tile each) a wave keeps in flight: the
  /// first ones go out before the slice's activation side, each later one
  /// as an MFMA frees its registers. 40 VGPRs of weights.
  int weightLoadsInFlight = 0;
  /// A4W4: 16 * S/2 codes + 16 * S/32 scales; W6A16: 16 * S bf16.
  int activationLdsBytes = 0;
  /// chains > 1, unsplit: every wave's accumulators, 1 KiB a tile.
  int reductionLdsBytes = 0;
  /// Split: the arrival counter's old value, one i32 that thread 0 shares.
  int arrivalLdsBytes = 0;
  int wavesPerWorkgroup() const { return activation.wavesPerWorkgroup; }
  int workgroupSize() const { return activation.workgroupSize(); }
  int ldsBytes() const {
    return activation.ldsBytes + activationLdsBytes + reductionLdsBytes + arrivalLdsBytes;
  }
  /// Grid x: the column groups times their workgroups.
  int gridX(int64_t n) const {
    return int((n + columnsPerGroup - 1) / columnsPerGroup) * workgroupsPerGroup;
  }
};

/// Whether the template can generate `spec`; one line naming the key.
Status checkRotateQuantGemmSupported(const KernelSpec &spec);

/// The tiling of a supported spec.
GemmTiling chooseRotateQuantGemmTiling(const KernelSpec &spec);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_TILING_H
