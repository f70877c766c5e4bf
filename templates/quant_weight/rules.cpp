//===- rules.cpp - quant_weight's family rules -----------------------------===//

#include "templates/quant_weight/rules.h"

#include "templates/common/rotating_quantizer/tiling.h"

#include <iterator>
#include <string>

namespace mxf {
namespace {

using namespace register_budget;

bool isW6A16Tiles(const KernelSpec &spec) {
  return spec.wlayout == WeightLayout::W6A16Tile16x128;
}

/// The RS=256 learned weight kernel with W6A16 tiles spilled 12 bytes at 80
/// VGPRs for K=768 (three 256-channel units per row: a Python random spec
/// found it).
bool fp6W6A16LearnedRs256(const KernelSpec &spec, const KernelTiling &tiling) {
  return isFp6(spec, tiling) && isW6A16Tiles(spec) && spec.RS >= 256 &&
         spec.rot == RotationKind::Learned;
}

/// fp6 weights in W6A16 tiles with a per-block R through each wave's LDS
/// spilled 20 bytes at 72 (RS=128 with a4w4 scales: 72 VGPRs live).
bool fp6W6A16ThroughWaveLds(const KernelSpec &spec, const KernelTiling &tiling) {
  return isFp6(spec, tiling) && isW6A16Tiles(spec) && tiling.transposesInWaveLds;
}

/// Tried in order (register_budget.cpp has the shared measurements).
const RegisterBudgetRule kRegisterBudget[] = {
    kUnasked,
    kFp6TilesSelectedAtRs256,
    kFp6TilesSelectedOrLearnedRs256,
    {5, fp6W6A16LearnedRs256, "W6A16 tiles, RS=256 learned: 12 bytes spilled at 80"},
    kFp6AtRs256OrTiles,
    {6, fp6W6A16ThroughWaveLds, "W6A16 tiles, R through each wave's LDS: 20 bytes at 72"},
    kFp6,
    kSelectedAtRs256,
    kTarget,
};

/// N rows of w at its row stride, codes dense in the weight layout, the
/// a4w4_shuffle padding up to pad256(N) filled by the kernel.
const QuantizerFamily kQuantizer = {
    /*input=*/"w",
    /*inputStride=*/"w_stride",
    /*rowsAreN=*/true,
    /*codesInWeightLayout=*/true,
    /*fillsShuffledRowPadding=*/true,
    /*frontLdsBytes=*/nullptr,
    kRegisterBudget,
    std::size(kRegisterBudget),
};

KernelSpec quantWeightCodeSpec(const KernelSpec &spec) { return spec; }

/// The rotating quantizer's geometry (the same waves and tiles), with N as
/// the one row count the code object serves.
LaunchRecord quantWeightLaunchRecord(const KernelSpec &spec) {
  LaunchRecord record = rotatingQuantizerLaunchRecord(spec, kQuantizer);
  record.maxRows = uint32_t(spec.N);
  return record;
}

} // namespace

const QuantizerFamily &quantWeightQuantizer() { return kQuantizer; }

Status checkQuantWeightSupported(const KernelSpec &spec) {
  if (Status family = checkSpecOfFamily(spec, KernelOp::QuantWeight); !family.ok())
    return family;
  // N <= 2^20 (validateSpec) keeps grid.y = pad256(N)/16 within HIP's 65536.
  // The element limit is what the emulator suite has exercised the address
  // arithmetic up to (64-bit throughout); beyond it, quantize row slices.
  if (uint64_t(spec.N) * uint64_t(spec.K) > kMaxQuantWeightElements)
    return Status::failure(printSpec(spec) + ": N*K = " +
                           std::to_string(uint64_t(spec.N) * uint64_t(spec.K)) +
                           " weight elements is more than one quant_weight launch takes (" +
                           std::to_string(kMaxQuantWeightElements) +
                           ", 65536 x 65536); quantize the matrix in row slices");
  if (Status quantizer = checkRotatingQuantizerSupported(spec); !quantizer.ok())
    return quantizer;
  // Weights are quantized once, with round=rne.
  if (spec.round == Rounding::Sr)
    return Status::failure(printSpec(spec) +
                           ": the quant_weight template does not support round=sr (weights are "
                           "quantized once, with round=rne) yet");
  return Status::success();
}

FamilyRules quant_weight::rules() {
  return {KernelOp::QuantWeight, checkQuantWeightSupported, quantWeightCodeSpec,
          quantWeightLaunchRecord, &kQuantizer};
}

} // namespace mxf
