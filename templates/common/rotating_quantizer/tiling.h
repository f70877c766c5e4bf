//===- tiling.h - How the rotating quantizer splits its work over waves -*- C++ -*-===//
//
// One readable function decides how a kernel of the rotating quantizer
// splits its work (docs/templates.md explains the choice), with its
// family's decisions (quantizer_family.h). Each family's rules turn it into
// the launch record the compiler stores with the code (abi/launch_record.h).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_TILING_H
#define MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_TILING_H

#include "templates/common/rotating_quantizer/quantizer_family.h"

#include "abi/launch_record.h"
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
  /// The rotation's LDS (a family's front end adds its own:
  /// QuantizerFamily::frontLdsBytes).
  int ldsBytes = 0;
  /// Rows the kernel must visit for an actual M: M itself, or the a4w4
  /// shuffle's padding (pad256(M)) whose scale bytes the kernel fills.
  bool fillsRowPadding = false;
};

/// What the rotating quantizer (the emitter rotate_quant, quant_weight,
/// rotate_quant_moe and rotate_quant_gemm's activation side are built by)
/// can generate: fmt and rot; the message names the key and the op.
Status checkRotatingQuantizerSupported(const KernelSpec &spec);

/// The tiling of a supported spec of `family`.
KernelTiling chooseRotatingQuantizerTiling(const KernelSpec &spec, const QuantizerFamily &family);

/// The spec the code is compiled for: M at the largest bucket (the code
/// does not depend on M; a launch passes m).
KernelSpec rotatingQuantizerCodeSpec(const KernelSpec &spec);

/// How a kernel of `family` is launched: a workgroup per 16-row tile and
/// as many waves' units as the row has, the family's front-end LDS added,
/// up to spec.M rows (a family whose rows are N sets its own maxRows).
LaunchRecord rotatingQuantizerLaunchRecord(const KernelSpec &spec, const QuantizerFamily &family);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_TILING_H
