//===- rules.cpp - rmsnorm_rotate_quant's family rules ---------------------===//

#include "templates/rmsnorm_rotate_quant/rules.h"

#include "templates/common/rotating_quantizer/tiling.h"

#include <iterator>
#include <string>

namespace mxf {
namespace {

using namespace register_budget;

/// learned_per_block from RS=64 on loads each step's x one step ahead
/// (rotation_stage.h); through the norm's row source that is x, the
/// residual and gamma with the row's scale and their arithmetic.
bool transposesInWaveLds(const KernelSpec &, const KernelTiling &tiling) {
  return tiling.transposesInWaveLds;
}
bool transposesAtRs256Fp6OrSelected(const KernelSpec &spec, const KernelTiling &tiling) {
  return tiling.transposesInWaveLds && spec.RS >= 256 &&
         (isFp6(spec, tiling) || spec.select != RotationSelect::Off);
}
bool fp6SelectedAtRs256(const KernelSpec &spec, const KernelTiling &tiling) {
  return isFp6(spec, tiling) && selectedAtRs256(spec, tiling);
}

/// rotate_quant's budget where it holds, looser where the row source's
/// registers (its pointers, strides and the row's scale stay live through
/// every unit) made kernels spill. Measured by compiling every rotation,
/// format, selection, layout and rounding at K=8192 (400 specs;
/// docs/templates.md, "rmsnorm_rotate_quant").
const RegisterBudgetRule kRegisterBudget[] = {
    kUnasked,
    {4, transposesAtRs256Fp6OrSelected,
     "learned_per_block at RS=256, fp6 or selected, through the norm: 60 bytes spilled at 80"},
    {5, transposesInWaveLds,
     "learned_per_block's step-ahead loads through the norm: 12-52 bytes spilled at 80"},
    kFp6TilesSelectedAtRs256,
    kFp6TilesSelectedOrLearnedRs256,
    {5, fp6SelectedAtRs256,
     "fp6, both paths at RS=256, through the norm: 12-44 bytes spilled at 80"},
    kFp6AtRs256OrTiles,
    kFp6,
    kSelectedAtRs256,
    kTarget,
};

/// 16 rows of K/32 partial sums (f32).
int partialSumLdsBytes(const KernelSpec &spec, int) { return 16 * (spec.K / 32) * 4; }

const QuantizerFamily kQuantizer = {
    /*input=*/"x",
    /*inputStride=*/"x_stride",
    /*rowsAreN=*/false,
    /*codesInWeightLayout=*/false,
    /*fillsShuffledRowPadding=*/true,
    partialSumLdsBytes,
    kRegisterBudget,
    std::size(kRegisterBudget),
};

LaunchRecord rmsnormRotateQuantLaunchRecord(const KernelSpec &spec) {
  return rotatingQuantizerLaunchRecord(spec, kQuantizer);
}

} // namespace

const QuantizerFamily &rmsnormRotateQuantQuantizer() { return kQuantizer; }

Status checkRmsnormRotateQuantSupported(const KernelSpec &spec) {
  if (Status family = checkSpecOfFamily(spec, KernelOp::RmsnormRotateQuant); !family.ok())
    return family;
  if (Status quantizer = checkRotatingQuantizerSupported(spec); !quantizer.ok())
    return quantizer;
  const KernelTiling tiling = chooseRotatingQuantizerTiling(spec, kQuantizer);
  const int partials = frontLdsBytes(kQuantizer, spec, tiling);
  const int64_t lds = int64_t(tiling.ldsBytes) + partials;
  if (lds > kMaxNormWorkgroupLds)
    return Status::failure(printSpec(spec) + ": the rmsnorm_rotate_quant template needs " +
                           std::to_string(lds) + " bytes of LDS per workgroup (rotation " +
                           std::to_string(tiling.ldsBytes) + ", the norm's partial sums " +
                           std::to_string(partials) + " for K), more than " +
                           std::to_string(kMaxNormWorkgroupLds) + "; K up to " +
                           std::to_string((kMaxNormWorkgroupLds - tiling.ldsBytes) / 2) +
                           " fits");
  return Status::success();
}

FamilyRules rmsnorm_rotate_quant::rules() {
  return {KernelOp::RmsnormRotateQuant, checkRmsnormRotateQuantSupported,
          rotatingQuantizerCodeSpec, rmsnormRotateQuantLaunchRecord, &kQuantizer};
}

} // namespace mxf
