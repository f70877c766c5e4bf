//===- prepared_weights.cpp - Weights that match the launch reading them --===//

#include "spec/prepared_weights.h"

#include "spec/op_declaration.h"
#include "spec/reference_problem.h"
#include "spec/spec_keys.h"

namespace mxf {

Status checkPreparedWeights(const KernelSpec &spec, const KernelSpec &weights, bool rotates) {
  using SK = spec_detail::SpecKey;
  const OpDeclaration *declaration = opDeclaration(spec.op);
  if (!declaration || !declaration->weightsRead)
    return Status::failure(std::string(kernelOpName(spec.op)) + " reads no prepared weights");
  if (weights.op != KernelOp::QuantWeight)
    return Status::failure("weights are described by a quant_weight spec, not " +
                           printSpec(weights));
  const KernelSpec expected = declaration->weightsRead(selectedSpec(spec, rotates));
  for (SK key : kPreparedWeightKeys) {
    std::string have, want;
    spec_detail::appendSpecValue(have, weights, key);
    spec_detail::appendSpecValue(want, expected, key);
    if (have == want)
      continue;
    const std::string name = spec_detail::specKeyName(key);
    return Status::failure("the weights were quantized with " + name + "=" + have + ", " +
                           kernelOpName(spec.op) + " reads " + name + "=" + want +
                           (rotates ? "" : " (this launch does not rotate)") + ": " +
                           printSpec(weights) + " against " + printSpec(spec));
  }
  return Status::success();
}

} // namespace mxf
