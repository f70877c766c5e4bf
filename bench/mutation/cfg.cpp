//===- cfg.cpp - The control-flow graph of a kernel's instructions --------===//

#include "bench/mutation/cfg.h"

#include "bench/mutation/text.h"

#include <map>
#include <set>

namespace mxf::mutation {
namespace {


bool isIndirect(const std::string &mnemonic) {
  static const char *const kIndirect[] = {"s_setpc",        "s_swappc",        "s_call",
                                          "s_rfe",          "s_trap",          "s_cbranch_g_fork",
                                          "s_cbranch_join", "s_cbranch_i_fork"};
  for (const char *name : kIndirect)
    if (startsWith(mnemonic, name))
      return true;
  return false;
}

} // namespace

Cfg buildCfg(const KernelCode &code) {
  const std::vector<KernelInstruction> &insts = code.instructions;
  const size_t n = insts.size();
  std::map<uint64_t, size_t> byAddress;
  for (size_t i = 0; i < n; ++i)
    byAddress[insts[i].address] = i;
  Cfg cfg;
  cfg.complete = n > 0;
  cfg.successors.assign(n, {});
  std::set<size_t> leaders{0};
  for (size_t i = 0; i < n; ++i) {
    const std::string &m = insts[i].mnemonic;
    const bool branch = m == "s_branch" || startsWith(m, "s_cbranch");
    const bool ends = startsWith(m, "s_endpgm");
    if (isIndirect(m)) {
      cfg.complete = false;
    } else if (!ends) {
      if (branch) {
        const int16_t simm16 = int16_t(insts[i].words[0] & 0xffff);
        const auto target = byAddress.find(insts[i].address + 4 + int64_t(simm16) * 4);
        if (target == byAddress.end()) {
          cfg.complete = false;
        } else {
          cfg.successors[i].push_back(target->second);
          leaders.insert(target->second);
        }
      }
      if (m != "s_branch" && i + 1 < n)
        cfg.successors[i].push_back(i + 1);
    }
    if ((branch || ends || isIndirect(m)) && i + 1 < n)
      leaders.insert(i + 1);
  }
  cfg.leaders.assign(leaders.begin(), leaders.end());
  return cfg;
}

} // namespace mxf::mutation
