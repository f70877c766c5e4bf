//===- sopp.cpp - Program control: branches, barrier, waits, end, no-ops --===//
//
// The emulator performs every memory access at issue, but s_waitcnt is not a
// no-op: it retires, in the wave's memory counters (hazards.h), the loads and
// LDS operations it guarantees complete, and only then may their registers be
// read (or, for LDS, other waves rely on them after a barrier). s_barrier
// marks the wave as waiting; the executor releases the barrier. On gfx950 the
// barrier does not wait for memory (LLVM places explicit waits before it).
// Timing-only instructions (s_nop, s_setprio, s_sleep, cache controls) are
// functional no-ops, so the emulator cannot detect a missing s_nop
// (docs/emulator.md, "Hazard model").
//
//===----------------------------------------------------------------------===//

#include "emulator/opcode_table.h"
#include "emulator/operands.h"

namespace mxf::emu {

namespace {

using S = Status;

S noOp(Wave &, const Instruction &) { return S::success(); }

S sEndpgm(Wave &w, const Instruction &) {
  w.ended = true;
  return S::success();
}

/// s_waitcnt simm16: vmcnt and lgkmcnt (expcnt counts exports and GDS,
/// which compute kernels on gfx950 do not issue).
S sWaitcnt(Wave &w, const Instruction &in) {
  const WaitcntFields fields = decodeWaitcnt(uint16_t(in.words[0] & 0xffff));
  w.counters.wait(fields.vmcnt, fields.lgkmcnt);
  if (w.timelineCosts)
    w.timeline.wait(fields.vmcnt, fields.lgkmcnt);
  return S::success();
}

S sBarrier(Wave &w, const Instruction &) {
  w.atBarrier = true;
  return S::success();
}

S sBranch(Wave &w, const Instruction &in) {
  w.nextPc = uint32_t(in.branchTarget);
  return S::success();
}

template <int Cond> S sCbranch(Wave &w, const Instruction &in) {
  bool taken;
  switch (Cond) {
  case 0: taken = !w.scc; break;
  case 1: taken = w.scc; break;
  case 2: taken = w.vcc() == 0; break;
  case 3: taken = w.vcc() != 0; break;
  case 4: taken = w.exec() == 0; break;
  default: taken = w.exec() != 0; break;
  }
  if (taken)
    w.nextPc = uint32_t(in.branchTarget);
  return S::success();
}

S unsupported(Wave &, const Instruction &in) {
  return S::failure("'" + in.text + "' stops the wave on hardware (trap, halt or message) and "
                    "is not modelled");
}

} // namespace

void registerSopp(OpRegistry &r) {
  r.add("s_endpgm", sEndpgm);
  r.add("s_barrier", sBarrier);
  r.add("s_waitcnt", sWaitcnt);
  r.add("s_branch", sBranch);
  r.add("s_cbranch_scc0", sCbranch<0>);
  r.add("s_cbranch_scc1", sCbranch<1>);
  r.add("s_cbranch_vccz", sCbranch<2>);
  r.add("s_cbranch_vccnz", sCbranch<3>);
  r.add("s_cbranch_execz", sCbranch<4>);
  r.add("s_cbranch_execnz", sCbranch<5>);
  for (const char *name : {"s_nop", "s_setprio", "s_sleep", "s_icache_inv",
                           "s_incperflevel", "s_decperflevel", "s_ttracedata", "s_dcache_inv",
                           "s_dcache_wb", "s_dcache_inv_vol", "s_dcache_wb_vol", "s_wakeup",
                           "s_setkill", "s_buffer_wbinvl1", "buffer_wbinvl1",
                           "buffer_wbinvl1_vol", "buffer_inv", "buffer_wbl2"})
    r.add(name, noOp);
  for (const char *name : {"s_trap", "s_sethalt", "s_sendmsg", "s_sendmsghalt", "s_rfe_b64",
                           "s_setpc_b64", "s_swappc_b64", "s_set_gpr_idx_on",
                           "s_set_gpr_idx_off", "s_set_gpr_idx_mode"})
    r.add(name, unsupported);
}

} // namespace mxf::emu
