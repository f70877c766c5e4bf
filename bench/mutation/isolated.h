//===- isolated.h - One check in a child process, with a time limit -*- C++ -*-===//
//
// A mutant can do anything an instruction stream can: loop, corrupt the
// emulator's state through a path no test took, or crash it. Each check
// therefore runs in a forked child that reports its verdict through a pipe;
// the bench survives a child that dies (a Crash, which names an emulator
// robustness bug) or runs past its wall-clock limit (a Timeout; the
// instruction limit should end loops long before). The child's stdout goes
// to /dev/null: the e2e cases print a line per launch.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_BENCH_MUTATION_ISOLATED_H
#define MXFORGE_BENCH_MUTATION_ISOLATED_H

#include "bench/mutation/family_checks.h"

#include <functional>

namespace mxf::mutation {

struct CheckResult {
  Verdict verdict;
  RunFacts facts;
};

/// Runs `work` in a child process and returns what it returned, or a Crash
/// or Timeout verdict.
CheckResult runIsolated(const std::function<CheckResult()> &work, double timeoutSeconds);

} // namespace mxf::mutation

#endif // MXFORGE_BENCH_MUTATION_ISOLATED_H
