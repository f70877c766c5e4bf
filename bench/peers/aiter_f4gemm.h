//===- aiter_f4gemm.h - AITER's MXFP4 GEMM code objects, counted -*- C++ -*-===//
//
// The performance model's check (docs/estimate.md, "The check") runs other
// people's gfx950 kernels whose MI355X times are published through the
// emulator: AITER's hand-written f4gemm_bf16_per1x32Fp4_BpreShuffle_<tile>
// code objects (bench/peers/aiter_f4gemm/, provenance in
// bench/peers/README.md), launched as AITER's gemm_a4w4_asm launches them
// (grid N/tileN x ceil(M/tileM), 256 work-items, the padded kernarg layout
// its metadata declares), beside the tuner's measured times
// (bench/peers/aiter_f4gemm_mi355x.csv).
//
// The runs only count: the inputs are poison bytes, the outputs are not
// kept, and the kernels' f32-denormal flushing and LDS-destination loads
// are let through (emu::LaunchOptions::countsOnly). Two workgroups of the
// grid are emulated (the first and the last) and their counts scaled to
// the grid: with N a multiple of the tile every workgroup runs the same
// instruction stream on other addresses.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_BENCH_PEERS_AITER_F4GEMM_H
#define MXFORGE_BENCH_PEERS_AITER_F4GEMM_H

#include "emulator/emulator.h"
#include "runtime/device.h"
#include "support/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxf::bench {

/// One published time: the kernel of tile `tile` ("32x128") at M x N x K.
struct F4GemmRow {
  int m = 0, n = 0, k = 0;
  std::string tile;
  double publishedUs = 0;
};

/// Reads the rows of a CSV with header M,N,K,tile,us ('#' lines are notes).
Result<std::vector<F4GemmRow>> readF4GemmRows(const std::string &path);

struct CountedF4Gemm {
  runtime::LaunchReport report; // scaled to the whole grid
  uint64_t requiredBytes = 0;   // A, B and their scales, M rows of D, once
  uint64_t workgroups = 0, workgroupsRun = 0;
};

/// Runs `row`'s launch on the emulator with `costs`' timeline; `codeObjects`
/// is the folder of the .co files.
Result<CountedF4Gemm> countF4Gemm(const F4GemmRow &row, const std::string &codeObjects,
                                  const emu::TimelineCosts &costs);

} // namespace mxf::bench

#endif // MXFORGE_BENCH_PEERS_AITER_F4GEMM_H
