//===- tiling.h - How rotate_quant_gemm's work is split -----------*- C++ -*-===//
//
// One workgroup computes y for 16 rows (grid y) and columnsPerWorkgroup
// output channels (grid x, 16 per wave). It walks K in slices: the waves
// first quantize the slice of their 16 activation rows into LDS with
// rotate_quant's own emitter (round robin over rotation units), then each
// wave multiplies its 16 weight rows against it, one
// v_mfma_scale_f32_16x16x128_f8f6f4 per 128 channels, the accumulator
// carried across slices. docs/templates.md ("rotate_quant_gemm") says why.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_TILING_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_TILING_H

#include "templates/rotate_quant/tiling.h"

#include "numerics/status.h"
#include "spec/kernel_spec.h"

namespace mxf {

/// K channels of one scaled MFMA (numerics' GemmProblem::gemmChunk).
constexpr int kGemmChunkChannels = 128;
/// The most K channels one slice quantizes into LDS (34 KiB of codes and
/// scales for 16 rows at 4096).
constexpr int kGemmMaxSliceChannels = 4096;

struct GemmTiling {
  KernelTiling activation; // rotate_quant's tiling of the same spec
  int sliceChannels = 0;   // S: a multiple of 128 and of the unit, dividing K
  int unitsPerSlice = 0;   // S / activation.channelsPerUnit
  int slices = 0;          // K / S
  int columnsPerWorkgroup = 0;
  int activationLdsBytes = 0; // 16 * S/2 codes + 16 * S/32 scales
  int wavesPerWorkgroup() const { return activation.wavesPerWorkgroup; }
  int workgroupSize() const { return activation.workgroupSize(); }
  int ldsBytes() const { return activation.ldsBytes + activationLdsBytes; }
};

/// Whether the template can generate `spec`; one line naming the key.
Status checkRotateQuantGemmSupported(const KernelSpec &spec);

/// The tiling of a supported spec.
GemmTiling chooseRotateQuantGemmTiling(const KernelSpec &spec);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_TILING_H
