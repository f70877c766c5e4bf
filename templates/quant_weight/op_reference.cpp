//===- op_reference.cpp - quant_weight on the CPU reference ----------------===//
//
// Plain C++, linked into mxforge_arrays (arrays/op_reference.h): w -> q, s in
// the spec's weight layout through numerics quantWeight.
//
//===----------------------------------------------------------------------===//

#include "arrays/op_reference.h"

namespace mxf::quant_weight {
namespace {

using namespace arrays;

Status run(const ReferenceCall &call, NpyArrays &outputs, std::map<std::string, size_t> &) {
  Result<QuantizedRows> rows = quantWeight(call.problem, call.spec.wlayout,
                                           call.inputs.at("w").as<uint16_t>().data(),
                                           call.sig.rows, call.r);
  if (!rows.ok())
    return Status::failure("quant_weight: " + rows.error());
  if (Status s = addReferenceOutput(call.sig, "q", std::move(rows.value().codes), outputs); !s.ok())
    return s;
  return addReferenceOutput(call.sig, "s", std::move(rows.value().scales), outputs);
}

} // namespace

extern const arrays::OpReference kOpReference = {KernelOp::QuantWeight, run, nullptr};

} // namespace mxf::quant_weight
