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
  return addQuantizedRows(call.sig, "quant_weight",
                          quantWeight(call.problem, call.spec.wlayout,
                                      call.inputs.at("w").as<uint16_t>().data(), call.sig.rows,
                                      call.r),
                          outputs);
}

} // namespace

extern const arrays::OpReference kOpReference = {KernelOp::QuantWeight, run, nullptr};

} // namespace mxf::quant_weight
