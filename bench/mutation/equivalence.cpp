//===- equivalence.cpp - Mutants that provably change nothing -------------===//

#include "bench/mutation/equivalence.h"

#include "bench/mutation/encoding_fields.h"
#include "bench/mutation/text.h"

#include "emulator/emulator.h"
#include "emulator/program.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

namespace mxf::mutation {
namespace {

using emu::Encoding;

enum Counter { kVm = 0, kExp = 1, kLgkm = 2 };
constexpr std::array<uint8_t, 3> kCounterMax = {63, 7, 15};

bool contains(const std::string &text, const char *part) {
  return text.find(part) != std::string::npos;
}

/// The counts an s_waitcnt waits for (gfx9 SIMM16: vmcnt [3:0] and
/// [15:14], expcnt [6:4], lgkmcnt [11:8]).
std::array<uint8_t, 3> waitCounts(uint32_t word) {
  const uint32_t s = word & 0xffff;
  return {uint8_t((s & 0xf) | (((s >> 14) & 3) << 4)), uint8_t((s >> 4) & 7),
          uint8_t((s >> 8) & 0xf)};
}

/// What an instruction adds to each counter when it issues (upper bounds:
/// an op that might count is counted).
std::array<uint8_t, 3> issues(const KernelInstruction &inst) {
  std::array<uint8_t, 3> add{};
  const bool writes = contains(inst.mnemonic, "store") || contains(inst.mnemonic, "atomic");
  switch (inst.encoding) {
  case Encoding::Smem:
  case Encoding::Ds:
    add[kLgkm] = 1;
    break;
  case Encoding::Flat:
    add[kVm] = 1;
    add[kLgkm] = startsWith(inst.mnemonic, "flat_") ? 1 : 0; // may reach LDS
    add[kExp] = writes ? 1 : 0;
    break;
  case Encoding::Mubuf:
  case Encoding::Mtbuf:
    add[kVm] = 1;
    add[kExp] = writes ? 1 : 0;
    break;
  case Encoding::Sopp:
    if (startsWith(inst.mnemonic, "s_sendmsg"))
      add[kLgkm] = 1;
    break;
  default:
    break;
  }
  return add;
}

bool isMemory(const KernelInstruction &inst) {
  switch (inst.encoding) {
  case Encoding::Smem:
  case Encoding::Ds:
  case Encoding::Flat:
  case Encoding::Mubuf:
  case Encoding::Mtbuf:
    return true;
  default:
    return startsWith(inst.mnemonic, "s_sendmsg");
  }
}

bool isVectorMemory(const KernelInstruction &inst) {
  return inst.encoding == Encoding::Flat || inst.encoding == Encoding::Mubuf ||
         inst.encoding == Encoding::Mtbuf;
}

/// Register ranges in two files: scalar by encoding number, vector unified
/// (AGPRs after accum_offset), the vector file offset by 1 << 16.
constexpr uint32_t kVectorBase = 1u << 16;

bool overlaps(const std::vector<std::pair<uint32_t, uint32_t>> &a,
              const std::vector<std::pair<uint32_t, uint32_t>> &b) {
  for (const auto &x : a)
    for (const auto &y : b)
      if (x.first < y.second && y.first < x.second)
        return true;
  return false;
}

} // namespace

EquivalenceProver::EquivalenceProver(const KernelCode &code, uint32_t wavesPerWorkgroup)
    : code_(code), wavesPerWorkgroup_(wavesPerWorkgroup) {
  analyse();
}

void EquivalenceProver::analyse() {
  const std::vector<KernelInstruction> &code = code_.instructions;
  const size_t n = code.size();
  cfg_ = buildCfg(code_);
  if (!cfg_.complete)
    return;

  // Each instruction's registers, as the emulator decodes them (the same
  // MC decoding, one emulator Instruction per KernelInstruction).
  Result<std::shared_ptr<const emu::LoadedCodeObject>> loaded =
      emu::LoadedCodeObject::load(code_.hsaco.data(), code_.hsaco.size());
  const emu::KernelProgram *program =
      loaded.ok() ? loaded.value()->findKernel(code_.kernelName) : nullptr;
  if (program && program->instructions.size() == n) {
    const unsigned accumOffset = program->descriptor.accumOffset();
    registers_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const emu::Instruction &inst = program->instructions[i];
      auto add = [&](const emu::Operand &op, std::vector<std::pair<uint32_t, uint32_t>> &out,
                     bool def) {
        uint32_t first = 0;
        switch (op.kind) {
        case emu::Operand::Kind::Scalar:
          first = op.index;
          if (op.index >= emu::sreg::kUserSgprs)
            (def ? registers_[i].specialDef : registers_[i].specialSrc) = true;
          break;
        case emu::Operand::Kind::Vgpr:
          first = kVectorBase + op.index;
          break;
        case emu::Operand::Kind::Agpr:
          first = kVectorBase + accumOffset + op.index;
          break;
        case emu::Operand::Kind::Imm:
        case emu::Operand::Kind::None:
          return;
        default: // SCC, VCCZ, EXECZ
          (def ? registers_[i].specialDef : registers_[i].specialSrc) = true;
          return;
        }
        out.push_back({first, first + std::max<uint32_t>(1, op.count)});
      };
      for (unsigned d = 0; d < inst.numDefs; ++d)
        add(inst.defs[d], registers_[i].defs, true);
      for (unsigned r = 0; r < inst.numSrcs; ++r)
        add(inst.srcs[r], registers_[i].srcs, false);
    }
  }

