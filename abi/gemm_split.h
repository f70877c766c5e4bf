//===- gemm_split.h - rotate_quant_gemm's chains split over workgroups -*- C++ -*-===//
//
// Unsplit, every workgroup of rotate_quant_gemm rotates and quantizes all K
// channels of its 16 rows, and that activation side is the launch's
// critical path wherever the weights do not dominate (issue 30: 6.4 us of
// timeline at K = 4096). Split, a workgroup computes one accumulation chain
// (numerics gemmChains: chunk c of K belongs to chain c % 4) of T tiles per
// wave, so it rotates and quantizes only its chain's quarter of K. The four
// workgroups of a column group leave their partial sums in a workspace; the
// last of them to arrive (an integer atomic counter) adds them in chain
// order, ((c0 + c1) + c2) + c3, the order numerics already defines, and
// stores y. Plain C++: the ABI's `ws` operand, the tiling and the template
// all derive from this one decision and layout.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ABI_GEMM_SPLIT_H
#define MXFORGE_ABI_GEMM_SPLIT_H

#include "spec/kernel_spec.h"

#include <cstdint>

namespace mxf {

/// The workgroups a decode launch aims for: MI355X's 256 CUs (8 XCDs of
/// 32; ../shared/docs/MI355X_MODEL_FACTS.md). Fewer weight tiles per wave
/// would re-rotate x in more workgroups than the CUs run at once; more
/// would leave CUs idle.
constexpr int64_t kGemmTargetWorkgroups = 256;
/// The most weight tiles one wave multiplies per slice: its accumulators
/// are 4 VGPRs each, and the chains' reduction keeps 1 KiB per wave and
/// tile (LDS unsplit, the workspace split).
constexpr int64_t kGemmMaxTilesPerWave = 8;

/// Weight tiles per wave for `weightTiles` tiles of 16 columns and
/// `tileGroups` tile groups a workgroup: as many as keep the grid at about
/// kGemmTargetWorkgroups per 16 rows, 1 to kGemmMaxTilesPerWave. Rounded
/// down: one more weight round trip per workgroup costs more than the
/// grid's second partial wave of workgroups (6144 columns: 384 tiles as 384
/// workgroups estimate 8.9 us, as 192 of two tiles 10.0 us).
int64_t gemmTilesPerWave(int64_t weightTiles, int64_t tileGroups);

/// Waves of a split workgroup: one tile group each, one chain.
constexpr int64_t kGemmSplitTilesPerGroup = 4;
/// Channels of one chain's step: the four chains' chunks (4 x 128). A split
/// spec's K and slices are multiples of it, so every chain has the same
/// chunks in every slice.
constexpr int64_t kGemmSplitChannelStep = 512;

struct GemmChainSplit {
  bool split = false;
  int64_t chains = 0;       // workgroups per column group (numerics gemmChains(K))
  int64_t tilesPerWave = 0; // gemmTilesPerWave(N/16 tiles, 1): T
  int64_t columnGroups = 0; // ceil(N / (64 T))
  /// Per row tile of 16 rows, in i32 words: the column groups' arrival
  /// counters (rounded up to 4 words, so the partials stay 16-byte aligned),
  /// then partial(group, chain, wave, tile, lane) as 4 f32 bit patterns.
  int64_t counterWords = 0;
  int64_t wordsPerRowTile = 0;
  /// The word of partial (group, chain, wave, wave's tile t, lane) within
  /// its row tile.
  int64_t partialWord(int64_t group, int64_t chain, int64_t wave, int64_t tile,
                      int64_t lane) const {
    return counterWords +
           ((((group * chains + chain) * kGemmSplitTilesPerGroup + wave) * tilesPerWave + tile) *
                64 +
            lane) *
               4;
  }
};

/// Whether rotate_quant_gemm `spec` splits its chains over workgroups, and
/// the workspace's layout if so: A4W4 (fmt=fp4), K a multiple of 512 (4
/// chains), at most 4 tiles per wave (N below 20480), a rotation unit
/// inside one 128-channel chunk (RS <= 128) and the 4-wave workgroup (not a
/// learned R of 128, staged by 8 waves).
/// Precondition: validateSpec(spec).ok() and spec.op == RotateQuantGemm.
GemmChainSplit gemmChainSplit(const KernelSpec &spec);

} // namespace mxf

#endif // MXFORGE_ABI_GEMM_SPLIT_H
