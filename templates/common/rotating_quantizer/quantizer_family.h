//===- quantizer_family.h - What a family of the rotating quantizer decides -*- C++ -*-===//
//
// rotate_quant, rotate_quant_moe, quant_weight and rotate_quant_gemm's
// activation side are one pipeline (load rows, rotate, scale and convert,
// store) that differs in a few decisions. Each family states them here, as
// data in its own folder; the shared tiling, launch record and emitter read
// them and never branch on the op. Plain C++, so that the runtime-only
// library computes launch records from it without MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_QUANTIZER_FAMILY_H
#define MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_QUANTIZER_FAMILY_H

#include "spec/kernel_spec.h"

#include <cstddef>

namespace mxf {

struct KernelTiling;

/// One rule of a family's register budget: when `applies`, the kernel asks
/// LLVM for `wavesPerEu` waves per SIMD (rocdl.waves_per_eu: 8 is 64
/// VGPRs, 7 is 72, 6 is 80, 5 is 96, 4 is 128); 0 asks nothing. `why` is the
/// measurement that set it (docs/templates.md, "Register budgets").
struct RegisterBudgetRule {
  int wavesPerEu;
  bool (*applies)(const KernelSpec &spec, const KernelTiling &tiling);
  const char *why;
};

struct QuantizerFamily {
  /// The bf16 rows the kernel reads and their row-stride argument: "x" and
  /// "x_stride"; quant_weight's "w" and "w_stride".
  const char *input;
  const char *inputStride;
  /// The rows are the spec's N, a build-time constant (quant_weight: no m
  /// argument, codes dense in their weight layout), not the by-value m.
  bool rowsAreN;
  /// Codes go in the spec's weight layout (wlayout) rather than plain rows
  /// (or AITER's A6W6 tiles when the scale layout says so).
  bool codesInWeightLayout;
  /// The kernel fills the a4w4_shuffle padding rows' scale bytes up to
  /// pad256 rows itself (its grid covers them). The MoE sorter pads its
  /// sorted scales itself; a GEMM keeps its activation scales in LDS.
  bool fillsShuffledRowPadding;
  /// LDS the family's own front end takes beside the quantizer's (the MoE
  /// sorter's arrays), in bytes for a workgroup of `workgroupSize`
  /// threads; null: none.
  int (*frontLdsBytes)(const KernelSpec &spec, int workgroupSize);
  /// The register budget: the first rule that applies decides; none that
  /// applies asks nothing.
  const RegisterBudgetRule *registerBudget;
  size_t registerBudgetRules;
};

/// The waves per SIMD `family` asks for `spec` (0: none), by its budget.
int chooseWavesPerEu(const QuantizerFamily &family, const KernelSpec &spec,
                     const KernelTiling &tiling);

/// The family's front-end LDS bytes for `spec` (0 without a front end).
int frontLdsBytes(const QuantizerFamily &family, const KernelSpec &spec,
                  const KernelTiling &tiling);

/// Predicates the families' budgets share (register_budget.cpp says what
/// each stands for), and the rules made of them, each decided once: a
/// family lists these and adds its own.
namespace register_budget {
/// 64 VGPRs are reached without asking: RS=256 Hadamard or learned, R
/// through each wave's LDS, or AITER's A6W6 tiles hold many registers;
/// every other kernel stays below 64 on its own.
bool staysBelow64Unasked(const KernelSpec &spec, const KernelTiling &tiling);
bool isFp6(const KernelSpec &spec, const KernelTiling &tiling);
bool fp6TilesSelectedAtRs256(const KernelSpec &spec, const KernelTiling &tiling);
bool fp6TilesSelectedOrLearnedRs256(const KernelSpec &spec, const KernelTiling &tiling);
bool fp6AtRs256OrTiles(const KernelSpec &spec, const KernelTiling &tiling);
bool selectedAtRs256(const KernelSpec &spec, const KernelTiling &tiling);
bool always(const KernelSpec &spec, const KernelTiling &tiling);

inline constexpr RegisterBudgetRule kUnasked{0, staysBelow64Unasked, "below 64 VGPRs on its own"};
inline constexpr RegisterBudgetRule kFp6TilesSelectedAtRs256{
    4, fp6TilesSelectedAtRs256, "fp6 A6W6 tiles, selected, RS=256: 12 bytes spilled at 96"};
inline constexpr RegisterBudgetRule kFp6TilesSelectedOrLearnedRs256{
    5, fp6TilesSelectedOrLearnedRs256, "fp6 A6W6 tiles, selected or RS=256 learned"};
inline constexpr RegisterBudgetRule kFp6AtRs256OrTiles{
    6, fp6AtRs256OrTiles, "fp6 at RS=256 or into A6W6 tiles: spills at 72"};
inline constexpr RegisterBudgetRule kFp6{7, isFp6, "fp6: the convert's two 16-VGPR source tuples"};
inline constexpr RegisterBudgetRule kSelectedAtRs256{
    7, selectedAtRs256, "both paths of selective rotation at RS=256: 28 bytes spilled at 64"};
inline constexpr RegisterBudgetRule kTarget{8, always, "the target: 64 VGPRs, 8 waves per SIMD"};
} // namespace register_budget

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_QUANTIZER_FAMILY_H