  // Reachability and the counters' upper bounds, one forward pass to a
  // fixed point (joins take the maximum; every bound is capped at its
  // counter's width, so the iteration ends).
  // The possibly outstanding memory ops are a second data flow of the same
  // shape: union at joins, a wait with a count of 0 retires every op of
  // that counter (a nonzero count retires none: an upper bound).
  reachable_.assign(n, false);
  before_.assign(n, Counters{});
  pendingBefore_.assign(n, {});
  std::deque<size_t> work{0};
  reachable_[0] = true;
  while (!work.empty()) {
    const size_t i = work.front();
    work.pop_front();
    const KernelInstruction &inst = code[i];
    Counters after = before_[i];
    std::set<size_t> pending(pendingBefore_[i].begin(), pendingBefore_[i].end());
    if (inst.mnemonic == "s_waitcnt") {
      const std::array<uint8_t, 3> wait = waitCounts(inst.words[0]);
      for (size_t c = 0; c < 3; ++c)
        after[c] = std::min(after[c], wait[c]);
      for (auto it = pending.begin(); it != pending.end();) {
        const std::array<uint8_t, 3> counts = issues(code[*it]);
        const bool retired = (!counts[kVm] || wait[kVm] == 0) &&
                             (!counts[kExp] || wait[kExp] == 0) &&
                             (!counts[kLgkm] || wait[kLgkm] == 0);
        it = retired ? pending.erase(it) : std::next(it);
      }
    }
    const std::array<uint8_t, 3> add = issues(inst);
    for (size_t c = 0; c < 3; ++c)
      after[c] = uint8_t(std::min<unsigned>(kCounterMax[c], unsigned(after[c]) + add[c]));
    if (isMemory(inst))
      pending.insert(i);
    for (size_t next : cfg_.successors[i]) {
      Counters joined = before_[next];
      for (size_t c = 0; c < 3; ++c)
        joined[c] = std::max(joined[c], after[c]);
      std::set<size_t> union_(pendingBefore_[next].begin(), pendingBefore_[next].end());
      union_.insert(pending.begin(), pending.end());
      if (!reachable_[next] || joined != before_[next] ||
          union_.size() != pendingBefore_[next].size()) {
        reachable_[next] = true;
        before_[next] = joined;
        pendingBefore_[next].assign(union_.begin(), union_.end());
        work.push_back(next);
      }
    }
  }
}

