//===- coverage.cpp - Which instructions the check runs at all ------------===//

#include "bench/mutation/coverage.h"

#include "bench/mutation/isolated.h"

namespace mxf::mutation {
namespace {

constexpr uint32_t kSTrap0 = 0xBF920000u, kSNop0 = 0xBF800000u;

} // namespace

Coverage measureCoverage(const KernelCode &code, const Cfg &cfg, const FamilyCheck &check,
                         const runtime::EmuDeviceOptions &device, double timeoutSeconds) {
  const size_t n = code.instructions.size();
  Coverage out;
  out.executed.assign(n, true);
  out.blocks = cfg.leaders.size();
  for (size_t b = 0; b < cfg.leaders.size(); ++b) {
    const size_t first = cfg.leaders[b];
    const size_t end = b + 1 < cfg.leaders.size() ? cfg.leaders[b + 1] : n;
    Mutation probe;
    probe.index = first;
    probe.words = {kSTrap0, kSNop0, kSNop0, kSNop0};
    const std::vector<uint8_t> hsaco = applyMutation(code, probe);
    const CheckResult r = runIsolated(
        [&] {
          return CheckResult{check.check(hsaco, device), {}};
        },
        timeoutSeconds);
    if (r.verdict.caught())
      continue;
    ++out.blocksNeverRun;
    for (size_t i = first; i < end; ++i) {
      out.executed[i] = false;
      ++out.instructionsNeverRun;
    }
  }
  return out;
}

} // namespace mxf::mutation
