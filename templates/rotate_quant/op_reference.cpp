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
  return addQuantizedRows(
      call.sig, "rotate_quant",
      rotateQuant(call.problem, call.inputs.at("x").as<uint16_t>().data(), call.sig.rows, call.r),
      outputs);
}

} // namespace

extern const arrays::OpReference kOpReference = {KernelOp::RotateQuant, run, nullptr};

} // namespace mxf::rotate_quant