bool EquivalenceProver::waitCoveredBeforeUse(size_t index) const {
  const std::vector<KernelInstruction> &code = code_.instructions;
  if (!cfg_.complete || registers_.size() != code.size() || !reachable_[index])
    return false;
  const std::array<uint8_t, 3> wait = waitCounts(code[index].words[0]);
  // The ops this wait may hold the wave for: those of a counter it
  // restricts.
  std::vector<size_t> held;
  bool scalarLoad = false, vectorHeld = false;
  for (size_t op : pendingBefore_[index]) {
    const std::array<uint8_t, 3> counts = issues(code[op]);
    if ((counts[kVm] && wait[kVm] < kCounterMax[kVm]) ||
        (counts[kExp] && wait[kExp] < kCounterMax[kExp]) ||
        (counts[kLgkm] && wait[kLgkm] < kCounterMax[kLgkm])) {
      held.push_back(op);
      scalarLoad |= code[op].encoding == Encoding::Smem;
      vectorHeld |= isVectorMemory(code[op]);
    }
  }
  std::vector<std::pair<uint32_t, uint32_t>> written, touched;
  for (size_t op : held) {
    if (registers_[op].specialDef || registers_[op].specialSrc)
      return false;
    written.insert(written.end(), registers_[op].defs.begin(), registers_[op].defs.end());
    // LDS and scalar ops read their registers when they issue; a vector
    // memory store may read its data later (EXP_CNT on GCN), so its
    // sources must not be overwritten either.
    if (isVectorMemory(code[op]))
      touched.insert(touched.end(), registers_[op].srcs.begin(), registers_[op].srcs.end());
  }
  touched.insert(touched.end(), written.begin(), written.end());
  auto covers = [&](const KernelInstruction &inst) {
    if (inst.mnemonic != "s_waitcnt")
      return false;
    const std::array<uint8_t, 3> next = waitCounts(inst.words[0]);
    return next[kVm] <= wait[kVm] && next[kExp] <= wait[kExp] && next[kLgkm] <= wait[kLgkm] &&
           (!scalarLoad || next[kLgkm] == 0);
  };
  std::vector<bool> seen(code.size(), false);
  std::deque<size_t> work(cfg_.successors[index].begin(), cfg_.successors[index].end());
  while (!work.empty()) {
    const size_t j = work.front();
    work.pop_front();
    if (seen[j])
      continue;
    seen[j] = true;
    const KernelInstruction &inst = code[j];
    if (covers(inst))
      continue;
    const std::string &m = inst.mnemonic;
    if (m == "s_barrier" || startsWith(m, "s_endpgm") || startsWith(m, "s_sendmsg") ||
        (vectorHeld && isVectorMemory(inst)) || overlaps(registers_[j].srcs, written) ||
        overlaps(registers_[j].defs, touched))
      return false;
    work.insert(work.end(), cfg_.successors[j].begin(), cfg_.successors[j].end());
  }
  return true;
}

std::string EquivalenceProver::prove(const Mutation &mutation) const {
  if (mutation.sameDecoding)
    return "same decoding";
  if (cfg_.complete && !reachable_[mutation.index])
    return "unreachable";
  const std::vector<KernelInstruction> &code = code_.instructions;
  const KernelInstruction &inst = code[mutation.index];
  if (mutation.cls == MutationClass::Waitcnt) {
    const std::array<uint8_t, 3> wait = waitCounts(inst.words[0]);
    if (cfg_.complete) {
      const Counters &bound = before_[mutation.index];
      if (bound[kVm] <= wait[kVm] && bound[kExp] <= wait[kExp] && bound[kLgkm] <= wait[kLgkm])
        return "nothing outstanding";
    }
    if (waitCoveredBeforeUse(mutation.index))
      return "covered before any use";
  }
  if (mutation.cls == MutationClass::Barrier && wavesPerWorkgroup_ == 1)
    return "one-wave workgroups";
  return proveByOperands(mutation);
}

