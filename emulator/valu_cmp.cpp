//===- valu_cmp.cpp - Vector compares (VOPC, VOP3 forms) ------------------===//
//
// v_cmp_<cond>_<type> writes one bit per lane to VCC (32-bit and SDWA forms)
// or to an SGPR pair (VOP3 form); inactive lanes get 0. v_cmpx_* also writes
// EXEC. Float conditions follow IEEE: the "n" forms (nge, nlt, ...) are true
// for unordered operands, o/u test orderedness, f/tru are constant.
//
//===----------------------------------------------------------------------===//

#include "emulator/opcode_table.h"
#include "emulator/valu_common.h"

#include <cmath>
#include <string>
#include <vector>

namespace mxf::emu {

namespace {

using S = Status;

enum Cond { F, LT, EQ, LE, GT, NE, GE, T, O, U, NGE, NLG, NGT, NLE, NEQ, NLT };

template <typename X> bool compare(Cond c, X a, X b) {
  switch (c) {
  case F: return false;
  case LT: return a < b;
  case EQ: return a == b;
  case LE: return a <= b;
  case GT: return a > b;
  case NE: return a != b; // float: "lg" (ordered, not equal) is handled below
  case GE: return a >= b;
  case T: return true;
  default: return false;
  }
}

bool compareFloat(Cond c, double a, double b) {
  const bool unordered = std::isnan(a) || std::isnan(b);
  switch (c) {
  case O: return !unordered;
  case U: return unordered;
  case NE: return !unordered && a != b; // lg
  case NGE: return !(a >= b);
  case NLG: return unordered || a == b;
  case NGT: return !(a > b);
  case NLE: return !(a <= b);
  case NEQ: return !(a == b);
  case NLT: return !(a < b);
  default: return compare(c, a, b);
  }
}

void writeResult(Wave &w, const Instruction &in, uint64_t result, bool cmpx) {
  if (in.numDefs > 0)
    writeMask(w, in.dst(), result);
  else
    w.setVcc(result);
  if (cmpx)
    w.setExec(result);
}

enum class Kind { F32, I32, U32, I64, U64, F64, I16, U16, F16 };

template <Kind K, Cond C, bool X> S vCmp(Wave &w, const Instruction &in) {
  const uint64_t exec = w.exec();
  uint64_t result = 0;
  if constexpr (K == Kind::I64 || K == Kind::U64 || K == Kind::F64) {
    Lanes64 a, b;
    readLanes64(w, in.src(0), a);
    readLanes64(w, in.src(1), b);
    for (unsigned l = 0; l < kWaveSize; ++l) {
      if (!laneActive(exec, l))
        continue;
      bool r;
      if (K == Kind::I64)
        r = compare(C, int64_t(a[l]), int64_t(b[l]));
      else if (K == Kind::U64)
        r = compare(C, a[l], b[l]);
      else
        r = compareFloat(C, asDouble(f64Mods(a[l], in.mods, 0)),
                         asDouble(f64Mods(b[l], in.mods, 1)));
      result |= uint64_t(r) << l;
    }
  } else {
    Lanes32 a, b;
    const ValueType type = K == Kind::F32 ? ValueType::F32 : ValueType::Int;
    valuSource(w, in, 0, type, a);
    valuSource(w, in, 1, type, b);
    for (unsigned l = 0; l < kWaveSize; ++l) {
      if (!laneActive(exec, l))
        continue;
      bool r;
      switch (K) {
      case Kind::F32: r = compareFloat(C, asFloat(a[l]), asFloat(b[l])); break;
      case Kind::I32: r = compare(C, int32_t(a[l]), int32_t(b[l])); break;
      case Kind::U32: r = compare(C, a[l], b[l]); break;
      case Kind::I16: r = compare(C, int16_t(a[l]), int16_t(b[l])); break;
      case Kind::U16: r = compare(C, uint16_t(a[l]), uint16_t(b[l])); break;
      default: r = false; break;
      }
      result |= uint64_t(r) << l;
    }
  }
  writeResult(w, in, result, X);
  return S::success();
}

/// v_cmp_class_f32: S1 is a mask of IEEE classes (ISA: bit 0 sNaN, 1 qNaN,
/// 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf).
template <bool X> S vCmpClassF32(Wave &w, const Instruction &in) {
  Lanes32 a, m;
  valuSource(w, in, 0, ValueType::F32, a);
  valuSource(w, in, 1, ValueType::Int, m);
  const uint64_t exec = w.exec();
  uint64_t result = 0;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(exec, l))
      continue;
    const float x = asFloat(a[l]);
    const bool neg = std::signbit(x);
    unsigned cls;
    switch (std::fpclassify(x)) {
    case FP_NAN: cls = (a[l] & 0x00400000u) ? 1 : 0; break;
    case FP_INFINITE: cls = neg ? 2 : 9; break;
    case FP_NORMAL: cls = neg ? 3 : 8; break;
    case FP_SUBNORMAL: cls = neg ? 4 : 7; break;
    default: cls = neg ? 5 : 6; break;
    }
    result |= uint64_t((m[l] >> cls) & 1) << l;
  }
  writeResult(w, in, result, X);
  return S::success();
}

} // namespace

