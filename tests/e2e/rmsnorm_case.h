//===- rmsnorm_case.h - One rmsnorm_rotate_quant run: inputs, launch, checks -*- C++ -*-===//
//
// What the norm's suites share: inputs drawn row by row from the e2e
// distributions with a gain, eps and the spec's R, seed and selection; the
// CPU reference (arrays' runReference: numerics' RMSNorm, then
// rotate_quant's reference); a launch on the emu device with x and the
// residual at row strides whose gaps hold NaNs, outputs poisoned and
// buffers exactly sized; and the byte comparison of every output.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_E2E_RMSNORM_CASE_H
#define MXFORGE_TESTS_E2E_RMSNORM_CASE_H

#include "tests/e2e/e2e_inputs.h"
#include "tests/e2e/reference_case.h"

#include "abi/code_object.h"
#include "arrays/reference_runner.h"
#include "emulator/emulator.h"
#include "runtime/spec_launcher.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace mxf::e2e {

/// One launch's inputs: dense rows for the reference, their strides for
/// the kernel.
struct NormInputs {
  int m = 1;
  std::vector<uint16_t> x, residual, gamma, r;
  int64_t xStride = 0, residualStride = 0; // elements; 0: dense
  uint32_t srSeed = 0;
  SelectionInputs selection;
  double eps = 1e-6;
};

/// Rows from the finite distributions (base rotates them), a gain in
/// [-0.25, 1.75), eps from {1e-6, 1e-5, 1e-12, 0.25}, row strides a
/// quarter of the time; the selection's path is `rotate`.
NormInputs drawNormInputs(const KernelSpec &spec, int m, size_t base, bool rotate,
                          std::mt19937_64 &rng);

/// The reference run of `in` (with in.eps).
Result<arrays::ReferenceRun> normReference(const KernelSpec &spec, const NormInputs &in);

/// launchWithReference with x and the residual at their strides (gaps of
/// NaNs) and eps `launchValues` (in.eps unless given); compare with
/// compareReferenceOutputs.
Result<runtime::SpecLaunch> launchNorm(const CodeObject &code, const KernelSpec &spec,
                                       const NormInputs &in,
                                       const arrays::ReferenceRun &expected,
                                       emu::WorkgroupOrder order, uint64_t orderSeed,
                                       uint8_t poison, const LaunchValues *launchValues = nullptr);

} // namespace mxf::e2e

#endif // MXFORGE_TESTS_E2E_RMSNORM_CASE_H
