//===- rules.cpp - rotate_quant's family rules -----------------------------===//

#include "templates/rotate_quant/rules.h"

#include "templates/common/rotating_quantizer/tiling.h"

#include <iterator>

namespace mxf {
namespace {

using namespace register_budget;

/// Tried in order (register_budget.cpp has the measurements).
const RegisterBudgetRule kRegisterBudget[] = {
    kUnasked, kFp6TilesSelectedAtRs256, kFp6TilesSelectedOrLearnedRs256, kFp6AtRs256OrTiles,
    kFp6,     kSelectedAtRs256,         kTarget,
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
  if (Status family = checkSpecOfFamily(spec, KernelOp::RotateQuant); !family.ok())
    return family;
  return checkRotatingQuantizerSupported(spec);
}

LaunchRecord rotateQuantLaunchRecord(const KernelSpec &spec) {
  return rotatingQuantizerLaunchRecord(spec, kQuantizer);
}

FamilyRules rotate_quant::rules() {
  return {KernelOp::RotateQuant, checkRotateQuantSupported, rotatingQuantizerCodeSpec,
          rotateQuantLaunchRecord, &kQuantizer};
}

} // namespace mxf
