//===- instruction_families.h - gfx950 instructions by family ----*- C++ -*-===//
//
// Groups decoded instructions into the families `mxforge inspect` counts and
// the emulator's semantics are organised by. The rules, applied in order
// (docs/inspect.md lists them with examples):
//   mfma        v_mfma*, v_smfmac*
//   cvt-scaled  v_cvt_scalef32*
//   scratch     scratch_*, s_scratch_*, and buffer_* ops whose resource is
//               the private segment buffer s[0:3] (when the kernel enables it)
//   lds         ds_*
//   vmem        global_*, buffer_*, tbuffer_*, flat_*, image_*
//   smem        s_load_*, s_buffer_load_*, s_store_*, s_buffer_store_*,
//               s_atomic_*, s_buffer_atomic_*, s_dcache_*, s_memtime,
//               s_memrealtime
//   branch      s_branch, s_cbranch*, s_setpc*, s_swappc*, s_call*
//   other       s_waitcnt*, s_nop, s_endpgm*, s_barrier, s_sleep, s_sethalt,
//               s_trap, s_setprio, s_sendmsg*, s_icache_inv, s_ttracedata*,
//               s_code_end, and anything that is neither s_* nor v_*
//   salu        every other s_*
//   valu        every other v_*
// Only the mnemonic is used (plus the resource register for buffer ops):
// flat_* may reach scratch through a flat address, which is not knowable
// statically, so it stays vmem.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_CODEOBJ_INSTRUCTION_FAMILIES_H
#define MXFORGE_CODEOBJ_INSTRUCTION_FAMILIES_H

#include "codeobj/disassembler.h"

#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstddef>

namespace mxf::codeobj {

enum class InstructionFamily {
  Salu,
  Valu,
  Vmem,
  Smem,
  Lds,
  Mfma,
  CvtScaled,
  Branch,
  Scratch,
  Other,
};
constexpr size_t kNumInstructionFamilies = 10;

/// "salu", "valu", "vmem", "smem", "lds", "mfma", "cvt-scaled", "branch",
/// "scratch", "other".
llvm::StringRef familyName(InstructionFamily family);

/// All families in the order above (the order inspect prints them in).
const std::array<InstructionFamily, kNumInstructionFamilies> &allFamilies();

/// The family of a mnemonic alone (buffer_* counts as vmem here).
InstructionFamily classifyMnemonic(llvm::StringRef mnemonic);

/// The family of a decoded instruction: classifyMnemonic, except that a
/// buffer_* access through the private segment buffer s[0:3] is scratch when
/// `privateSegmentBufferEnabled` (the descriptor's
/// enable_sgpr_private_segment_buffer: then s[0:3] holds that buffer).
InstructionFamily classifyInstruction(const DecodedInstruction &instruction,
                                      bool privateSegmentBufferEnabled);

/// Counts per family, indexed by the enum's value.
struct FamilyHistogram {
  std::array<size_t, kNumInstructionFamilies> counts{};
  size_t &operator[](InstructionFamily family) { return counts[static_cast<size_t>(family)]; }
  size_t operator[](InstructionFamily family) const { return counts[static_cast<size_t>(family)]; }
  size_t total() const;
};

} // namespace mxf::codeobj

#endif // MXFORGE_CODEOBJ_INSTRUCTION_FAMILIES_H
