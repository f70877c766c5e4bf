//===- rules.cpp - rotate_quant_gemm's family rules ------------------------===//

#include "templates/rotate_quant_gemm/rules.h"

#include "templates/rotate_quant_gemm/tiling.h"

namespace mxf {
namespace {

/// W6A16 quantizes no activation: its code is the same for every scale
/// rule, rounding and intermediate (bf16(bf16(v)) = bf16(v)), so they take
/// their defaults and share one code object.
KernelSpec rotateQuantGemmCodeSpec(const KernelSpec &spec) {
  KernelSpec code = rotatingQuantizerCodeSpec(spec);
  if (isW6A16Gemm(spec)) {
    const KernelSpec defaults;
    code.scale = defaults.scale;
    code.round = Rounding::Rne;
    code.inter = Intermediate::F32;
  }
  return code;
}

LaunchRecord rotateQuantGemmLaunchRecord(const KernelSpec &spec) {
  const GemmTiling tiling = chooseRotateQuantGemmTiling(spec);
  LaunchRecord record;
  record.workgroupSize = uint32_t(tiling.workgroupSize());
  record.gridX = uint32_t(tiling.gridX(spec.N));
  record.rowsPerWorkgroup = 16;
  record.rowPadding = 1;
  record.ldsBytes = uint32_t(tiling.ldsBytes());
  record.maxRows = uint32_t(spec.M);
  return record;
}

} // namespace

FamilyRules rotate_quant_gemm::rules() {
  // 111-160 ms a cold compile (issue 32), against 56-72 ms for rotate_quant.
  return {KernelOp::RotateQuantGemm,   checkRotateQuantGemmSupported, rotateQuantGemmCodeSpec,
          rotateQuantGemmLaunchRecord, /*quantizer=*/nullptr,         /*compileCost=*/2};
}

} // namespace mxf
