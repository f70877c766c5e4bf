//===- decode_guards.h - Encodings LLVM 22's decoder cannot take -*- C++ -*-===//
//
// LLVM 22's AMDGPU disassembler and instruction printer crash on some invalid
// encodings instead of failing (found by the fuzz tests here and by LLVM's
// own fuzzing, fixed upstream after 22). The emulator and `mxforge inspect`
// decode whatever a code object holds, so those encodings are recognised
// here, from the raw words, and rejected with a message before LLVM sees
// them. Valid gfx950 code never trips these checks (the tests compare with
// llvm-objdump on compiler output).
//
// The third guard against these bugs, the zero padding after the code that
// keeps a cut-off literal from reaching LLVM's broken error path, is in
// Disassembler::disassemble.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_CODEOBJ_DECODE_GUARDS_H
#define MXFORGE_CODEOBJ_DECODE_GUARDS_H

#include "support/status.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace llvm {
class MCInst;
class MCInstrInfo;
class MCRegisterInfo;
class MCSubtargetInfo;
} // namespace llvm

namespace mxf::codeobj {

/// Before decoding the instruction that starts `bytes`: an f8f6f4 MFMA
/// (VOP3P-MAI opcode 45 or 46, alone or after v_mfma_ld_scale_b32) whose A
/// or B source is not a VGPR/AGPR makes the decoder crash.
Status checkBeforeDecode(llvm::ArrayRef<uint8_t> bytes);

/// After decoding, before printing: an SDWA instruction with an out-of-range
/// select (7) or dst_unused (3) reaches llvm_unreachable in the printer; and
/// a register outside its operand's register class (which the printer only
/// annotates) is an invalid instruction all the same.
Status checkBeforePrint(const llvm::MCInst &inst, llvm::StringRef opcodeName,
                        llvm::ArrayRef<uint8_t> bytes, const llvm::MCInstrInfo &instrInfo,
                        const llvm::MCRegisterInfo &registers,
                        const llvm::MCSubtargetInfo &subtarget);

} // namespace mxf::codeobj

#endif // MXFORGE_CODEOBJ_DECODE_GUARDS_H
