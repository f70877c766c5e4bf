//===- rules.cpp - rotate_quant_moe's family rules -------------------------===//

#include "templates/rotate_quant_moe/rules.h"

#include "templates/rotate_quant/rules.h"
#include "templates/rotate_quant/tiling.h"

#include <string>

namespace mxf {

Status checkRotateQuantMoeSupported(const KernelSpec &spec) {
  if (Status valid = validateSpec(spec); !valid.ok())
    return valid;
  if (spec.op != KernelOp::RotateQuantMoe)
    return Status::failure(printSpec(spec) + " is not a rotate_quant_moe spec");
  if (Status quantizer = checkRotatingQuantizerSupported(spec); !quantizer.ok())
    return quantizer;
  const KernelTiling tiling = chooseRotateQuantTiling(spec);
  const int64_t lds = int64_t(tiling.ldsBytes) + tiling.sortLdsBytes;
  if (lds > kMaxMoeWorkgroupLds)
    return Status::failure(printSpec(spec) + ": the rotate_quant_moe template needs " +
                           std::to_string(lds) + " bytes of LDS per workgroup (rotation " +
                           std::to_string(tiling.ldsBytes) + ", sorter " +
                           std::to_string(tiling.sortLdsBytes) + " for E and topk), more than " +
                           std::to_string(kMaxMoeWorkgroupLds) + "; use fewer experts or slots");
  return Status::success();
}

FamilyRules rotateQuantMoeRules() {
  // rotate_quant's geometry: the grid covers the m tokens in 16-row tiles
  // (stage 2 loops over a tile's topk row groups), and the sorter's LDS is
  // in the tiling's count (rotateQuantLaunchRecord adds it).
  // The code does not depend on M either (rotateQuantCodeSpec).
  return {KernelOp::RotateQuantMoe, checkRotateQuantMoeSupported, rotateQuantCodeSpec,
          rotateQuantLaunchRecord};
}

} // namespace mxf
