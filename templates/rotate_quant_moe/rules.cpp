//===- rules.cpp - rotate_quant_moe's family rules -------------------------===//

#include "templates/rotate_quant_moe/rules.h"

#include "templates/common/rotating_quantizer/tiling.h"
#include "templates/rotate_quant_moe/sort_lds.h"

#include <iterator>
#include <string>

namespace mxf {
namespace {

using namespace register_budget;

/// The scatter (a sorted row per slot) and the sorter's pointers cost these
/// kernels 2-8 more VGPRs and a few SGPRs: held to 64 they spill (RS=256,
/// and the per-block R through each wave's LDS), so they ask for 7 waves
/// (72 VGPRs, 102 SGPRs), 6 (80) at RS=256, where stage 2's pass loop
/// spilled 20 bytes at 72 (docs/templates.md).
bool atRs256(const KernelSpec &spec, const KernelTiling &) { return spec.RS >= 256; }

/// Tried in order (register_budget.cpp has the shared measurements).
const RegisterBudgetRule kRegisterBudget[] = {
    kUnasked,
    kFp6TilesSelectedAtRs256,
    kFp6TilesSelectedOrLearnedRs256,
    kFp6AtRs256OrTiles,
    kFp6,
    {6, atRs256, "the scatter at RS=256: stage 2's pass loop spilled 20 bytes at 72"},
    {7, always, "the scatter and the sorter's pointers: spills at 64"},
};

int sorterLdsBytes(const KernelSpec &spec, int workgroupSize) {
  return int(moeSortLds(spec, workgroupSize).bytes());
}

/// x and q at their row strides (stage 2: dense [m, topk, ...]); the sorter
/// pads the sorted scales itself.
const QuantizerFamily kQuantizer = {
    /*input=*/"x",
    /*inputStride=*/"x_stride",
    /*rowsAreN=*/false,
    /*codesInWeightLayout=*/false,
    /*fillsShuffledRowPadding=*/false,
    sorterLdsBytes,
    kRegisterBudget,
    std::size(kRegisterBudget),
};

LaunchRecord rotateQuantMoeLaunchRecord(const KernelSpec &spec) {
  return rotatingQuantizerLaunchRecord(spec, kQuantizer);
}

} // namespace

const QuantizerFamily &rotateQuantMoeQuantizer() { return kQuantizer; }

Status checkRotateQuantMoeSupported(const KernelSpec &spec) {
  if (Status family = checkSpecOfFamily(spec, KernelOp::RotateQuantMoe); !family.ok())
    return family;
  if (Status quantizer = checkRotatingQuantizerSupported(spec); !quantizer.ok())
    return quantizer;
  const KernelTiling tiling = chooseRotatingQuantizerTiling(spec, kQuantizer);
  const int sorter = frontLdsBytes(kQuantizer, spec, tiling);
  const int64_t lds = int64_t(tiling.ldsBytes) + sorter;
  if (lds > kMaxMoeWorkgroupLds)
    return Status::failure(printSpec(spec) + ": the rotate_quant_moe template needs " +
                           std::to_string(lds) + " bytes of LDS per workgroup (rotation " +
                           std::to_string(tiling.ldsBytes) + ", sorter " +
                           std::to_string(sorter) + " for E and topk), more than " +
                           std::to_string(kMaxMoeWorkgroupLds) + "; use fewer experts or slots");
  return Status::success();
}

FamilyRules rotate_quant_moe::rules() {
  // The rotating quantizer's geometry: the grid covers the m tokens in
  // 16-row tiles (stage 2 loops over a tile's topk row groups), with the
  // sorter's LDS added. The code does not depend on M either.
  // 165-175 ms a cold compile (issue 32): the slowest family to compile.
  return {KernelOp::RotateQuantMoe,      checkRotateQuantMoeSupported, rotatingQuantizerCodeSpec,
          rotateQuantMoeLaunchRecord, &kQuantizer, /*compileCost=*/3};
}

} // namespace mxf
