//===- tiling.h - How a spec's work is split over waves ----------*- C++ -*-===//
//
// One readable function decides how a kernel's work is split (docs/
// templates.md explains the choice). The registry entry turns it into the
// launch record the compiler stores with the code (abi/launch_record.h).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_TILING_H
#define MXFORGE_TEMPLATES_TILING_H

#include "support/status.h"
#include "spec/kernel_spec.h"

#include <array>
#include <cstdint>

namespace mxf {

struct KernelTiling {
  int wavesPerWorkgroup = 4; // 256 lanes
  int rowsPerTile = 16;      // tokens per MFMA tile (the N of 16x16x32)
  int channelsPerUnit = 0;   // channels one wave handles: RS, or 64 (32) without rotation
  int unitsPerRow = 0;       // K / channelsPerUnit
  int workgroupSize() const { return wavesPerWorkgroup * 64; }
  /// A learned rotation shared by every block is staged in LDS by the whole
  /// workgroup and read transposed (ds_read_b64_tr_b16).
  bool stagesRotationInLds = false;
  /// 0: all of R is staged once. Otherwise R is staged this many output
  /// columns (one 32-channel output block) at a time, in two LDS buffers
  /// that alternate between output blocks.
  int rotationSliceColumns = 0;
  /// learned_per_block at RS >= 64: each wave copies the 32x32 piece of its
  /// block's R that the next MFMA pair needs into its own 2 KiB of LDS and
  /// reads it back transposed (no sharing, no barriers).
  bool transposesInWaveLds = false;
  int ldsBytes = 0;
  /// rotate_quant_moe: the sorter's own LDS buffer (sort_lds.h), beside the
  /// rotation's ldsBytes.
  int sortLdsBytes = 0;
  /// Rows the kernel must visit for an actual M: M itself, or the a4w4
  /// shuffle's padding (pad256(M)) whose scale bytes the kernel fills.
  bool fillsRowPadding = false;
};

/// What the rotating quantizer (the emitter both rotate_quant and
/// quant_weight are built by) can generate: fmt, rot and round; the message
/// names the key and the op.
Status checkRotatingQuantizerSupported(const KernelSpec &spec);

/// Whether the rotate_quant template can generate `spec` (a valid spec may
/// still be outside what the template supports); the message says which key.
Status checkRotateQuantSupported(const KernelSpec &spec);

/// The tiling of a supported rotate_quant spec.
KernelTiling chooseRotateQuantTiling(const KernelSpec &spec);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_TILING_H
