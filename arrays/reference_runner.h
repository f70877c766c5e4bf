//===- reference_runner.h - Run a kernel spec on the CPU reference -*- C++ -*-===//
//
// Maps a KernelSpec to the numerics/ problem of its op, checks given input
// arrays against the op's table (reference_arrays.h), generates the missing
// ones from a seed (random_inputs.h) and returns the outputs as arrays. This
// is what `mxforge ref` runs and what later issues compare kernels against.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ARRAYS_REFERENCE_RUNNER_H
#define MXFORGE_ARRAYS_REFERENCE_RUNNER_H

#include "abi/operands.h"
#include "numerics/reference.h"
#include "support/status.h"
#include "spec/kernel_spec.h"
#include "spec/reference_problem.h" // rotateQuantProblem
#include "arrays/npy.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mxf::arrays {

using NpyArrays = std::map<std::string, NpyArray>;

struct ReferenceRun {
  NpyArrays inputs;  // every input the op read: the given ones and the generated ones
  NpyArrays outputs; // every output of the op
  std::vector<std::string> generated; // names of the generated inputs, in table order
  /// Outputs a kernel writes only a prefix of, by name: the prefix's bytes
  /// (rotate_quant_moe's s: the scale rows of the valid sorted entries). The
  /// bytes after it are never written; the reference holds the padding byte
  /// there.
  std::map<std::string, size_t> bytesWritten;
  /// Selective rotation (select=flag|mask): the launch's `rotate` or `layer`
  /// value the outputs are for (given, or drawn from the seed), and whether
  /// that launch rotates. Unset without a select key.
  std::optional<int64_t> selection;
  bool rotates = true;
  /// The op's by-value values the outputs are for (eps): given, or the
  /// op's example value (ValueArg::example) for those not given.
  LaunchValues values;
  std::vector<std::string> exampleValues; // the names of those taken from the example
};

/// Largest total size of a run's arrays (inputs, outputs and a generated
/// GEMM weight) that runReference accepts.
constexpr size_t kMaxReferenceBytes = size_t(4) << 30;

/// Runs `spec` at `m` rows (ignored by quant_weight, which runs N rows).
/// Fails without allocating when the arrays would exceed kMaxReferenceBytes.
/// `given` holds inputs by name; each must have the dtype and shape of the
/// op's table, and unknown names are errors that list the valid ones. Missing
/// inputs are generated from `seed`:
///  - x, w: N(0, 1) rounded to bf16;
///  - r: random orthogonal matrices rounded to bf16;
///  - topk_ids: each token routed to topk distinct random experts;
///  - w_q, w_s (given both or neither): quant_weight, with the spec's K, N,
///    RS, rot, scale, inter, layout and wlayout and round=rne, of a random
///    bf16 W drawn exactly as quant_weight's `w` and with the same `r`;
///  - layer_mask: each entry 0 or 1 with probability 1/2.
/// `selection` is selective rotation's launch value (select=flag: rotate,
/// select=mask: layer); missing, it is drawn from the seed (a flag of 0 or
/// 1, a layer in 0..layers-1). Given to a spec without select, or a layer
/// outside the mask, it is an error that names it. `values` are the op's
/// by-value values (eps); one not given takes the op's example value, one
/// the op does not take or refuses is an error that names it.
Result<ReferenceRun> runReference(const KernelSpec &spec, int m, const NpyArrays &given,
                                  uint64_t seed,
                                  std::optional<int64_t> selection = std::nullopt,
                                  const LaunchValues &values = {});

/// "rotate=1 (rotates)" or "layer=3 (layer_mask[3] = 0: quant only)": what
/// a selective run chose, for the CLI's output; empty without a selection.
std::string describeSelection(const KernelSpec &spec, const ReferenceRun &run);

/// "eps=1e-06 (the op's example value)": the op's by-value values a run
/// used, for the CLI's output; empty for an op without any.
std::string describeValues(const ReferenceRun &run);

} // namespace mxf::arrays

#endif // MXFORGE_ARRAYS_REFERENCE_RUNNER_H
