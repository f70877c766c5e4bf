//===- cfg.h - The control-flow graph of a kernel's instructions -*- C++ -*-===//
//
// Successors of every instruction (fall-through, direct branch targets),
// and the basic blocks' first instructions. Complete only when every branch
// is direct and lands on an instruction: s_setpc, s_swappc, s_call, s_trap
// and the fork/join branches make the graph incomplete, and nothing that
// needs the whole graph is then claimed.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_BENCH_MUTATION_CFG_H
#define MXFORGE_BENCH_MUTATION_CFG_H

#include "bench/mutation/mutator.h"

#include <cstddef>
#include <vector>

namespace mxf::mutation {

struct Cfg {
  bool complete = false;
  std::vector<std::vector<size_t>> successors; // by instruction index
  std::vector<size_t> leaders;                 // first instruction of each block, ascending
};

Cfg buildCfg(const KernelCode &code);

} // namespace mxf::mutation

#endif // MXFORGE_BENCH_MUTATION_CFG_H
