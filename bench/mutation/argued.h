//===- argued.h - Survivors explained by an argument, not a proof -*- C++ -*-===//
//
// equivalence.h proves a survivor equivalent from the code alone. Most of
// the rest are equivalent too, but only in context: the high half of a bf16
// negation that v_perm_b32 drops, abs() of a block maximum that is already
// |x| or NaN, the sign extension of a row index that is never negative.
// Each such survivor is listed, by hand, in argued_survivors.tsv: its
// family, address, instruction before and after (as the bench prints them)
// and the *kind* of argument, one of kArguedKinds below, whose text says why
// the mutant cannot change an output and what a machine proof would need.
//
// The list is matched by address and instruction text, so a change of the
// kernel (a register renamed, an instruction moved) drops its entries back to
// "missed" until someone reviews them again, and an entry whose mutant is
// now caught is reported as stale: the list can hide nothing silently.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_BENCH_MUTATION_ARGUED_H
#define MXFORGE_BENCH_MUTATION_ARGUED_H

#include "support/status.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace mxf::mutation {

struct ArguedKind {
  const char *id;
  const char *argument; // why no output can change, and what would prove it
};

/// Every kind an entry may name.
const std::vector<ArguedKind> &arguedKinds();
const ArguedKind *findArguedKind(const std::string &id);

/// (family, address, original text, mutated text) -> kind id.
using ArguedKey = std::tuple<std::string, uint64_t, std::string, std::string>;
struct ArguedSurvivors {
  std::string path;
  std::map<ArguedKey, std::string> kindOf;
};

/// Reads the tab-separated list:
/// `kind<TAB>family<TAB>address<TAB>original<TAB>mutated` (address in hex,
/// as the bench prints it), `#` comments and blank lines ignored. An unknown
/// kind, a wrong column count, a bad address or a duplicate entry is an
/// error naming the line.
Result<ArguedSurvivors> loadArguedSurvivors(const std::string &path);

} // namespace mxf::mutation

#endif // MXFORGE_BENCH_MUTATION_ARGUED_H
