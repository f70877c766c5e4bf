//===- tiling.cpp - How rotate_quant_gemm's work is split -----------------===//

#include "templates/rotate_quant_gemm/tiling.h"

#include "templates/family_rules.h"

#include "abi/gemm_split.h"

#include "numerics/reference.h"

#include <algorithm>
#include <string>

namespace mxf {

Status checkRotateQuantGemmSupported(const KernelSpec &spec) {
  if (Status family = checkSpecOfFamily(spec, KernelOp::RotateQuantGemm); !family.ok())
    return family;
  auto unsupported = [&](const std::string &what) {
    return Status::failure(printSpec(spec) + ": the rotate_quant_gemm template does not support " +
                           what);
  };
  if (spec.K % kGemmChunkChannels != 0)
    return unsupported("K=" + std::to_string(spec.K) +
                       " (K must be a multiple of 128: one v_mfma_scale_f32_16x16x128_f8f6f4, "
                       "or four v_mfma_f32_16x16x32_bf16, per 128 channels, the order numerics' "
                       "GEMM defines)");
  // The kernel ABI gives the GEMM no seed operand (abi/operands.h). W6A16
  // rounds nothing stochastically: its codeSpec sets round=rne.
  if (spec.round == Rounding::Sr && !isW6A16Gemm(spec))
    return unsupported("round=sr (the GEMM takes no seed operand; use round=rne)");
  // All of a 256x256 learned R (128 KiB) and a slice of activations do not
  // fit one workgroup's LDS; rotate_quant stages it in slices with a barrier
  // per output block, which cannot sit in the GEMM's per-wave unit loop.
  if (spec.rot == RotationKind::Learned && spec.RS >= 256)
    return unsupported("rot=learned at RS=256 yet (RS up to 128; learned_per_block and hadamard "
                       "serve RS=256)");
  if (Status activation = checkRotatingQuantizerSupported(gemmActivationSpec(spec));
      !activation.ok())
    return activation;
  // abi/gemm_split.h decides from the keys alone (the ABI's ws operand
  // follows from it); the split template needs one wave per tile and chain.
  if (gemmChainSplit(spec).split &&
      chooseRotatingQuantizerTiling(gemmActivationSpec(spec), gemmActivationQuantizer())
              .wavesPerWorkgroup != kGemmSplitTilesPerGroup)
    return unsupported("a split of its chains over workgroups with other than 4 waves a "
                       "workgroup (abi/gemm_split.h)");
  return Status::success();
}

const QuantizerFamily &gemmActivationQuantizer() {
  static const QuantizerFamily activation = {
      /*input=*/"x",
      /*inputStride=*/"x_stride",
      /*rowsAreN=*/false,
      /*codesInWeightLayout=*/false,
      /*fillsShuffledRowPadding=*/false,
      /*frontLdsBytes=*/nullptr,
      /*registerBudget=*/nullptr,
      /*registerBudgetRules=*/0,
  };
  return activation;
}

KernelSpec gemmActivationSpec(const KernelSpec &spec) {
  if (!isW6A16Gemm(spec))
    return spec;
  KernelSpec activation = spec;
  activation.fmt = ElemFormat::E2M1;
  activation.wlayout = WeightLayout::Plain;
  activation.round = Rounding::Rne;
  return activation;
}

GemmTiling chooseRotateQuantGemmTiling(const KernelSpec &spec) {
  GemmTiling tiling;
  const bool w6a16 = isW6A16Gemm(spec);
  tiling.activation =
      chooseRotatingQuantizerTiling(gemmActivationSpec(spec), gemmActivationQuantizer());
  // A slice is whole MFMA chunks and whole rotation units: both are powers
  // of two up to 256 dividing K, so their maximum is the step. The largest
  // multiple of the step that divides K and fits kGemmMaxSliceChannels:
  // K=25600 takes 2560, K=18432 2048 (fewer slices, fewer barriers).
  tiling.split = gemmChainSplit(spec);
  const GemmChainSplit &split = tiling.split;
  // Split, every slice holds whole steps of the four chains' chunks, so a
  // workgroup's chain has the same chunks, and units, in each.
  const int step = split.split ? int(kGemmSplitChannelStep)
                               : std::max(kGemmChunkChannels, tiling.activation.channelsPerUnit);
  tiling.sliceChannels = step;
  const int maxSlice = w6a16 ? kGemmW6A16MaxSliceChannels : kGemmMaxSliceChannels;
  for (int s = step; s <= std::min(spec.K, maxSlice); s += step)
    if (spec.K % s == 0)
      tiling.sliceChannels = s;
  tiling.unitsPerSlice = tiling.sliceChannels / tiling.activation.channelsPerUnit;
  // A rotated unit's x is RS/32 vector<8xbf16>, 4 VGPRs each; a plain
  // unit's 64 channels are 2 blocks x 2 tiles of 4 f32 (16 VGPRs). 64 VGPRs
  // of x in flight: half the activation side's round trips of 32 (K=4096,
  // RS=64: 2 instead of 4; 10.0 -> 8.9 us estimated at 4096x4096), for
  // 160-208 VGPRs instead of 122-160 (2 workgroups a CU instead of 3, which
  // costs a second round only where m > 16 makes more than 512 workgroups).
  const bool loadsUpFront =
      spec.rot != RotationKind::HadamardButterfly && !tiling.activation.transposesInWaveLds;
  const int unitVgprs = spec.RS > 0 ? spec.RS / 32 * 4 : tiling.activation.channelsPerUnit / 4;
  tiling.unitsInFlight = loadsUpFront ? std::max(1, 64 / unitVgprs) : 1;
  tiling.slices = spec.K / tiling.sliceChannels;
  // Each weight tile's K is dealt to `chains` waves (numerics' order), so a
  // wave waits for a quarter of the tile's weight loads and, with fewer
  // columns per workgroup, the grid has more workgroups to spread over the
  // CUs at decode sizes.
  tiling.chains = int(gemmChains(size_t(spec.K)));
  // Split: a workgroup runs one chain, so each of its waves takes a tile.
  tiling.tilesPerWorkgroup =
      split.split ? tiling.wavesPerWorkgroup() : tiling.wavesPerWorkgroup() / tiling.chains;
  tiling.workgroupsPerGroup = split.split ? tiling.chains : 1;
  // A wide N (gate_up's 24576 columns: 1536 tiles) would otherwise launch
  // several workgroups per CU, each rotating and quantizing the same x
  // again (issue 30: issue-bound at 2.3x AITER's bare GEMM). The summation
  // order of a column does not depend on which wave owns its tile.
  const int weightTiles = (spec.N + 15) / 16;
  // Split or not, T tiles per wave keep the grid near one workgroup per CU.
  tiling.tilesPerWave =
      int(gemmTilesPerWave(weightTiles, split.split ? 1 : tiling.tilesPerWorkgroup));
  tiling.columnsPerGroup = tiling.tilesPerWorkgroup * tiling.tilesPerWave * 16;
  const int chunksPerSlice = tiling.sliceChannels / kGemmChunkChannels;
  tiling.chunksPerWave = (chunksPerSlice + tiling.chains - 1) / tiling.chains;
  // A4W4: 16 code bytes and a scale a chunk (5 VGPRs); W6A16: 24 and a
  // scale (7). One tile's chunks of a 4096-channel slice all fit.
  const int vgprsPerLoad = w6a16 ? 7 : 5;
  tiling.weightLoadsInFlight =
      std::min(tiling.chunksPerWave * tiling.tilesPerWave, std::max(1, 40 / vgprsPerLoad));
  tiling.activationLdsBytes = w6a16 ? 16 * tiling.sliceChannels * 2
                                    : 16 * tiling.sliceChannels / 2 + 16 * tiling.sliceChannels / 32;
  tiling.reductionLdsBytes = tiling.chains > 1 && !split.split
                                 ? tiling.wavesPerWorkgroup() * tiling.tilesPerWave * 64 * 4 * 4
                                 : 0;
  tiling.arrivalLdsBytes = split.split ? 4 : 0;
  return tiling;
}

} // namespace mxf
