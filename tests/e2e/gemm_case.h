//===- gemm_case.h - One rotate_quant_gemm run: inputs, launch, checks -*- C++ -*-===//
//
// What the GEMM matrix suite (and bench/mutation_bench) share: drawing m,
// the activations and the weights of a run from a seed (the weights through
// numerics' quantWeight, in the spec's layouts), the launch on an emu device
// with y poisoned and every buffer exactly sized, y's expected bytes (the
// reference at the stride in the checked columns, the poison everywhere
// else) and the float64 error bound of docs/numerics.md. Decode layers of
// real models (more than 2^24 weights) are sampled: a few column
// workgroups drawn from the seed run, the rest of y must stay poisoned.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_E2E_GEMM_CASE_H
#define MXFORGE_TESTS_E2E_GEMM_CASE_H

#include "abi/code_object.h"
#include "emulator/emulator.h"
#include "numerics/reference.h"
#include "support/status.h"
#include "runtime/emu_device.h"
#include "runtime/spec_launcher.h"
#include "spec/kernel_spec.h"
#include "tests/e2e/e2e_inputs.h"
#include "tests/e2e/e2e_runner.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mxf::e2e {

/// Which output columns a run checks: all of them, or those of a sample of
/// column groups (tiling.h: the columns one workgroup covers, or the
/// `workgroupsPerGroup` workgroups that split its chains).
struct ColumnSample {
  std::set<uint32_t> workgroups; // column groups; empty: every workgroup runs
  size_t columnsPerGroup = 0;
  size_t workgroupsPerGroup = 1; // grid x positions per column group
  bool covers(size_t column) const {
    return workgroups.empty() || workgroups.count(uint32_t(column / columnsPerGroup));
  }
  /// Whether the workgroup at grid x position `x` runs.
  bool runs(uint32_t x) const {
    return workgroups.empty() || workgroups.count(uint32_t(x / workgroupsPerGroup)) > 0;
  }
};

/// The arrival counters of a split spec's workspace `ws` (abi/gemm_split.h)
/// that are not zero after a launch of m rows, named, or "" when all are.
std::string nonzeroSplitCounters(const KernelSpec &spec, int m, const std::vector<uint8_t> &ws);

/// Every column when N*K <= 2^24; otherwise 8 column workgroups drawn from
/// `seed`, the last (ragged) one always among them.
ColumnSample gemmColumnSample(const KernelSpec &spec, uint64_t seed);

/// One run's inputs: m rows of x (dense), the learned R if any, the weights
/// in the spec's layouts (what the kernel reads), and the checked columns'
/// weight rows, plain, with their values (for the reference of a sample and
/// the float64 check); the row strides.
struct GemmInputs {
  int m = 0;
  std::vector<uint16_t> x, r;
  std::vector<uint8_t> wq, ws;      // [N, K*bits/8] in wlayout, scales in layout
  std::vector<size_t> columns;      // the checked columns, ascending
  QuantizedRows checkedWeights;     // their rows, plain codes and scales
  int64_t xStride = 0, yStride = 0; // elements; 0 = dense
  bool ok = false;
};

/// Draws m (1..M, or `forcedM` when > 0), x, R, the weights and the
/// strides of spec `specIndex`'s run from `seed`; `ok` is false when the
/// weights could not be prepared.
/// `everyRow`, when given, replaces the rows' rotation of distributions
/// (the mutation bench's all-boundary run).
GemmInputs drawGemmInputs(const KernelSpec &spec, size_t specIndex, uint64_t seed,
                          const ColumnSample &sample, int forcedM = 0,
                          std::optional<Distribution> everyRow = std::nullopt);

/// Sets the weights of `in` from bf16 rows `w` (one per checked column):
/// the launch's wq and ws in the spec's layouts, and the checked plain rows.
/// False when numerics/ cannot quantize them.
bool setGemmWeights(const KernelSpec &spec, const ColumnSample &sample,
                    const std::vector<uint16_t> &w, GemmInputs &in);

/// Weights that make y show the quantized activations themselves: column c
/// reads rotated channel firstChannel + c alone, y[c] = sqrt(RS) * that
/// channel's dequantized code (exact in bf16). A GEMM's y otherwise hides
/// an activation code or scale that is slightly off below its bf16 ulp.
/// Only for rot=none and an exact Hadamard (RS 64 or 256); nullopt otherwise.
std::optional<std::vector<uint16_t>> gemmProbeWeights(const KernelSpec &spec,
                                                      const std::vector<size_t> &columns,
                                                      size_t firstChannel);

/// Launches `code` on a fresh emu device (`device`, with `order` on top),
/// y poisoned, only the sampled workgroups running.
Result<runtime::SpecLaunch>
launchGemm(const CodeObject &code, const KernelSpec &spec, const GemmInputs &in,
           const ColumnSample &sample, emu::WorkgroupOrder order, uint64_t orderSeed,
           uint8_t poison, const runtime::EmuDeviceOptions &deviceOptions = caseDeviceOptions());

/// y's bytes as the kernel must leave them: the reference's rows at the
/// stride in the sampled columns, everything else still the poison.
std::vector<uint8_t> expectedGemmY(const KernelSpec &spec, const GemmInputs &in,
                                   const std::vector<uint16_t> &y, const ColumnSample &sample,
                                   uint8_t poison);

/// The reference's y [m, N]: whole, through the spec's layouts; or, for a
/// sample, of the sampled columns only, the other columns 0 (never compared).
Result<std::vector<uint16_t>> gemmReferenceY(const KernelSpec &spec, const GemmInputs &in,
                                             const ColumnSample &sample);

/// Every differing element of y, the first four named ("" when none). An
/// element in the first `columns` of a row that is NaN in both counts as
/// equal (a NaN's sign and payload are unspecified).
std::string compareGemmY(const std::vector<uint8_t> &got, const std::vector<uint8_t> &expected,
                         size_t rowElements, size_t columns);

/// Outputs of `y` outside docs/numerics.md's bound around the float64
/// product of the dequantized operands (the first one described).
size_t countOutsideGemmBound(const KernelSpec &spec, const GemmInputs &in,
                             const std::vector<uint16_t> &y, const ColumnSample &sample,
                             std::string &first);

} // namespace mxf::e2e

#endif // MXFORGE_TESTS_E2E_GEMM_CASE_H
