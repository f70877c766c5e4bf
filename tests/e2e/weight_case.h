//===- weight_case.h - One quant_weight run: weights, launch, checks -*- C++ -*-===//
//
// What the quant_weight matrix suite (and bench/mutation_bench) share: the
// weights of a run drawn from a seed (N rows like activations, a learned R,
// a row stride on odd specs), the launch on an emu device with the outputs
// poisoned and every buffer sized from the ABI, and the byte comparison
// that names the first mismatches.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_E2E_WEIGHT_CASE_H
#define MXFORGE_TESTS_E2E_WEIGHT_CASE_H

#include "abi/code_object.h"
#include "emulator/emulator.h"
#include "support/status.h"
#include "runtime/emu_device.h"
#include "runtime/spec_launcher.h"
#include "spec/kernel_spec.h"
#include "tests/e2e/e2e_runner.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mxf::e2e {

/// The weights of one run: N rows drawn like activations (every
/// distribution, boundary values placed where the rotation keeps them),
/// a learned R if the spec takes one, and a row stride on odd specs.
struct WeightInputs {
  std::vector<uint16_t> w; // dense [N, K]
  std::vector<uint16_t> r;
  int64_t stride = 0; // elements; 0 = dense
};

WeightInputs drawWeights(const KernelSpec &spec, size_t specIndex, uint64_t seed);

struct WeightRun {
  runtime::SpecLaunch launch;
  double ms = 0;
};

/// Launches `code` for all N rows on a fresh emu device (`device`, with
/// `order` on top), the outputs filled with `poison`.
Result<WeightRun>
launchWeights(const CodeObject &code, const KernelSpec &spec, const WeightInputs &inputs,
              emu::WorkgroupOrder order, uint64_t orderSeed, uint8_t poison,
              const runtime::EmuDeviceOptions &deviceOptions = caseDeviceOptions());

/// Mismatching bytes of `got` against `expected`, with the first few named
/// ("" when none).
std::string compareBytes(const char *name, const std::vector<uint8_t> &got,
                         const std::vector<uint8_t> &expected, size_t rowBytes);

} // namespace mxf::e2e

#endif // MXFORGE_TESTS_E2E_WEIGHT_CASE_H
