//===- rules.cpp - rotate_quant's family rules -----------------------------===//

#include "templates/rotate_quant/rules.h"

#include "templates/rotate_quant/tiling.h"

#include "numerics/layouts.h"
#include "numerics/reference.h"
#include "spec/buckets.h"

namespace mxf {

KernelSpec rotateQuantCodeSpec(const KernelSpec &spec) {
  KernelSpec code = spec;
  code.M = kLargestMBucket;
  return code;
}

LaunchRecord rotateQuantLaunchRecord(const KernelSpec &spec) {
  const KernelTiling tiling = chooseRotateQuantTiling(spec);
  LaunchRecord record;
  record.workgroupSize = uint32_t(tiling.workgroupSize());
  record.gridX =
      uint32_t((tiling.unitsPerRow + tiling.wavesPerWorkgroup - 1) / tiling.wavesPerWorkgroup);
  record.rowsPerWorkgroup = uint32_t(tiling.rowsPerTile);
  record.rowPadding = tiling.fillsRowPadding ? uint32_t(kA4W4RowPadding) : 1;
  record.ldsBytes = uint32_t(tiling.ldsBytes + tiling.sortLdsBytes);
  record.maxRows = uint32_t(spec.M);
  return record;
}

FamilyRules rotateQuantRules() {
  return {KernelOp::RotateQuant, checkRotateQuantSupported, rotateQuantCodeSpec,
          rotateQuantLaunchRecord};
}

} // namespace mxf
