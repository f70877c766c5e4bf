//===- reference_case.h - A launch checked against the reference runner -*- C++ -*-===//
//
// For ops whose inputs the reference runner can draw and whose outputs it
// computes whole (arrays/reference_runner.h): launch a compiled spec on the
// emu device with a reference run's inputs, its selection and its values,
// outputs poisoned and buffers exactly sized, and compare every byte of
// every output. The rmsnorm and the selective GEMM cases use it.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_E2E_REFERENCE_CASE_H
#define MXFORGE_TESTS_E2E_REFERENCE_CASE_H

#include "abi/code_object.h"
#include "arrays/reference_runner.h"
#include "emulator/emulator.h"
#include "runtime/spec_launcher.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxf::e2e {

/// An array's elements as raw little-endian bytes.
std::vector<uint8_t> rawBytes(const arrays::NpyArray &array);

/// Launches `code` (of `spec`) for `m` rows on a fresh emu device with the
/// workgroups in `order`: the reference's inputs (dense) unless `inputs`
/// replaces some, the reference's selection, `options`' row strides and
/// values (the reference's values when `options` is not given), every
/// output poisoned with `poison`.
Result<runtime::SpecLaunch>
launchWithReference(const CodeObject &code, const KernelSpec &spec, int m,
                    const arrays::ReferenceRun &reference, emu::WorkgroupOrder order,
                    uint64_t orderSeed, uint8_t poison,
                    std::optional<runtime::SpecLaunchOptions> options = std::nullopt,
                    const runtime::HostArrays &inputs = {});

/// Every byte of every output of `expected` against the launch's; empty
/// when they agree, else one line per output that differs.
std::string compareReferenceOutputs(const arrays::ReferenceRun &expected,
                                    const runtime::SpecLaunch &launched);

} // namespace mxf::e2e

#endif // MXFORGE_TESTS_E2E_REFERENCE_CASE_H