namespace {

/// The operands of a printed instruction: "v_max3_f32 v1, |v2|, v3, v3"
/// -> {"v1", "|v2|", "v3", "v3"} (text after the mnemonic, split at ", ").
std::vector<std::string> operandsOf(const std::string &text) {
  std::vector<std::string> out;
  const size_t space = text.find(' ');
  if (space == std::string::npos)
    return out;
  std::string rest = text.substr(space + 1);
  for (size_t at = 0; at <= rest.size();) {
    const size_t comma = rest.find(", ", at);
    out.push_back(rest.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos)
      break;
    at = comma + 2;
  }
  return out;
}

/// A max3/min3 source: a register with its modifiers, from the printed
/// text ("v1", "|v1|", "-v1", "-|v1|").
struct Source {
  std::string reg;
  bool neg = false, abs = false, parsed = false;
};

Source parseSource(const std::string &text) {
  Source s;
  std::string t = text;
  if (!t.empty() && t[0] == '-')
    s.neg = true, t.erase(0, 1);
  if (t.size() > 2 && t.front() == '|' && t.back() == '|')
    s.abs = true, t = t.substr(1, t.size() - 2);
  s.parsed = !t.empty() && (t[0] == 'v' || t[0] == 's') &&
             t.find_first_not_of("0123456789", 1) == std::string::npos;
  s.reg = t;
  return s;
}

/// Whether `later` can never be the result of a max (min) because `earlier`
/// is at least (at most) as large for every value of their register:
/// -|x| <= x, -x <= |x|. A NaN register makes both NaN, and the earlier one
/// is returned first, so the result's bits do not change either.
bool dominates(const Source &earlier, const Source &later, bool max) {
  if (!earlier.parsed || !later.parsed || earlier.reg != later.reg)
    return false;
  if (earlier.neg == later.neg && earlier.abs == later.abs)
    return true;
  const bool top = max ? (earlier.abs && !earlier.neg) : (earlier.abs && earlier.neg);
  const bool bottom = max ? (later.abs && later.neg) : (later.abs && !later.neg);
  return top || (bottom && !earlier.abs);
}

/// The sources of a max3/min3 that can decide its result, in order: each one
/// no earlier source dominates.
std::vector<std::string> deciding(const std::vector<std::string> &sources, bool max, bool floats) {
  std::vector<std::string> out;
  for (size_t i = 0; i < sources.size(); ++i) {
    bool dominated = false;
    for (size_t j = 0; j < i && !dominated; ++j)
      dominated = sources[j] == sources[i] ||
                  (floats && dominates(parseSource(sources[j]), parseSource(sources[i]), max));
    if (!dominated)
      out.push_back(sources[i]);
  }
  return out;
}

bool isMax3Min3(const std::string &mnemonic) {
  static const char *const kOps[] = {"v_max3_f32",     "v_max3_i32",    "v_max3_u32",
                                     "v_min3_f32",     "v_min3_i32",    "v_min3_u32",
                                     "v_maximum3_f32", "v_minimum3_f32"};
  for (const char *op : kOps)
    if (mnemonic == op || mnemonic == std::string(op) + "_e64")
      return true;
  return false;
}

/// The operand of an instruction whose low bits alone it reads.
struct ReadBits {
  const char *mnemonic, *source;
  uint32_t mask;
};
constexpr ReadBits kReadBits[] = {
    {"v_lshlrev_b32", "src0", 31},  {"v_lshrrev_b32", "src0", 31},  {"v_ashrrev_i32", "src0", 31},
    {"v_lshlrev_b16", "src0", 15},  {"v_lshrrev_b16", "src0", 15},  {"v_ashrrev_i16", "src0", 15},
    {"v_lshlrev_b64", "src0", 63},  {"v_lshrrev_b64", "src0", 63},  {"v_ashrrev_i64", "src0", 63},
    {"v_lshl_add_u32", "src1", 31}, {"v_lshl_or_b32", "src1", 31},  {"v_add_lshl_u32", "src2", 31},
    {"v_alignbit_b32", "src2", 31}, {"v_alignbyte_b32", "src2", 3}, {"v_bfe_u32", "src1", 31},
    {"v_bfe_u32", "src2", 31},      {"v_bfe_i32", "src1", 31},      {"v_bfe_i32", "src2", 31},
    {"v_lshl_add_u64", "src1", 7},  {"s_lshl_b32", "ssrc1", 31},    {"s_lshr_b32", "ssrc1", 31},
    {"s_ashr_i32", "ssrc1", 31},    {"s_lshl_b64", "ssrc1", 63},    {"s_lshr_b64", "ssrc1", 63},
    {"s_ashr_i64", "ssrc1", 63},
};

/// An integer inline constant's value (128..192: 0..64, 193..208: -1..-16).
bool inlineInteger(uint32_t code, uint32_t &value) {
  if (code >= 128 && code <= 192)
    value = code - 128;
  else if (code >= 193 && code <= 208)
    value = uint32_t(-int32_t(code - 192));
  else
    return false;
  return true;
}

/// "v_lshlrev_b32_e32" -> "v_lshlrev_b32"; SDWA and DPP forms have none.
std::string plainMnemonic(const std::string &mnemonic) {
  for (const char *suffix : {"_e32", "_e64"})
    if (mnemonic.size() > 4 && mnemonic.compare(mnemonic.size() - 4, 4, suffix) == 0)
      return mnemonic.substr(0, mnemonic.size() - 4);
  return mnemonic;
}

} // namespace

