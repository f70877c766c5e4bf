//===- kernel_run.h - Compile, run on a device, compare with the reference -*- C++ -*-===//
//
// What `mxforge run` and `mxforge demo` share: get a spec's code object
// (compiled in process, or read from a file), run it on a device with the
// inputs of a reference run (exactly m rows, as the kernel reads them), and
// compare every output byte with the reference's.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TOOLS_MXFORGE_KERNEL_RUN_H
#define MXFORGE_TOOLS_MXFORGE_KERNEL_RUN_H

#include "abi/code_object.h"
#include "support/status.h"
#include "runtime/device.h"
#include "spec/kernel_spec.h"
#include "arrays/reference_runner.h"
#include "runtime/spec_launcher.h"

#include <string>
#include <vector>

namespace mxf::cli {

struct CompiledKernel {
  CodeObject code;
  double compileMs = 0; // 0 when read from a file
};

/// Compiles `spec` in process, or, with a non-empty `hsacoPath`, reads that
/// code object and picks `kernelName` (may be empty when it has one kernel).
Result<CompiledKernel> obtainKernel(const KernelSpec &spec, const std::string &hsacoPath,
                                    const std::string &kernelName);

struct KernelRun {
  arrays::NpyArrays outputs;      // the reference's output names and shapes
  runtime::LaunchReport report;
  double launchMs = 0;    // wall time of the launch (emulated time on emu)
  size_t mismatches = 0;  // bytes that differ from the reference
  size_t untouchedViolations = 0; // bytes past M the kernel wrote
  std::vector<std::string> details; // the first few differences, one per line
  bool ok() const { return mismatches == 0 && untouchedViolations == 0; }
};

/// What runs after the checked launch, with its kernel and arguments still
/// loaded: bench's timing.
using runtime::WhileLoaded;

/// Runs the kernel on `device` with `reference.inputs` for `m` rows and
/// compares its outputs with `reference.outputs`; then `whileLoaded`, if
/// given (launchMs includes it).
Result<KernelRun> runAndCompare(runtime::Device &device, const CompiledKernel &kernel,
                                const KernelSpec &spec, int m,
                                const arrays::ReferenceRun &reference,
                                const WhileLoaded &whileLoaded = {});

} // namespace mxf::cli

#endif // MXFORGE_TOOLS_MXFORGE_KERNEL_RUN_H
