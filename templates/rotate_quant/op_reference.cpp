//===- op_reference.cpp - rotate_quant on the CPU reference ----------------===//
//
// Plain C++, linked into mxforge_arrays (arrays/op_reference.h): x -> q, s
// through numerics rotateQuant.
//
//===----------------------------------------------------------------------===//

#include "arrays/op_reference.h"

namespace mxf::rotate_quant {
namespace {

using namespace arrays;

Status run(const ReferenceCall &call, NpyArrays &outputs, std::map<std::string, size_t> &) {
  Result<QuantizedRows> rows =
      rotateQuant(call.problem, call.inputs.at("x").as<uint16_t>().data(), call.sig.rows, call.r);
  if (!rows.ok())
    return Status::failure("rotate_quant: " + rows.error());
  if (Status s = addReferenceOutput(call.sig, "q", std::move(rows.value().codes), outputs); !s.ok())
    return s;
  return addReferenceOutput(call.sig, "s", std::move(rows.value().scales), outputs);
}

} // namespace

extern const arrays::OpReference kOpReference = {KernelOp::RotateQuant, run, nullptr};

} // namespace mxf::rotate_quant
