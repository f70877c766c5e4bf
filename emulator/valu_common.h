//===- valu_common.h - Shared machinery of the vector ALU files --*- C++ -*-===//
//
// Vector ALU instructions come in VOP1/VOP2/VOPC (32-bit), VOP3, SDWA and
// DPP forms. The helpers here read a source with the form's modifiers (SDWA
// selects, DPP lane moves, abs/neg for float types), and write a result with
// the form's destination rules (EXEC, SDWA dst_sel/dst_unused, DPP row and
// bank masks, VOP3 omod/clamp for f32), so that each instruction's semantics
// is one per-lane expression.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_EMULATOR_VALU_COMMON_H
#define MXFORGE_EMULATOR_VALU_COMMON_H

#include "emulator/operands.h"

namespace mxf::emu {

enum class ValueType : uint8_t { Int, F32 };

/// Source `i` per lane (dword 0), with SDWA select, DPP lane move (source 0)
/// and, for F32, the abs/neg modifiers.
void valuSource(const Wave &wave, const Instruction &inst, unsigned i, ValueType type,
                Lanes32 &out);

/// Lanes a VALU instruction writes: EXEC, narrowed by DPP's row/bank masks
/// and invalid DPP source lanes (when bound_ctrl is off).
uint64_t valuWriteMask(const Wave &wave, const Instruction &inst);

/// Writes `result` to destination 0 on `mask`, with SDWA destination rules
/// and, for F32, the omod/clamp output modifiers.
void valuWrite(Wave &wave, const Instruction &inst, Lanes32 &result, ValueType type,
               uint64_t mask);

/// Fails when the instruction carries an integer clamp the handler does not
/// model (so it can never be silently ignored).
Status rejectClamp(const Instruction &inst);

/// One-result VALU op of `numSrcs` 32-bit sources: D = f(S0, S1, S2) per lane.
template <typename F>
Status valuOp(Wave &wave, const Instruction &inst, unsigned numSrcs, ValueType type, F f) {
  if (type == ValueType::Int && inst.mods.clamp)
    return Status::failure("clamp is not modelled for this instruction");
  Lanes32 s[3], d;
  for (unsigned i = 0; i < numSrcs; ++i)
    valuSource(wave, inst, i, type, s[i]);
  const uint64_t mask = valuWriteMask(wave, inst);
  for (unsigned l = 0; l < kWaveSize; ++l)
    if (laneActive(mask, l))
      d[l] = f(s[0][l], s[1][l], s[2][l]);
  valuWrite(wave, inst, d, type, mask);
  return Status::success();
}

} // namespace mxf::emu

#endif // MXFORGE_EMULATOR_VALU_COMMON_H
