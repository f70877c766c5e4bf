//===- rules.cpp - quant_weight's family rules -----------------------------===//

#include "templates/quant_weight/rules.h"

#include "templates/rotate_quant/rules.h"
#include "templates/rotate_quant/tiling.h"

#include <string>

namespace mxf {
namespace {

KernelSpec quantWeightCodeSpec(const KernelSpec &spec) { return spec; }

/// rotate_quant's geometry (the same waves and tiles), with N as the one
/// row count the code object serves.
LaunchRecord quantWeightLaunchRecord(const KernelSpec &spec) {
  LaunchRecord record = rotateQuantLaunchRecord(spec);
  record.maxRows = uint32_t(spec.N);
  return record;
}

} // namespace

Status checkQuantWeightSupported(const KernelSpec &spec) {
  if (Status valid = validateSpec(spec); !valid.ok())
    return valid;
  if (spec.op != KernelOp::QuantWeight)
    return Status::failure(printSpec(spec) + " is not a quant_weight spec");
  // N <= 2^20 (validateSpec) keeps grid.y = pad256(N)/16 within HIP's 65536.
  // The element limit is what the emulator suite has exercised the address
  // arithmetic up to (64-bit throughout); beyond it, quantize row slices.
  if (uint64_t(spec.N) * uint64_t(spec.K) > kMaxQuantWeightElements)
    return Status::failure(printSpec(spec) + ": N*K = " +
                           std::to_string(uint64_t(spec.N) * uint64_t(spec.K)) +
                           " weight elements is more than one quant_weight launch takes (" +
                           std::to_string(kMaxQuantWeightElements) +
                           ", 65536 x 65536); quantize the matrix in row slices");
  return checkRotatingQuantizerSupported(spec);
}

FamilyRules quantWeightRules() {
  return {KernelOp::QuantWeight, checkQuantWeightSupported, quantWeightCodeSpec,
          quantWeightLaunchRecord};
}

} // namespace mxf
