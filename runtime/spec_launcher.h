//===- spec_launcher.h - Launch a compiled spec's kernel ---------*- C++ -*-===//
//
// The one place that knows how a compiled spec is launched: its operands and
// by-value arguments (abi/operands.h) and the grid from the code object's
// launch record (abi/launch_record.h), never from tiling code. The CLI
// (`mxforge run`, `mxforge demo`), the C API and the end-to-end tests use
// it. Plain C++: no LLVM or MLIR (the code object comes in as bytes).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_SPEC_LAUNCHER_H
#define MXFORGE_RUNTIME_SPEC_LAUNCHER_H

#include "abi/kernel_info.h"
#include "abi/launch_record.h"
#include "abi/operands.h"
#include "support/status.h"
#include "runtime/device.h"
#include "spec/kernel_spec.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mxf::runtime {

/// Arrays by operand name (x, r, q, s, ...), as raw little-endian bytes in
/// the operand's element type: m rows of a strided operand `stride` elements
/// apart ((m - 1) * stride + row elements), every other operand at its shape
/// for m rows.
using HostArrays = std::map<std::string, std::vector<uint8_t>>;

/// Row strides by operand name, in elements. An operand not named is dense
/// (its stride is its row length).
using RowStrides = std::map<std::string, int64_t>;

/// The grid and workgroup of a launch of m rows, from the record alone: what
/// an engine that launches the kernel itself computes.
LaunchConfig launchConfigFor(const LaunchRecord &record, int m);

struct SpecLaunch {
  HostArrays outputs;  // every written operand, the bytes the launch spans
  /// Every workspace operand after the launch (its counters back at zero
  /// for a kernel that keeps the workspace contract, abi/operands.h); a
  /// caller that gives none gets a zeroed one.
  HostArrays workspaces;
  LaunchReport report; // the device's counters (instructions, bytes, ...)
  Dim3 grid, workgroup;
};

/// What runs after a launch while its module and buffers are still loaded,
/// with its kernel, geometry and arguments (SpecLaunchOptions::whileLoaded).
using WhileLoaded =
    std::function<Status(Device &, const Kernel &, const LaunchConfig &, const KernelArgs &)>;

struct SpecLaunchOptions {
  /// Every output buffer is filled with this byte before the launch, so
  /// that bytes the kernel must not touch can be checked afterwards.
  uint8_t poison = 0xA5;
  /// Initial contents of outputs by name (instead of the poison).
  HostArrays initialOutputs;
  RowStrides rowStrides;
  /// Selective rotation's by-value value (abi selectionArgName: `rotate` for
  /// select=flag, `layer` for select=mask); required exactly then.
  std::optional<int64_t> selection;
  /// The op's own by-value values (kernelValueArgs: eps), by name.
  LaunchValues values;
  /// Called after the outputs were copied out, while the module and buffers
  /// are still loaded, with the launch's kernel, geometry and arguments: what
  /// `mxforge bench --device hip` times (Device::timeLaunches). Its failure
  /// is the launch's.
  WhileLoaded whileLoaded;
};

/// The row stride of `operand` in `strides`, or its row length when it is not
/// named; an error names a stride below the row, a stride on a dense operand,
/// or one beyond the kernel's i32 argument.
Result<int64_t> rowStrideOf(const KernelOperand &operand, const RowStrides &strides);
/// The same for a stride given or not (none: the row length).
Result<int64_t> rowStrideOf(const KernelOperand &operand, std::optional<int64_t> stride);

/// Bytes operand `name` of `spec` spans for m rows with `strides`.
Result<uint64_t> operandBytes(const KernelSpec &spec, int m, const std::string &name,
                              const RowStrides &strides = {});

/// What a launch hands the device: the explicit arguments in ABI order
/// (operands, m, row strides, the selection value) and the grid from the
/// launch record, after every check of the launch. For callers that launch
/// themselves (mxf_kernel_launch_params packs these with packKernelArgs).
struct SpecLaunchArgs {
  KernelArgs args;
  LaunchConfig config;
  /// Bytes each operand spans for this launch's m and row strides, in
  /// operand order: what a caller that knows its buffers' sizes compares.
  std::vector<uint64_t> operandSpans;
};

