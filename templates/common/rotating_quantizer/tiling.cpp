//===- tiling.cpp - How the rotating quantizer splits its work ------------===//

#include "templates/common/rotating_quantizer/tiling.h"

#include "numerics/formats.h"
#include "numerics/layouts.h"
#include "numerics/reference.h"
#include "spec/buckets.h"

#include <string>

namespace mxf {

Status checkRotatingQuantizerSupported(const KernelSpec &spec) {
  auto unsupported = [&](const std::string &what) {
    return Status::failure(printSpec(spec) + ": the " + kernelOpName(spec.op) +
                           " template does not support " + what + " yet");
  };
  // Every K the spec accepts (a multiple of 32 and of RS, up to 65536): a
  // wave's work never grows with K, only the number of waves does.
  // Every format, through the hardware's scaled converts (BlockQuantizer).
  // The f32 butterfly across lanes at RS=32 (one block per wave: 8 channels
  // a lane, two cross-lane stages). At RS=64 it would need a third
  // cross-lane stage or 16 channels a lane; the MFMA path serves it.
  if (spec.rot == RotationKind::HadamardButterfly && spec.RS != 32)
    return unsupported("rot=hadamard_butterfly at RS=" + std::to_string(spec.RS) +
                       " (only RS=32; rot=hadamard is the MFMA path for every RS)");
  // Stochastic rounding through v_cvt_scalef32_sr_pk_fp4_f32,
  // v_cvt_scalef32_sr_{fp8,bf8}_f32 and v_cvt_scalef32_sr_pk32_{fp6,bf6}_f32
  // (one pair per convert), each element's random word numerics'
  // srRandomForElement of the seed operand (BlockQuantizer).
  return Status::success();
}

KernelTiling chooseRotatingQuantizerTiling(const KernelSpec &spec, const QuantizerFamily &family) {
  KernelTiling tiling;
  // A wave owns one rotation block of 16 tokens: it loads the block's x once
  // (RS/32 16-byte loads per lane) and reuses them for every output channel
  // of the block. Without rotation a wave takes 64 channels (2 scale
  // blocks, four 8-byte loads per lane in flight, as many bytes as RS=64
  // loads). More channels per wave would only mean fewer waves: at decode
  // sizes (K=4096, M <= 16) 64 waves instead of 16 spread over the CUs, and
  // a kernel a quarter the size to compile (256 channels took 660
  // instructions and 33 ms).
  // A K that is an odd number of 32-channel blocks takes one block per wave.
  tiling.channelsPerUnit = spec.RS > 0 ? spec.RS : spec.K % 64 == 0 ? 64 : 32;
  tiling.unitsPerRow = spec.K / tiling.channelsPerUnit;
  // The MoE kernel's sorter writes the padding of its sorted scales itself;
  // a GEMM's layout is its weights' (its activation scales stay in LDS).
  // AITER's A6W6 tiles pad rows to 256 too, but their padding rows are
  // filled by the launched tiles' waves (rotate_quant_template.cpp says
  // why), so the grid stays ceil(m/16) row tiles.
  tiling.fillsRowPadding =
      spec.layout == ScaleLayout::A4W4Shuffle && family.fillsShuffledRowPadding;
  // A learned R (RS x RS bf16) is read by every wave: stage it in LDS, shared
  // by the workgroup. Up to RS=128 (32 KiB) all of it, once; with 8 waves
  // per workgroup at RS=128, four workgroups (8 waves per SIMD) still fit in
  // the CU's 160 KiB. The whole RS=256 matrix (128 KiB) would leave one
  // workgroup per CU, so it is staged one output block's 32 columns at a
  // time (16 KiB), double-buffered: 32 KiB. Its 16 waves make each slice
  // one 16-byte piece per thread and two workgroups fill the CU's 32 wave
  // slots.
  if (spec.rot == RotationKind::Learned) {
    tiling.stagesRotationInLds = true;
    tiling.wavesPerWorkgroup = spec.RS >= 256 ? 16 : spec.RS >= 128 ? 8 : 4;
    if (spec.RS >= 256) {
      tiling.rotationSliceColumns = 32;
      tiling.ldsBytes = 2 * spec.RS * tiling.rotationSliceColumns * 2;
    } else {
      tiling.ldsBytes = spec.RS * spec.RS * 2;
    }
  }
  // learned_per_block needs the columns of a different R in every wave: R
  // is not shared, so each wave puts only the 32x32 piece (input chunk x
  // output block) it multiplies next through its own LDS (2 KiB; 8 KiB per
  // workgroup). That turns 16 two-byte gathers per MFMA pair into two
  // 16-byte loads. From RS=64 on, where a block has an even number of
  // 32-channel chunks (the chunk loop takes two per iteration); RS=64 used
  // to gather (64 two-byte loads per lane, and a kernel that took ~40 ms to
  // compile). RS=32, one chunk, gathers its 16 directly.
  if (spec.rot == RotationKind::LearnedPerBlock && spec.RS >= 64) {
    tiling.transposesInWaveLds = true;
    tiling.ldsBytes = tiling.wavesPerWorkgroup * 32 * 32 * 2;
  }
  return tiling;
}

KernelSpec rotatingQuantizerCodeSpec(const KernelSpec &spec) {
  KernelSpec code = spec;
  code.M = kLargestMBucket;
  return code;
}

LaunchRecord rotatingQuantizerLaunchRecord(const KernelSpec &spec, const QuantizerFamily &family) {
  const KernelTiling tiling = chooseRotatingQuantizerTiling(spec, family);
  LaunchRecord record;
  record.workgroupSize = uint32_t(tiling.workgroupSize());
  record.gridX =
      uint32_t((tiling.unitsPerRow + tiling.wavesPerWorkgroup - 1) / tiling.wavesPerWorkgroup);
  record.rowsPerWorkgroup = uint32_t(tiling.rowsPerTile);
  record.rowPadding = tiling.fillsRowPadding ? uint32_t(kA4W4RowPadding) : 1;
  record.ldsBytes = uint32_t(tiling.ldsBytes + frontLdsBytes(family, spec, tiling));
  record.maxRows = uint32_t(spec.M);
  return record;
}

} // namespace mxf
