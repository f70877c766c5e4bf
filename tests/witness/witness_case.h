//===- witness_case.h - One case of the witness corpus ------------*- C++ -*-===//
//
// A corpus case is a folder with a launch file (runtime/launch_file.h) whose
// extra "witness" key says which output buffers the H200 produced and how
// to compare them:
//   "witness": {"expected": {"y": "expected_y.npy"},
//               "compare": {"y": {"kind": "bytes"}}}
// kind "bytes" (every byte equal: the default), or, where the kernel's math
// is not exact on both machines (transcendentals, FMA contraction),
// "f32_abs" with "bound" or "f32_ulp" with "max_ulp", and a "reason".
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_WITNESS_WITNESS_CASE_H
#define MXFORGE_TESTS_WITNESS_WITNESS_CASE_H

#include "support/status.h"
#include "runtime/launch_file.h"

#include <string>
#include <vector>

namespace mxf::witness {

struct Expectation {
  std::string buffer;
  std::string expectedPath;
  std::string kind = "bytes"; // bytes | f32_abs | f32_ulp
  double bound = 0;           // f32_abs
  uint64_t maxUlp = 0;        // f32_ulp
  std::string reason;
};

struct WitnessCase {
  std::string name;
  runtime::LaunchFile launch;
  std::vector<Expectation> expectations;
};

/// The case names MANIFEST.json lists, in its order.
Result<std::vector<std::string>> corpusCaseNames(const std::string &corpusDir);
/// The provenance object of MANIFEST.json, as "key: value" lines.
Result<std::vector<std::string>> corpusProvenance(const std::string &corpusDir);
/// Reads `corpusDir`/`name`/launch.json and its witness key.
Result<WitnessCase> loadCase(const std::string &corpusDir, const std::string &name);

/// Launches the case on a fresh emu device: the outputs in argument order.
Result<runtime::LaunchFileResult> runOnEmulator(const WitnessCase &c);

/// Compares one output with the GPU's bytes; "" when they agree, else what
/// differs (the first differing offsets and values, and how many).
std::string compareOutput(const Expectation &expectation, const std::vector<uint8_t> &actual,
                          const std::vector<uint8_t> &expected);

/// The expected bytes of `expectation` (a 1-d .npy of the buffer's bytes).
Result<std::vector<uint8_t>> readExpected(const Expectation &expectation);

} // namespace mxf::witness

#endif // MXFORGE_TESTS_WITNESS_WITNESS_CASE_H
