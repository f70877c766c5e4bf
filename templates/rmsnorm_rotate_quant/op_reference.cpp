//===- op_reference.cpp - rmsnorm_rotate_quant on the CPU reference --------===//
//
// Plain C++, linked into mxforge_arrays (arrays/op_reference.h): numerics'
// residual add and RMSNorm (numerics/rmsnorm.h) of x, then rotate_quant's
// reference on the normalized rows; residual_out is z.
//
//===----------------------------------------------------------------------===//

#include "arrays/op_reference.h"
#include "arrays/random_inputs.h"

#include "numerics/formats.h"
#include "numerics/rmsnorm.h"

namespace mxf::rmsnorm_rotate_quant {
namespace {

using namespace arrays;

Status run(const ReferenceCall &call, NpyArrays &outputs, std::map<std::string, size_t> &) {
  const size_t m = size_t(call.sig.rows), k = size_t(call.spec.K);
  auto residual = call.inputs.find("residual");
  RmsNormRows normalized = rmsNormRows(
      call.inputs.at("x").as<uint16_t>().data(),
      residual == call.inputs.end() ? nullptr : residual->second.as<uint16_t>().data(),
      call.inputs.at("gamma").as<uint16_t>().data(), float(call.values.at("eps")), m, k);
  if (Status quantized = addQuantizedRows(call.sig, "rmsnorm_rotate_quant",
                                          rotateQuant(call.problem, normalized.y.data(),
                                                      call.sig.rows, call.r),
                                          outputs);
      !quantized.ok())
    return quantized;
  if (call.spec.add)
    return addReferenceOutput(call.sig, "residual_out", std::move(normalized.z), outputs);
  return Status::success();
}

/// gamma: a trained norm's gain, positive and near 1 (0.5..1.5); x and
/// residual come from the shared generator (N(0, 1) in bf16).
Result<bool> generateInput(const KernelSpec &, const ArraySpec &array, uint64_t seed,
                           NpyArrays &inputs) {
  if (array.name != "gamma")
    return false;
  RandomStream stream(seed, array.name);
  std::vector<uint16_t> gain(elementCount(array.shape));
  for (uint16_t &g : gain)
    g = f32ToBf16(float(0.5 + stream.uniform()));
  inputs.emplace(array.name, NpyArray::of(array.shape, std::move(gain)));
  return true;
}

} // namespace

extern const arrays::OpReference kOpReference = {KernelOp::RmsnormRotateQuant, run,
                                                 generateInput};

} // namespace mxf::rmsnorm_rotate_quant
