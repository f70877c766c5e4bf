//===- coverage.h - Which instructions the check runs at all -----*- C++ -*-===//
//
// A mutation in code the check never executes survives whatever it does, and
// the fix is another input, not a stricter comparison. Each basic block is
// probed: its first instruction becomes s_trap 0 (s_nop 0 for its other
// dwords, so the stream decodes as before), which stops any wave that
// reaches it; a probe that passes the family's check marks its block as
// never run. (A block run only with EXEC = 0 counts as run.)
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_BENCH_MUTATION_COVERAGE_H
#define MXFORGE_BENCH_MUTATION_COVERAGE_H

#include "bench/mutation/cfg.h"
#include "bench/mutation/family_checks.h"
#include "bench/mutation/mutator.h"

#include <vector>

namespace mxf::mutation {

struct Coverage {
  std::vector<bool> executed; // by instruction
  size_t blocks = 0, blocksNeverRun = 0, instructionsNeverRun = 0;
};

Coverage measureCoverage(const KernelCode &code, const Cfg &cfg, const FamilyCheck &check,
                         const runtime::EmuDeviceOptions &device, double timeoutSeconds);

} // namespace mxf::mutation

#endif // MXFORGE_BENCH_MUTATION_COVERAGE_H
