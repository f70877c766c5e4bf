//===- gemm_split.cpp - rotate_quant_gemm's chains split over workgroups --===//

#include "abi/gemm_split.h"

#include "numerics/reference.h"

namespace mxf {

GemmChainSplit gemmChainSplit(const KernelSpec &spec) {
  GemmChainSplit out;
  const int64_t weightTiles = (spec.N + 15) / 16;
  // 512 tiles and more give the unsplit tiling two tiles per wave and
  // about one workgroup per CU already (tiling.h, kGemmTargetWorkgroups).
  const bool narrow = weightTiles < 2 * 256;
  const bool unitInChunk = spec.RS <= 128;
  const bool fourWaves = !(spec.rot == RotationKind::Learned && spec.RS == 128);
  // W6A16's activation side only rotates: split, its estimates grew
  // (docs/estimate.md), so it keeps its chains in one workgroup.
  const bool a4w4 = spec.fmt == ElemFormat::E2M1;
  if (spec.K % kGemmSplitChannelStep != 0 || !a4w4 || !narrow || !unitInChunk || !fourWaves)
    return out;
  out.split = true;
  out.chains = int64_t(gemmChains(size_t(spec.K)));
  out.columnGroups = (weightTiles + kGemmSplitTilesPerGroup - 1) / kGemmSplitTilesPerGroup;
  out.counterWords = (out.columnGroups + 3) / 4 * 4;
  out.wordsPerRowTile = out.partialWord(out.columnGroups, 0, 0, 0);
  return out;
}

} // namespace mxf
