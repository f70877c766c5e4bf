//===- rules.cpp - rotate_quant's family rules -----------------------------===//

#include "templates/rotate_quant/rules.h"

#include "templates/common/rotating_quantizer/tiling.h"

#include <iterator>

namespace mxf {
namespace {

using namespace register_budget;

/// Tried in order (register_budget.cpp has the measurements).
const RegisterBudgetRule kRegisterBudget[] = {
    {0, staysBelow64Unasked, "below 64 VGPRs on its own"},
    {4, fp6TilesSelectedAtRs256, "fp6 A6W6 tiles, selected, RS=256: 12 bytes spilled at 96"},
    {5, fp6TilesSelectedOrLearnedRs256, "fp6 A6W6 tiles, selected or RS=256 learned"},
    {6, fp6AtRs256OrTiles, "fp6 at RS=256 or into A6W6 tiles: spills at 72"},
    {7, isFp6, "fp6: the convert's two 16-VGPR source tuples"},
    {7, selectedAtRs256, "both paths of selective rotation at RS=256: 28 bytes spilled at 64"},
    {8, always, "the target: 64 VGPRs, 8 waves per SIMD"},
};

const QuantizerFamily kQuantizer = {
    /*input=*/"x",
    /*inputStride=*/"x_stride",
    /*rowsAreN=*/false,
    /*codesInWeightLayout=*/false,
    /*fillsShuffledRowPadding=*/true,
    /*frontLdsBytes=*/nullptr,
    kRegisterBudget,
    std::size(kRegisterBudget),
};

} // namespace

const QuantizerFamily &rotateQuantQuantizer() { return kQuantizer; }

Status checkRotateQuantSupported(const KernelSpec &spec) {
  if (Status valid = validateSpec(spec); !valid.ok())
    return valid;
  if (spec.op != KernelOp::RotateQuant)
    return Status::failure(printSpec(spec) + " is not a rotate_quant spec");
  return checkRotatingQuantizerSupported(spec);
}

LaunchRecord rotateQuantLaunchRecord(const KernelSpec &spec) {
  return rotatingQuantizerLaunchRecord(spec, kQuantizer);
}

FamilyRules rotateQuantRules() {
  return {KernelOp::RotateQuant, checkRotateQuantSupported, rotatingQuantizerCodeSpec,
          rotateQuantLaunchRecord, &kQuantizer};
}

} // namespace mxf