void registerValuCmp(OpRegistry &r) {
  auto add = [&](const std::string &name, Handler h) { r.add(name, h); };
#define INT_CONDS(KIND, TYPE)                                                                  \
  for (bool x : {false, true}) {                                                               \
    const std::string p = x ? "v_cmpx_" : "v_cmp_";                                            \
    add(p + "f_" TYPE, x ? vCmp<KIND, F, true> : vCmp<KIND, F, false>);                        \
    add(p + "lt_" TYPE, x ? vCmp<KIND, LT, true> : vCmp<KIND, LT, false>);                     \
    add(p + "eq_" TYPE, x ? vCmp<KIND, EQ, true> : vCmp<KIND, EQ, false>);                     \
    add(p + "le_" TYPE, x ? vCmp<KIND, LE, true> : vCmp<KIND, LE, false>);                     \
    add(p + "gt_" TYPE, x ? vCmp<KIND, GT, true> : vCmp<KIND, GT, false>);                     \
    add(p + "ne_" TYPE, x ? vCmp<KIND, NE, true> : vCmp<KIND, NE, false>);                     \
    add(p + "ge_" TYPE, x ? vCmp<KIND, GE, true> : vCmp<KIND, GE, false>);                     \
    add(p + "t_" TYPE, x ? vCmp<KIND, T, true> : vCmp<KIND, T, false>);                        \
  }
  INT_CONDS(Kind::I32, "i32")
  INT_CONDS(Kind::U32, "u32")
  INT_CONDS(Kind::I64, "i64")
  INT_CONDS(Kind::U64, "u64")
  INT_CONDS(Kind::I16, "i16")
  INT_CONDS(Kind::U16, "u16")
#define FLOAT_CONDS(KIND, TYPE)                                                                \
  for (bool x : {false, true}) {                                                               \
    const std::string p = x ? "v_cmpx_" : "v_cmp_";                                            \
    add(p + "f_" TYPE, x ? vCmp<KIND, F, true> : vCmp<KIND, F, false>);                        \
    add(p + "lt_" TYPE, x ? vCmp<KIND, LT, true> : vCmp<KIND, LT, false>);                     \
    add(p + "eq_" TYPE, x ? vCmp<KIND, EQ, true> : vCmp<KIND, EQ, false>);                     \
    add(p + "le_" TYPE, x ? vCmp<KIND, LE, true> : vCmp<KIND, LE, false>);                     \
    add(p + "gt_" TYPE, x ? vCmp<KIND, GT, true> : vCmp<KIND, GT, false>);                     \
    add(p + "lg_" TYPE, x ? vCmp<KIND, NE, true> : vCmp<KIND, NE, false>);                     \
    add(p + "ge_" TYPE, x ? vCmp<KIND, GE, true> : vCmp<KIND, GE, false>);                     \
    add(p + "o_" TYPE, x ? vCmp<KIND, O, true> : vCmp<KIND, O, false>);                        \
    add(p + "u_" TYPE, x ? vCmp<KIND, U, true> : vCmp<KIND, U, false>);                        \
    add(p + "nge_" TYPE, x ? vCmp<KIND, NGE, true> : vCmp<KIND, NGE, false>);                  \
    add(p + "nlg_" TYPE, x ? vCmp<KIND, NLG, true> : vCmp<KIND, NLG, false>);                  \
    add(p + "ngt_" TYPE, x ? vCmp<KIND, NGT, true> : vCmp<KIND, NGT, false>);                  \
    add(p + "nle_" TYPE, x ? vCmp<KIND, NLE, true> : vCmp<KIND, NLE, false>);                  \
    add(p + "neq_" TYPE, x ? vCmp<KIND, NEQ, true> : vCmp<KIND, NEQ, false>);                  \
    add(p + "nlt_" TYPE, x ? vCmp<KIND, NLT, true> : vCmp<KIND, NLT, false>);                  \
    add(p + "tru_" TYPE, x ? vCmp<KIND, T, true> : vCmp<KIND, T, false>);                      \
  }
  FLOAT_CONDS(Kind::F32, "f32")
  FLOAT_CONDS(Kind::F64, "f64")
  r.add("v_cmp_class_f32", vCmpClassF32<false>);
  r.add("v_cmpx_class_f32", vCmpClassF32<true>);
}

} // namespace mxf::emu
