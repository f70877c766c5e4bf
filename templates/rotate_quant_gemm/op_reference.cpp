//===- op_reference.cpp - rotate_quant_gemm on the CPU reference -----------===//
//
// Plain C++, linked into mxforge_arrays (arrays/op_reference.h): x, w_q, w_s
// -> y through numerics rotateQuantGemm. Its prepared weights, when not
// given, are quant_weight's outputs for a random W.
//
//===----------------------------------------------------------------------===//

#include "arrays/op_reference.h"
#include "spec/op_declaration.h"

namespace mxf::rotate_quant_gemm {
namespace {

using namespace arrays;

Status run(const ReferenceCall &call, NpyArrays &outputs, std::map<std::string, size_t> &) {
  GemmProblem gemm;
  gemm.activation = call.problem;
  gemm.n = static_cast<size_t>(call.spec.N);
  gemm.weightLayout = call.spec.wlayout;
  gemm.weightScaleLayout = call.spec.layout;
  Result<std::vector<uint16_t>> y = rotateQuantGemm(
      gemm, call.inputs.at("x").as<uint16_t>().data(), call.sig.rows, call.r,
      call.inputs.at("w_q").as<uint8_t>().data(), call.inputs.at("w_s").as<uint8_t>().data());
  if (!y.ok())
    return Status::failure("rotate_quant_gemm: " + y.error());
  return addReferenceOutput(call.sig, "y", std::move(y.value()), outputs);
}

/// w_q and w_s: quant_weight of the same random W that a quant_weight run
/// with this seed would draw, rotated by the same r (the table puts r
/// before w_q and w_s, so r is final here).
Result<bool> generateInput(const KernelSpec &spec, const ArraySpec &array, uint64_t seed,
                           NpyArrays &inputs) {
  if (array.name != "w_q")
    return array.name == "w_s"; // made with w_q, which comes first
  const KernelSpec weights = opDeclaration(spec.op)->weightsRead(spec);
  NpyArrays given;
  if (auto r = inputs.find("r"); r != inputs.end())
    given.emplace("r", r->second);
  Result<ReferenceRun> run = runReference(weights, 1, given, seed);
  if (!run.ok())
    return Status::failure("generating w_q and w_s: " + run.error());
  inputs.emplace("w_q", std::move(run.value().outputs.at("q")));
  inputs.emplace("w_s", std::move(run.value().outputs.at("s")));
  return true;
}

} // namespace

extern const arrays::OpReference kOpReference = {KernelOp::RotateQuantGemm, run,
                                                 generateInput};

} // namespace mxf::rotate_quant_gemm
