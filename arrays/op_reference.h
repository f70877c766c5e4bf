//===- op_reference.h - What the reference runner knows of an op -*- C++ -*-===//
//
// Each family declares how its op runs on the CPU reference once, in its own
// folder (templates/<family>/op_reference.cpp, plain C++ linked into
// mxforge_arrays): which numerics/ function computes its outputs from the
// named inputs, and how the inputs only it has are generated from a seed.
// runReference (reference_runner.h) does the rest for every op: the table
// of arrays, the checks of given inputs, selection and the footprint.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ARRAYS_OP_REFERENCE_H
#define MXFORGE_ARRAYS_OP_REFERENCE_H

#include "arrays/reference_arrays.h"
#include "arrays/reference_runner.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mxf::arrays {

/// One reference run of an op, as runReference hands it over.
struct ReferenceCall {
  /// The spec the launch computes: a selective spec's rotated or
  /// quant-only form (numerics selectedSpec).
  const KernelSpec &spec;
  const ReferenceSignature &sig;
  const NpyArrays &inputs; // every input, generated or given
  /// The spec's quantization problem, with round=sr's seed from the seed
  /// operand when there is one.
  const RotateQuantProblem &problem;
  const uint16_t *r; // the rotation when the spec rotates, else null
  bool routingGiven; // whether topk_ids came from the caller
  /// The op's by-value values (kernelValueArgs: eps), every one present.
  const LaunchValues &values;
};

struct OpReference {
  KernelOp op;
  /// Computes the op's outputs (addReferenceOutput checks each against the
  /// table) and, for outputs written only in part, bytesWritten.
  Status (*run)(const ReferenceCall &call, NpyArrays &outputs,
                std::map<std::string, size_t> &bytesWritten);
  /// The op's own inputs: adds `array` (and any input generated with it) to
  /// `inputs` and returns true, or returns false for an input the shared
  /// generator makes (x, w, r, seed, layer_mask). Null when there are none.
  Result<bool> (*generateInput)(const KernelSpec &spec, const ArraySpec &array, uint64_t seed,
                                NpyArrays &inputs);
};

/// The reference of `op`; null for a value outside KernelOp.
const OpReference *opReference(KernelOp op);

/// Elements in an array of `shape`.
size_t elementCount(const std::vector<size_t> &shape);

/// Wraps an output of numerics/ under its table name, checking that the
/// table's shape and what numerics produced agree.
template <typename T>
Status addReferenceOutput(const ReferenceSignature &sig, const char *name, std::vector<T> values,
                          NpyArrays &outputs) {
  const ArraySpec *array = sig.findOutput(name);
  if (!array || elementCount(array->shape) != values.size())
    return Status::failure(std::string("internal error: output ") + name + " has " +
                           std::to_string(values.size()) + " elements, which does not match " +
                           (array ? shapeString(array->shape) : std::string("the table")));
  outputs.emplace(name, NpyArray::of(array->shape, std::move(values)));
  return Status::success();
}

/// A quantizer's result as the outputs q (codes) and s (scales), or its
/// failure with the op's name: what rotate_quant and quant_weight return.
inline Status addQuantizedRows(const ReferenceSignature &sig, const char *op,
                               Result<QuantizedRows> rows, NpyArrays &outputs) {
  if (!rows.ok())
    return Status::failure(std::string(op) + ": " + rows.error());
  if (Status s = addReferenceOutput(sig, "q", std::move(rows.value().codes), outputs); !s.ok())
    return s;
  return addReferenceOutput(sig, "s", std::move(rows.value().scales), outputs);
}

} // namespace mxf::arrays

#endif // MXFORGE_ARRAYS_OP_REFERENCE_H