/// The one check of a launch of a compiled spec, worked out once per kernel:
/// the spec and its launch record are validated when it is made, the operand
/// table (names, row stride arguments, derivations) is built once, and the
/// operands at a row count m are built the first time a launch asks for m
/// and kept. Every launch path (the C API's mxf_launch* and
/// mxf_kernel_launch_params*, launchSpec, the e2e runner) goes through
/// prepare(), so a launch is checked once. Thread-safe.
class SpecLauncher {
public:
  static Result<SpecLauncher> create(const KernelSpec &spec, const LaunchRecord &record);

  const KernelSpec &spec() const;
  const LaunchRecord &record() const;
  /// The operands at the spec's bucket M (kernelOperands(spec)).
  const std::vector<KernelOperand> &operands() const;
  /// The operands at m rows (1 <= m <= the record's limit, or N for
  /// quant_weight; checkRows first).
  const std::vector<KernelOperand> &operandsAt(int m) const;
  /// The index of operand `name`, or a failure naming the spec's operands.
  Result<size_t> operandIndex(const std::string &name) const;
  /// Whether a launch may process m rows (checkLaunchRows with the record).
  Status checkRows(int m) const;

  /// Every check of one launch, then its arguments: the operand count,
  /// 1 <= m <= the record's limit, a selection value exactly when the spec
  /// selects (checkSelectionValue), the op's values (checkLaunchValues), every row stride named for a strided
  /// operand and at least its row, and every buffer the runtime allocated
  /// large enough for m rows at its stride.
  Result<SpecLaunchArgs> prepare(int m, const std::vector<KernelArg> &operands,
                                 const RowStrides &strides = {}, void *stream = nullptr,
                                 std::optional<int64_t> selection = std::nullopt,
                                 const LaunchValues &values = {}) const;
  /// The same with row strides by operand position (none: the operand's
  /// row length), as the C API takes them; `strides` is empty or has one
  /// entry per operand.
  Result<SpecLaunchArgs> prepare(int m, const std::vector<KernelArg> &operands,
                                 const std::vector<std::optional<int64_t>> &strides,
                                 void *stream, std::optional<int64_t> selection,
                                 const LaunchValues &values = {}) const;

private:
  struct State;
  explicit SpecLauncher(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

/// SpecLauncher::create(spec, record), then prepare(): for a single launch.
Result<SpecLaunchArgs> specLaunchArgs(const KernelSpec &spec, const LaunchRecord &record, int m,
                                      const std::vector<KernelArg> &operands,
                                      const RowStrides &strides = {}, void *stream = nullptr,
                                      std::optional<int64_t> selection = std::nullopt,
                                      const LaunchValues &values = {});

/// Launches `kernel` (the loaded code object of `spec`, launched as `record`
/// says) for `m` rows on memory the caller owns: `operands` holds one pointer
/// argument per operand of kernelOperands(spec), inputs and outputs alike,
/// in that order; m and the row strides are added here. Checks first, and
/// launches nothing when any fails: 1 <= m <= spec.M and the record's limit,
/// every stride at least its row, every buffer the runtime allocated large
/// enough for what m rows at that stride span, a selection value exactly
/// when the spec selects (checkSelectionValue). Asynchronous on the hip
/// backend (on `stream`), finished on return on the emu backend (`report`
/// gets its counters).
Status launchSpecKernel(Device &device, const Kernel &kernel, const KernelSpec &spec,
                        const LaunchRecord &record, int m, const std::vector<KernelArg> &operands,
                        const RowStrides &strides = {}, void *stream = nullptr,
                        LaunchReport *report = nullptr,
                        std::optional<int64_t> selection = std::nullopt,
                        const LaunchValues &values = {});

/// Loads `hsaco` on `device`, uploads the inputs (every operand the kernel
/// reads must be given, exactly sized for m rows and its stride), launches
/// the kernel of `spec` for `m` rows and downloads every output.
Result<SpecLaunch> launchSpec(Device &device, const std::vector<uint8_t> &hsaco,
                              const KernelInfo &kernel, const LaunchRecord &record,
                              const KernelSpec &spec, int m, const HostArrays &inputs,
                              const SpecLaunchOptions &options = {});

} // namespace mxf::runtime

#endif // MXFORGE_RUNTIME_SPEC_LAUNCHER_H
