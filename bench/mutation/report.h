//===- report.h - The mutation table, the missed survivors, JSON -*- C++ -*-===//
//
// What mutation_bench measured, per family and class: mutants, caught,
// survived (equivalent / missed) and the score caught / (mutants -
// equivalent); how the caught ones were caught; every missed survivor with
// its instruction before and after; and the target line of issue 29.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_BENCH_MUTATION_REPORT_H
#define MXFORGE_BENCH_MUTATION_REPORT_H

#include "bench/mutation/family_checks.h"
#include "bench/mutation/mutator.h"
#include "numerics/status.h"

#include <array>
#include <string>
#include <vector>

namespace mxf::mutation {

struct MutantResult {
  Mutation mutation;
  KernelInstruction instruction; // the original
  Verdict verdict;
  std::string equivalence; // the rule that proves a survivor equivalent, or empty
  bool executed = true;    // the check runs the mutated instruction (coverage.h)
  bool missed() const { return !verdict.caught() && equivalence.empty(); }
};

struct ClassTally {
  size_t mutants = 0, caught = 0, equivalent = 0, missed = 0;
  size_t missedNeverRun = 0; // missed in code the check never executes
  std::array<size_t, kNumOutcomes> byOutcome{};
  SampleStats sampling; // classes a-d
  /// caught / (mutants - equivalent); 1 when nothing is non-equivalent.
  double score() const {
    return mutants == equivalent ? 1.0 : double(caught) / double(mutants - equivalent);
  }
};

struct FamilyResult {
  Family family = Family::RotateQuant;
  std::string spec, kernel, plan;
  size_t instructions = 0;
  uint64_t instructionLimit = 0;
  RunFacts facts;
  size_t blocks = 0, blocksNeverRun = 0, instructionsNeverRun = 0;
  std::array<ClassTally, kNumClasses> classes;
  std::vector<MutantResult> mutants;
  double seconds = 0;

  void add(MutantResult result);
};

struct Report {
  uint64_t seed = 0;
  size_t perClass = 0;
  unsigned threads = 0;
  uint64_t limitFactor = 0;
  std::string label;
  std::vector<FamilyResult> families;
  double seconds = 0;
};

/// The tables, the missed survivors and the target line, on stdout.
void printReport(const Report &report);

Status writeJson(const Report &report, const std::string &path);

} // namespace mxf::mutation

#endif // MXFORGE_BENCH_MUTATION_REPORT_H