std::string EquivalenceProver::proveByOperands(const Mutation &mutation) const {
  const KernelInstruction &inst = code_.instructions[mutation.index];
  const std::string what = mutation.what.substr(0, mutation.what.find(' '));
  if (mutation.cls == MutationClass::Modifier && inst.encoding == Encoding::Sdwa) {
    const uint32_t w1 = mutation.words[1];
    const bool vopc = (inst.words[0] >> 25) == 0x3e;
    if (!vopc && what == "dst_unused" && ((w1 >> 8) & 7) == 6)
      return "SDWA select of nothing";
    if ((what == "src0_sext" && ((w1 >> 16) & 7) == 6) ||
        (what == "src1_sext" && ((w1 >> 24) & 7) == 6))
      return "SDWA select of nothing";
  }
  if (mutation.cls == MutationClass::Modifier &&
      (what == "abs" || what == "neg" || what == "src0_neg" || what == "src0_abs" ||
       what == "src1_neg" || what == "src1_abs") &&
      (startsWith(inst.mnemonic, "v_cmp_o_") || startsWith(inst.mnemonic, "v_cmp_u_") ||
       startsWith(inst.mnemonic, "v_cmpx_o_") || startsWith(inst.mnemonic, "v_cmpx_u_")) &&
      inst.opcodeName == mutation.mutatedOpcodeName)
    return "sign of a NaN test";
  if (mutation.cls == MutationClass::Modifier && inst.opcodeName == mutation.mutatedOpcodeName &&
      startsWith(inst.mnemonic, "v_cvt_scalef32_")) {
    // Rule 10: the scale source of a scaled convert is read for its
    // exponent field only (bits 30:23), so its sign modifiers change nothing.
    const unsigned changed = mutation.before ^ mutation.after;
    const size_t sources = operandsOf(inst.text).size() - 1; // after vdst
    if ((mutation.field == "abs" || mutation.field == "neg") && sources >= 2 &&
        changed == (1u << (sources - 1)))
      return "sign of a scale source";
    // Rule 11: op_sel selects a 16-bit half of a 16-bit source; the f32
    // sources of v_cvt_scalef32_pk_*_f32 have none (op_sel[3:2] pick the
    // destination's byte or half, and are not covered).
    if (mutation.field == "op_sel" && endsWith(inst.mnemonic, "_f32") &&
        startsWith(inst.mnemonic, "v_cvt_scalef32_pk_") && (changed & ~3u) == 0)
      return "op_sel of a 32-bit source";
  }
  if (mutation.cls == MutationClass::Opcode && startsWith(inst.text, "v_mov_b32_e32 v") &&
      endsWith(inst.text, ", 0")) {
    // Rule 12: v_mov_b32 v, 0 turned into a VOP1 op that maps the bits 0
    // to the bits 0 (+0 converts, rounds, square-roots and reverses to +0).
    static const char *const kZeroToZero[] = {
        "v_cvt_f32_i32",   "v_cvt_f32_u32",   "v_cvt_i32_f32",   "v_cvt_u32_f32",
        "v_cvt_rpi_i32_f32", "v_cvt_flr_i32_f32", "v_trunc_f32",   "v_ceil_f32",
        "v_floor_f32",     "v_rndne_f32",     "v_sqrt_f32",      "v_fract_f32",
        "v_frexp_mant_f32", "v_cvt_f32_ubyte0", "v_cvt_f32_ubyte1", "v_cvt_f32_ubyte2",
        "v_cvt_f32_ubyte3", "v_cvt_f32_bf16",  "v_cvt_f32_f16",   "v_bfrev_b32"};
    const std::string operands = inst.text.substr(inst.text.find(' '));
    for (const char *op : kZeroToZero)
      if (mutation.mutatedText == std::string(op) + "_e32" + operands)
        return "an op that maps 0 to 0";
  }
  if ((mutation.cls == MutationClass::Register || mutation.cls == MutationClass::Modifier) &&
      isMax3Min3(inst.mnemonic) && inst.opcodeName == mutation.mutatedOpcodeName) {
    const std::vector<std::string> before = operandsOf(inst.text);
    const std::vector<std::string> after = operandsOf(mutation.mutatedText);
    const bool max = inst.mnemonic.find("max") != std::string::npos;
    const bool floats = inst.mnemonic.find("_f32") != std::string::npos;
    if (before.size() == 4 && after.size() == 4 && before[0] == after[0] &&
        deciding({before.begin() + 1, before.end()}, max, floats) ==
            deciding({after.begin() + 1, after.end()}, max, floats))
      return "max3/min3 operand that cannot decide";
  }
  if (mutation.cls == MutationClass::Immediate) {
    // Which source the mutation changed, and its values: an inline
    // constant's code, or the literal (the source whose code is 255).
    std::string source = mutation.field;
    uint32_t before = mutation.before, after = mutation.after;
    bool integers = true;
    if (mutation.field == "literal") {
      source.clear();
      for (const Field &f : fieldsOf(inst.encoding, inst.words, inst.size, inst.mnemonic))
        if (f.kind == FieldKind::Source && f.get(inst.words) == 255)
          source = f.name;
    } else {
      integers = inlineInteger(mutation.before, before) && inlineInteger(mutation.after, after);
    }
    const std::string plain = plainMnemonic(inst.mnemonic);
    for (const ReadBits &r : kReadBits)
      if (integers && plain == r.mnemonic && source == r.source &&
          (before & r.mask) == (after & r.mask))
        return "constant bits not read";
  }
  return "";
}

} // namespace mxf::mutation
