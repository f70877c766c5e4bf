//===- tiling.cpp - How rotate_quant_gemm's work is split -----------------===//

#include "templates/rotate_quant_gemm/tiling.h"

#include <algorithm>
#include <string>

namespace mxf {

Status checkRotateQuantGemmSupported(const KernelSpec &spec) {
  if (Status valid = validateSpec(spec); !valid.ok())
    return valid;
  if (spec.op != KernelOp::RotateQuantGemm)
    return Status::failure(printSpec(spec) + " is not a rotate_quant_gemm spec");
  auto unsupported = [&](const std::string &what) {
    return Status::failure(printSpec(spec) + ": the rotate_quant_gemm template does not support " +
                           what);
  };
  if (spec.K % kGemmChunkChannels != 0)
    return unsupported("K=" + std::to_string(spec.K) +
                       " (K must be a multiple of 128: one v_mfma_scale_f32_16x16x128_f8f6f4 "
                       "per 128 channels, the order numerics' GEMM defines)");
  // The kernel ABI gives the GEMM no seed operand (abi/operands.h).
  if (spec.round == Rounding::Sr)
    return unsupported("round=sr (the GEMM takes no seed operand; use round=rne)");
  // All of a 256x256 learned R (128 KiB) and a slice of activations do not
  // fit one workgroup's LDS; rotate_quant stages it in slices with a barrier
  // per output block, which cannot sit in the GEMM's per-wave unit loop.
  if (spec.rot == RotationKind::Learned && spec.RS >= 256)
    return unsupported("rot=learned at RS=256 yet (RS up to 128; learned_per_block and hadamard "
                       "serve RS=256)");
  return checkRotatingQuantizerSupported(spec);
}

GemmTiling chooseRotateQuantGemmTiling(const KernelSpec &spec) {
  GemmTiling tiling;
  tiling.activation = chooseRotateQuantTiling(spec);
  // A slice is whole MFMA chunks and whole rotation units: both are powers
  // of two up to 256 dividing K, so their maximum is the step. The largest
  // multiple of the step that divides K and fits kGemmMaxSliceChannels:
  // K=25600 takes 2560, K=18432 2048 (fewer slices, fewer barriers).
  const int step = std::max(kGemmChunkChannels, tiling.activation.channelsPerUnit);
  tiling.sliceChannels = step;
  for (int s = step; s <= std::min(spec.K, kGemmMaxSliceChannels); s += step)
    if (spec.K % s == 0)
      tiling.sliceChannels = s;
  tiling.unitsPerSlice = tiling.sliceChannels / tiling.activation.channelsPerUnit;
  tiling.slices = spec.K / tiling.sliceChannels;
  tiling.columnsPerWorkgroup = tiling.wavesPerWorkgroup() * 16;
  tiling.activationLdsBytes = 16 * tiling.sliceChannels / 2 + 16 * tiling.sliceChannels / 32;
  return tiling;
}

} // namespace mxf
