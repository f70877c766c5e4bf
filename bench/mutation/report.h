//===- report.h - The mutation table, the missed survivors, JSON -*- C++ -*-===//
//
// What mutation_bench measured, per family and class: mutants, caught,
// survived (equivalent / argued / missed) and the score caught / (mutants -
// equivalent - argued), beside the score with only the proofs left out; how the caught ones were caught; every missed survivor with
// its instruction before and after; and the target line of issue 29.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_BENCH_MUTATION_REPORT_H
#define MXFORGE_BENCH_MUTATION_REPORT_H

#include "bench/mutation/family_checks.h"
#include "bench/mutation/mutator.h"
#include "support/status.h"

#include <array>
#include <string>
#include <vector>

namespace mxf::mutation {

struct MutantResult {
  Mutation mutation;
  KernelInstruction instruction; // the original
  Verdict verdict;
  std::string equivalence; // the rule that proves a survivor equivalent, or empty
  std::string argued;      // the argued_survivors.tsv kind that explains it, or empty
  bool staleArgument = false; // listed there, yet caught: the entry should go
  bool executed = true;    // the check runs the mutated instruction (coverage.h)
  bool missed() const { return !verdict.caught() && equivalence.empty() && argued.empty(); }
};

struct ClassTally {
  size_t mutants = 0, caught = 0, equivalent = 0, argued = 0, missed = 0;
  size_t missedNeverRun = 0; // missed in code the check never executes
  std::array<size_t, kNumOutcomes> byOutcome{};
  SampleStats sampling; // classes a-d
  /// caught / (mutants - equivalent - argued): the survivors explained by
  /// a proof or by a listed argument left out; 1 when none is left.
  double score() const {
    const size_t open = mutants - equivalent - argued;
    return open == 0 ? 1.0 : double(caught) / double(open);
  }
  /// caught / (mutants - equivalent): only the proofs left out.
  double provedScore() const {
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
  std::string arguedPath; // the argued survivors list the run matched
  std::vector<FamilyResult> families;
  double seconds = 0;
};

/// The tables, the missed survivors and the target line, on stdout.
void printReport(const Report &report);

Status writeJson(const Report &report, const std::string &path);

} // namespace mxf::mutation

#endif // MXFORGE_BENCH_MUTATION_REPORT_H
