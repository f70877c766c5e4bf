//===- equivalence.h - Mutants that provably change nothing ------*- C++ -*-===//
//
// A surviving mutant is *equivalent by construction* only when one of these
// rules proves that no execution can tell it from the original:
//
//  1. same decoding: LLVM decodes the mutated instruction to the original's
//     opcode and text (the flipped bit is one the encoding ignores for this
//     opcode, e.g. op_sel of a 32-bit operand).
//  2. unreachable: no path of the kernel's control-flow graph from its entry
//     reaches the instruction (every branch is direct; a kernel with an
//     indirect one proves nothing).
//  3. s_waitcnt with nothing to wait for: on every path into it, no counter
//     can exceed the count it waits for. Counters are bounded from above by
//     a forward data flow (maximum at joins, to a fixed point): every
//     DS/SMEM/s_sendmsg op adds to lgkmcnt, every FLAT/global/MUBUF op to
//     vmcnt (FLAT also to lgkmcnt, stores and atomics also to expcnt), a
//     wait lowers each counter to its count.
//  4. s_waitcnt covered before any use: on every path from it, a wait at
//     least as strict on every counter it restricts comes before any
//     instruction that could tell: one that reads a register a possibly
//     outstanding op writes, or writes a register such an op writes (or
//     reads, for a vector memory op: stores may read their data after
//     issue; LDS and scalar ops read theirs at issue, as LLVM's waitcnt
//     insertion assumes); an s_barrier, s_endpgm or s_sendmsg; a vector
//     memory op while vector memory ops are outstanding. The possibly outstanding ops
//     are a forward data flow (union at joins) that only a count of 0
//     retires; registers come from the emulator's decoding; an op whose
//     destination is a special register (VCC, EXEC, M0, ...) proves nothing.
//     lgkmcnt counts scalar loads out of order, so with one outstanding
//     only lgkmcnt(0) covers.
//  5. s_barrier in one-wave workgroups: every launch the check made ran one
//     wave per workgroup, and a barrier of one wave waits for nothing.
//  6. an SDWA select that selects nothing: dst_unused of a dst_sel:DWORD
//     destination, sext of a src_sel:DWORD source (no bits are left over to
//     fill or extend).
//  7. a sign modifier of a NaN test: v_cmp(x)_o/u_* ask only whether an
//     operand is NaN, and isNaN(-x) = isNaN(|x|) = isNaN(x).
//  8. a max3/min3 operand that cannot decide (v_max3/min3_{f32,i32,u32},
//     v_maximum3/minimum3_f32): the sources that no earlier source
//     dominates, in order, are unchanged, where a source dominates itself
//     and, for max of the same register, |x| dominates x, -x and -|x|, and x
//     or -x dominates -|x| (mirrored for min). max(max(a,b),b) ->
//     max(max(a,a),b) and max(|a|,|b|,|b|) -> max(|a|,|b|,-|b|) are equal:
//     max and min are commutative and idempotent on values (IEEE_MODE
//     orders -0 < +0), and a NaN register makes its dominated forms NaN
//     too, while max/min return the first NaN (maximum3) or the other
//     operand (max3), so the earlier, dominating source decides.
//  9. a constant bit the instruction does not read: a shift amount or a
//     bit-field offset or width changed only in bits the ISA ignores (5 bits
//     of a 32-bit shift or v_bfe operand, 6 of a 64-bit shift, 4 of a 16-bit
//     one, 3 of v_lshl_add_u64's shift, 2 of v_alignbyte's).
// 10. a sign modifier (abs, neg) of the scale source of a scaled convert
//     (v_cvt_scalef32_*): the instruction reads its exponent field only
//     (GFX950_SEMANTICS.md C2).
// 11. op_sel bits 0-1 of v_cvt_scalef32_pk_*_f32: its sources are f32 and
//     have no 16-bit halves to select (bits 3:2 pick the destination's byte
//     and are not covered).
// 12. v_mov_b32 v, 0 turned into a VOP1 op that maps the bits 0 to the bits
//     0 (conversions, roundings, v_sqrt_f32, v_fract_f32, v_bfrev_b32 of +0).
//
// Nothing else is claimed: a modifier with no effect on the data (abs of a
// value that happens to be non-negative), a register that happens to hold
// the same value, or a barrier whose LDS traffic happens not to conflict
// are not provable here, and such survivors are reported as missed.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_BENCH_MUTATION_EQUIVALENCE_H
#define MXFORGE_BENCH_MUTATION_EQUIVALENCE_H

#include "bench/mutation/cfg.h"
#include "bench/mutation/mutator.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mxf::mutation {

class EquivalenceProver {
public:
  /// `wavesPerWorkgroup`: the largest number of waves per workgroup any
  /// launch of the check ran.
  EquivalenceProver(const KernelCode &code, uint32_t wavesPerWorkgroup);

  /// The rule that proves `mutation` equivalent ("same decoding", ...), or
  /// an empty string when none does.
  std::string prove(const Mutation &mutation) const;

  /// Whether the control-flow graph is complete (every branch direct, every
  /// target an instruction); rules 2 and 3 need it.
  bool cfgComplete() const { return cfg_.complete; }

private:
  /// Outstanding-operation bounds: vmcnt, expcnt, lgkmcnt.
  using Counters = std::array<uint8_t, 3>;
  void analyse();
  std::string proveByOperands(const Mutation &mutation) const;
  bool waitCoveredBeforeUse(size_t index) const;

  struct Registers {
    std::vector<std::pair<uint32_t, uint32_t>> defs, srcs; // [first, end) of one file
    // VCC, EXEC, M0, SCC or another non-SGPR scalar among the operands:
    // instructions also touch these implicitly, so nothing is claimed.
    bool specialDef = false, specialSrc = false;
  };

  const KernelCode &code_;
  uint32_t wavesPerWorkgroup_;
  Cfg cfg_;
  std::vector<bool> reachable_;
  std::vector<Registers> registers_; // by instruction; empty when the emulator cannot decode
  std::vector<std::vector<size_t>> pendingBefore_; // possibly outstanding memory ops
  std::vector<Counters> before_;                   // bounds on entry to each instruction
};

} // namespace mxf::mutation

#endif // MXFORGE_BENCH_MUTATION_EQUIVALENCE_H
