//===- rules.cpp - rotate_quant_gemm's family rules ------------------------===//

#include "templates/rotate_quant_gemm/rules.h"

#include "templates/rotate_quant/rules.h"
#include "templates/rotate_quant_gemm/tiling.h"

namespace mxf {
namespace {

LaunchRecord rotateQuantGemmLaunchRecord(const KernelSpec &spec) {
  const GemmTiling tiling = chooseRotateQuantGemmTiling(spec);
  LaunchRecord record;
  record.workgroupSize = uint32_t(tiling.workgroupSize());
  record.gridX = uint32_t((spec.N + tiling.columnsPerWorkgroup - 1) / tiling.columnsPerWorkgroup);
  record.rowsPerWorkgroup = 16;
  record.rowPadding = 1;
  record.ldsBytes = uint32_t(tiling.ldsBytes());
  record.maxRows = uint32_t(spec.M);
  return record;
}

} // namespace

FamilyRules rotateQuantGemmRules() {
  return {KernelOp::RotateQuantGemm, checkRotateQuantGemmSupported, rotateQuantCodeSpec,
          rotateQuantGemmLaunchRecord};
}

} // namespace mxf
