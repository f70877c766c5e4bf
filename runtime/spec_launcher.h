//===- spec_launcher.h - Run a spec's kernel on host arrays ------*- C++ -*-===//
//
// The one place that knows how a compiled spec is launched: its operands
// (dialects/mxf/kernel_signature.h), the grid for an actual row count
// (templates/tiling.h) and the order of the kernel arguments. The CLI
// (`mxforge run`, `mxforge demo`) and the end-to-end tests use it. Plain
// C++: no LLVM or MLIR (the code object comes in as bytes).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_SPEC_LAUNCHER_H
#define MXFORGE_RUNTIME_SPEC_LAUNCHER_H

#include "numerics/status.h"
#include "runtime/device.h"
#include "runtime/kernel_info.h"
#include "spec/kernel_spec.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mxf::runtime {

/// Arrays by operand name (x, r, q, s, ...), as raw little-endian bytes in
/// the operand's element type and static shape (M = the bucket).
using HostArrays = std::map<std::string, std::vector<uint8_t>>;

struct SpecLaunch {
  HostArrays outputs;  // every written operand, full bucket-sized contents
  LaunchReport report; // the device's counters (instructions, bytes, ...)
  Dim3 grid, workgroup;
};

struct SpecLaunchOptions {
  /// Every output buffer is filled with this byte before the launch, so
  /// that bytes the kernel must not touch can be checked afterwards.
  uint8_t poison = 0xA5;
  /// Initial contents of outputs by name (instead of the poison).
  HostArrays initialOutputs;
};

/// Bytes of one operand of `spec` (its static shape times element size).
Result<uint64_t> operandBytes(const KernelSpec &spec, const std::string &name);

/// Launches `kernel` (the loaded kernel of `spec`) for `m` rows on memory the
/// caller owns: `operands` holds one pointer argument per operand of
/// kernelOperands(spec), inputs and outputs alike, in that order; the row
/// count and the grid are added here. Asynchronous on the hip backend (on
/// `stream`), finished on return on the emu backend (`report` gets its
/// counters).
Status launchSpecKernel(Device &device, const Kernel &kernel, const KernelSpec &spec, int m,
                        const std::vector<KernelArg> &operands, void *stream = nullptr,
                        LaunchReport *report = nullptr);

/// Loads `hsaco` on `device`, uploads the inputs (every operand the kernel
/// reads must be given, exactly sized), launches the kernel of `spec` for
/// `m` rows (1 <= m <= spec.M) and downloads every output.
Result<SpecLaunch> launchSpec(Device &device, const std::vector<uint8_t> &hsaco,
                              const KernelInfo &kernel, const KernelSpec &spec, int m,
                              const HostArrays &inputs, const SpecLaunchOptions &options = {});

} // namespace mxf::runtime

#endif // MXFORGE_RUNTIME_SPEC_LAUNCHER_H
