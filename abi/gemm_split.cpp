//===- gemm_split.cpp - rotate_quant_gemm's chains split over workgroups --===//

#include "abi/gemm_split.h"

#include "numerics/reference.h"

#include <algorithm>

namespace mxf {

int64_t gemmTilesPerWave(int64_t weightTiles, int64_t tileGroups) {
  return std::clamp<int64_t>(weightTiles / (tileGroups * kGemmTargetWorkgroups), 1,
                             kGemmMaxTilesPerWave);
}

GemmChainSplit gemmChainSplit(const KernelSpec &spec) {
  GemmChainSplit out;
  const int64_t weightTiles = (spec.N + 15) / 16;
  // From 5 tiles a wave on (N >= 20480), the launch waits for its weights,
  // not its activation side, and the workspace grows to N x 256 bytes per
  // row tile: Qwen3-8B's gate_up (24576 x 4096, T = 6) estimated 12.83 us
  // unsplit and 13.49 split at m = 1 (DeepSeek-V3's 18432 x 7168, T = 4:
  // 18.95 -> 15.72).
  const bool narrow = gemmTilesPerWave(weightTiles, 1) <= 4;
  const bool unitInChunk = spec.RS <= 128;
  const bool fourWaves = !(spec.rot == RotationKind::Learned && spec.RS == 128);
  // W6A16's activation side only rotates: split, its estimates grew
  // (docs/estimate.md), so it keeps its chains in one workgroup.
  const bool a4w4 = spec.fmt == ElemFormat::E2M1;
  if (spec.K % kGemmSplitChannelStep != 0 || !a4w4 || !narrow || !unitInChunk || !fourWaves)
    return out;
  out.split = true;
  out.chains = int64_t(gemmChains(size_t(spec.K)));
  out.tilesPerWave = gemmTilesPerWave(weightTiles, 1);
  const int64_t tilesPerGroup = kGemmSplitTilesPerGroup * out.tilesPerWave;
  out.columnGroups = (weightTiles + tilesPerGroup - 1) / tilesPerGroup;
  out.counterWords = (out.columnGroups + 3) / 4 * 4;
  out.wordsPerRowTile = out.partialWord(out.columnGroups, 0, 0, 0, 0);
  return out;
}

} // namespace mxf
