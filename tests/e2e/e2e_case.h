//===- e2e_case.h - One spec end to end: runs, checks, reports -*- C++ -*-===//
//
// The body of the suite, shared by the matrix test and the thread-count
// test: for one compiled spec, draw a run's inputs from the seed, launch on
// the emu device, and check everything docs/verification.md lists (outputs
// bit for bit, untouched rows, launch statistics). Failures are reported
// with gtest's ADD_FAILURE and carry the spec, M, seed and replay command.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_E2E_E2E_CASE_H
#define MXFORGE_TESTS_E2E_E2E_CASE_H

#include "tests/e2e/e2e_inputs.h"
#include "tests/e2e/e2e_runner.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxf::e2e {

/// The row counts one spec runs with: 1, a ragged value strictly between 1
/// and the bucket (drawn from the seed, when the bucket is > 2), the bucket.
std::vector<int> rowCountsFor(int bucket, uint64_t seed);

/// Poison bytes, one per run (then the determinism rerun's): none is 0x7F
/// (the a4w4 padding byte) and they differ from each other, so that a byte
/// the kernel should not touch cannot match them all by accident.
uint8_t poisonFor(size_t run);

/// What identifies a run in messages and how to replay it.
struct RunContext {
  uint64_t seed = 0;
  size_t specIndex = 0; // rotates distributions and matrix kinds
  size_t run = 0;
  std::string testName; // for the replay line
};

/// Draws the inputs of run `context.run` with m rows: row i follows
/// distributionFor(specIndex + run, i); a learned rotation follows
/// matrixKindFor(specIndex + run).
RunInputs drawInputs(const KernelSpec &spec, int m, const RunContext &context);

/// Launches, checks outputs against numerics/ and the launch statistics,
/// and reports every failure. Returns the outputs (empty on a launch error).
RunOutputs runAndCheck(runtime::Device &device, const LoadedKernel &kernel,
                       const RunInputs &inputs, const RunContext &context);

/// Counters of two launches that must be identical; a message naming the
/// first difference, or empty.
std::string compareReports(const runtime::LaunchReport &a, const runtime::LaunchReport &b);

} // namespace mxf::e2e

#endif // MXFORGE_TESTS_E2E_E2E_CASE_H
