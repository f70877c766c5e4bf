//===- family.cpp - The rotate_quant template family ----------------------===//

#include "templates/rotate_quant/family.h"

#include "templates/rotate_quant/rotate_quant_template.h"
#include "templates/rotate_quant/tiling.h"

#include "numerics/layouts.h"
#include "numerics/reference.h"
#include "spec/buckets.h"

namespace mxf {
namespace {

KernelSpec rotateQuantCodeSpec(const KernelSpec &spec) {
  KernelSpec code = spec;
  code.M = kLargestMBucket;
  return code;
}

} // namespace

LaunchRecord rotateQuantLaunchRecord(const KernelSpec &spec) {
  const KernelTiling tiling = chooseRotateQuantTiling(spec);
  LaunchRecord record;
  record.workgroupSize = uint32_t(tiling.workgroupSize());
  record.gridX =
      uint32_t((tiling.unitsPerRow + tiling.wavesPerWorkgroup - 1) / tiling.wavesPerWorkgroup);
  record.rowsPerWorkgroup = uint32_t(tiling.rowsPerTile);
  record.rowPadding = tiling.fillsScalePadding ? uint32_t(kA4W4RowPadding) : 1;
  record.ldsBytes = uint32_t(tiling.ldsBytes);
  record.maxRows = uint32_t(spec.M);
  return record;
}

TemplateFamily rotateQuantFamily() {
  return {KernelOp::RotateQuant, checkRotateQuantSupported, rotateQuantCodeSpec,
          rotateQuantLaunchRecord, buildRotateQuantKernel};
}

} // namespace mxf
