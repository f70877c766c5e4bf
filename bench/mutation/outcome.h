//===- outcome.h - How a check of a mutant ended -----------------*- C++ -*-===//
//
// A run of a family's check passes, or fails in one of several ways; the
// table counts which way caught each mutant, so that a score made of
// emulator refusals can be told from one made of wrong bytes.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_BENCH_MUTATION_OUTCOME_H
#define MXFORGE_BENCH_MUTATION_OUTCOME_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace mxf::mutation {

/// How a run of the check ended. Everything but Survived catches a mutant.
enum class Outcome : uint8_t {
  Survived,
  WrongBytes,       // an output byte differs from the reference (or a poison byte changed)
  Counters,         // a launch statistic the suite checks (bytes written, waves, ...)
  OutOfBounds,      // a memory access outside the registered buffers, LDS or kernargs
  RegisterRange,    // a VGPR beyond the kernel's allocation
  Hazard,           // the emulator's hazard model: a missing wait, an LDS race
  InstructionLimit, // a wave ran past maxInstructionsPerWave
  Refused,          // the emulator refused a state it does not model
  LaunchError,      // any other emulator error
  Crash,            // the check process died (a signal)
  Timeout,          // the check process ran past its wall-clock limit
};
constexpr size_t kNumOutcomes = 11;
const char *outcomeName(Outcome outcome);

struct Verdict {
  Outcome outcome = Outcome::Survived;
  std::string detail; // the first failure, as the check reported it
  bool caught() const { return outcome != Outcome::Survived; }
};

/// An emulator error message, classified.
Outcome classifyLaunchError(const std::string &message);

} // namespace mxf::mutation

#endif // MXFORGE_BENCH_MUTATION_OUTCOME_H
