//===- argued.cpp - Survivors explained by an argument, not a proof -------===//

#include "bench/mutation/argued.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace mxf::mutation {

const std::vector<ArguedKind> &arguedKinds() {
  static const std::vector<ArguedKind> kinds = {
      {"dead-bits",
       "the mutation changes only bits that every reader of the value drops before an output "
       "depends on them: the high half of a bf16 negation (v_xor 0x8000) that v_perm_b32 "
       "0x05040100 or an SDWA WORD_0 select discards; bits 9-31 of a scale byte constant "
       "(0xfe, 0xff, 0x100) that is shifted left by 23 or stored as a byte; mask bits above "
       "the value's width (the scaled MFMA reads one byte of its scale operands; v_and_or_b32 "
       "of v << 24 has no bit 23; a 32- and a 16-bit or an arithmetic and a logical shift by 8 "
       "agree on the byte an SDWA BYTE select keeps; a v_bitop3 row that needs bits where "
       "two operands are disjoint masks, or where they hold the same bits). A demanded-bits "
       "data flow over the kernel (LLVM's DemandedBits on the machine code) would prove "
       "these"},
      {"non-negative",
       "a sign modifier (abs, neg) or a max3 operand's sign on a value that is >= 0 or NaN by "
       "construction: a block maximum built from |x| terms, a cndmask of such maxima or of "
       "non-negative constants, the MoE sorter's counts, offsets and search positions (integers "
       "below 2^31, whose bit 31 abs clears and is 0 already); for b >= 0, max3(a, -b, b) = "
       "max3(a, b, b) and |b| = b, and a NaN stays a NaN whose sign no later instruction reads (the NaN test v_cmp_o and the "
       "scale byte 0xFF). A sign-bit range analysis would prove these"},
      {"same-block-element",
       "a max3 operand replaced by another register holding an element of the same 32-block "
       "whose magnitude the same reduction takes elsewhere: the maximum is over the same set "
       "(an element without its abs cannot exceed the maximum of magnitudes that includes it)"},
      {"zero-register",
       "a max3 operand of |x| terms replaced by a register that holds 0 for the whole kernel "
       "(written once, v_mov_b32 v, 0, or the zero high half of a v_mov_b64 constant, and the "
       "kernel has no loop back to it): 0 cannot raise a maximum of magnitudes"},
      {"equal-copies",
       "the replacement register holds the same value as the original at that point (both "
       "were just copied from one register, e.g. the v_mov pair before v_permlane16_swap)"},
      {"even-zero-test",
       "scale=even's test amax + 2^21 > 0x7fffff (is the rounded maximum a normal?) with "
       "another threshold: both branches give scale byte 0 for every maximum between the two "
       "thresholds, because the rounded maximum 2^-126 gives floor(log2) - emax <= -128, "
       "which clamps to -127 (scale_rules.cpp, ScaleRule::Even)"},
      {"index-range",
       "integer arithmetic on indices, sizes or counters whose values at every valid launch "
       "make the change invisible: the sign (s_ashr 31) of a non-negative 32-bit index "
       "shifted by fewer bits, the zero high half of a 64-bit offset, a compare against a "
       "bound that the values never reach between the two constants, an EXEC restore that "
       "is all ones at these shapes"},
      {"dead-value",
       "the mutated instruction's result (or the original's) is overwritten on every path "
       "before any read: the initial value of a scaled convert's destination, whose four "
       "bytes the four v_cvt_scalef32_pk_fp4_f32 (op_sel byte 0-3) all write; an EXEC mask "
       "saved before the last store and never restored (s_endpgm follows)"},
      {"replicated-value",
       "a guard that lets one lane group of a row write (v_cmp_eq group, 0) moved to another "
       "group: after the cross-lane maximum every group of the row holds the same scale, and "
       "the LDS address it writes does not depend on the group"},
      {"never-nan",
       "an operand of an ordered/unordered NaN test replaced by a register that holds a small "
       "integer for the whole kernel (the work-item id, below 2^10): as an f32 it is finite, "
       "so the test still asks about the other operand only"},
      {"compare-clamp",
       "the clamp bit of a VOPC compare in VOP3 form: a compare writes a lane mask, which "
       "clamp cannot change (on compares the bit only selects exception signalling for "
       "quiet NaNs, and the kernels enable no exceptions)"},
      {"exec-restore",
       "an EXEC restore at a loop's exit turned into another SALU op: the loop leaves EXEC "
       "0, and the next instruction restores the enclosing mask, saved before the loop, "
       "which contains every lane of the inner one"},
      {"scc-set",
       "s_mov turned into its conditional form s_cmov where SCC is 1 on every path, so it "
       "still moves: the MoE sorter's binary-search bound E + 1 follows s_lshl_b64 of "
       "(32 m + 480) >> 9 by 11, nonzero for every m >= 1 (grid y is ceil(m / 16), so no "
       "workgroup runs at m = 0), and only s_mov and VALU instructions lie between. An SCC "
       "value analysis over the SALU code would prove it"},
      {"mask-inside",
       "an EXEC restore after an if turned into s_subb_u32 exec_lo, exec_lo, s_lo of the "
       "saved mask, where the next instruction ANDs EXEC with a mask inside the if's: the "
       "wave is full at the if's s_and_saveexec (saved mask all ones) and the if holds no "
       "SALU op, so SCC is (inner mask != 0) and exec_lo - 0xffffffff - SCC is the inner "
       "mask's low half (lane 0 alone when the inner mask is empty), exec_hi keeps its high "
       "half; the MoE's scale scatter (entries with a sorted row) lies inside the codes' if "
       "(rows below m), because a kept entry's token is below m, so the same lanes store"},
      {"disjoint-lds",
       "an s_waitcnt or s_barrier between LDS accesses of different waves whose bytes do not "
       "overlap at this tiling: the MoE sorter's counting loop and its scan's last step (no "
       "wave reads those bytes before a later barrier, which has its own lgkmcnt(0), and one "
       "wave's LDS operations complete in order), the GEMM's barrier before the accumulator "
       "tile goes to LDS (the bytes written after it are not the ones read before it). The "
       "race detector sees conflicting bytes only, and there are none"},
  };
  return kinds;
}

const ArguedKind *findArguedKind(const std::string &id) {
  for (const ArguedKind &kind : arguedKinds())
    if (id == kind.id)
      return &kind;
  return nullptr;
}

Result<ArguedSurvivors> loadArguedSurvivors(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    return Status::failure("cannot read the argued survivors list " + path);
  ArguedSurvivors out;
  out.path = path;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#')
      continue;
    std::vector<std::string> columns;
    std::stringstream row(line);
    for (std::string column; std::getline(row, column, '\t');)
      columns.push_back(column);
    const std::string where = path + ":" + std::to_string(number);
    if (columns.size() != 5)
      return Status::failure(where + ": expected 5 tab-separated columns (kind, family, "
                                     "address, original, mutated), found " +
                             std::to_string(columns.size()));
    if (!findArguedKind(columns[0]))
      return Status::failure(where + ": unknown kind '" + columns[0] + "'");
    char *end = nullptr;
    const uint64_t address = std::strtoull(columns[2].c_str(), &end, 16);
    if (columns[2].rfind("0x", 0) != 0 || end == columns[2].c_str() + 2 || *end != '\0')
      return Status::failure(where + ": address '" + columns[2] + "' is not 0x<hex>");
    ArguedKey key{columns[1], address, columns[3], columns[4]};
    if (!out.kindOf.emplace(key, columns[0]).second)
      return Status::failure(where + ": duplicate entry");
  }
  return out;
}

} // namespace mxf::mutation
