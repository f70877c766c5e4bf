//===- reference_arrays.h - Names, dtypes and shapes of op arrays -*- C++ -*-===//
//
// The arrays each op reads and writes, by the names `mxforge ref --in/--out`
// use (docs/cli.md lists them). One table for the runner's checks, the CLI's
// "valid names" messages and the docs, so that they cannot disagree.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ARRAYS_REFERENCE_ARRAYS_H
#define MXFORGE_ARRAYS_REFERENCE_ARRAYS_H

#include "support/status.h"
#include "spec/kernel_spec.h"
#include "arrays/npy.h"

#include <string_view>

#include <string>
#include <vector>

namespace mxf::arrays {

struct ArraySpec {
  std::string name;
  NpyDType dtype;
  std::vector<size_t> shape;
  std::string meaning; // e.g. "bf16 activations", for messages and listings
};

struct ReferenceSignature {
  /// Rows the op processes: M for ops with an M bucket, N for quant_weight.
  size_t rows = 0;
  std::vector<ArraySpec> inputs;
  std::vector<ArraySpec> outputs;

  const ArraySpec *findInput(std::string_view name) const;
  const ArraySpec *findOutput(std::string_view name) const;
};

/// The arrays of `spec` run at `m` rows. Fails when the spec is invalid or,
/// for ops with an M bucket, when m is outside 1..spec.M (quant_weight
/// ignores m: it always quantizes N rows).
Result<ReferenceSignature> referenceSignature(const KernelSpec &spec, int m);

/// "x, r": the names, in table order.
std::string joinArrayNames(const std::vector<ArraySpec> &arrays);

} // namespace mxf::arrays

#endif // MXFORGE_ARRAYS_REFERENCE_ARRAYS_H
