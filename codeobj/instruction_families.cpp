//===- instruction_families.cpp - gfx950 instructions by family -----------===//

#include "codeobj/instruction_families.h"

#include "llvm/ADT/STLExtras.h"

#include <numeric>

namespace mxf::codeobj {

namespace {

bool startsWithAny(llvm::StringRef text, std::initializer_list<llvm::StringRef> prefixes) {
  return llvm::any_of(prefixes, [&](llvm::StringRef prefix) { return text.starts_with(prefix); });
}

/// `name` exactly, or `name` followed by a '_' suffix (s_waitcnt_vscnt,
/// s_endpgm_saved, s_setpc_b64), but not a longer word (s_nop vs s_nopx).
bool isWordOrSuffixed(llvm::StringRef mnemonic, llvm::StringRef name) {
  return mnemonic == name || (mnemonic.starts_with(name) && mnemonic[name.size()] == '_');
}

/// The register MCRegisterInfo names for s[0:3], where the private segment
/// buffer descriptor sits when it is enabled (the first user SGPRs, §D).
constexpr llvm::StringRef kPrivateSegmentBufferReg = "SGPR0_SGPR1_SGPR2_SGPR3";

} // namespace

llvm::StringRef familyName(InstructionFamily family) {
  switch (family) {
  case InstructionFamily::Salu:
    return "salu";
  case InstructionFamily::Valu:
    return "valu";
  case InstructionFamily::Vmem:
    return "vmem";
  case InstructionFamily::Smem:
    return "smem";
  case InstructionFamily::Lds:
    return "lds";
  case InstructionFamily::Mfma:
    return "mfma";
  case InstructionFamily::CvtScaled:
    return "cvt-scaled";
  case InstructionFamily::Branch:
    return "branch";
  case InstructionFamily::Scratch:
    return "scratch";
  case InstructionFamily::Other:
    return "other";
  }
  return "other";
}

const std::array<InstructionFamily, kNumInstructionFamilies> &allFamilies() {
  static const std::array<InstructionFamily, kNumInstructionFamilies> families = {
      InstructionFamily::Salu,      InstructionFamily::Valu,   InstructionFamily::Vmem,
      InstructionFamily::Smem,      InstructionFamily::Lds,    InstructionFamily::Mfma,
      InstructionFamily::CvtScaled, InstructionFamily::Branch, InstructionFamily::Scratch,
      InstructionFamily::Other};
  return families;
}

InstructionFamily classifyMnemonic(llvm::StringRef m) {
  if (startsWithAny(m, {"v_mfma", "v_smfmac"}))
    return InstructionFamily::Mfma;
  if (m.starts_with("v_cvt_scalef32"))
    return InstructionFamily::CvtScaled;
  if (startsWithAny(m, {"scratch_", "s_scratch_"}))
    return InstructionFamily::Scratch;
  if (m.starts_with("ds_"))
    return InstructionFamily::Lds;
  if (startsWithAny(m, {"global_", "buffer_", "tbuffer_", "flat_", "image_"}))
    return InstructionFamily::Vmem;
  if (startsWithAny(m, {"s_load_", "s_buffer_load_", "s_store_", "s_buffer_store_", "s_atomic_",
                        "s_buffer_atomic_", "s_dcache_"}) ||
      m == "s_memtime" || m == "s_memrealtime")
    return InstructionFamily::Smem;
  if (m == "s_branch" || startsWithAny(m, {"s_cbranch", "s_setpc", "s_swappc", "s_call"}))
    return InstructionFamily::Branch;
  for (llvm::StringRef name :
       {"s_waitcnt", "s_nop", "s_endpgm", "s_barrier", "s_sleep", "s_sethalt", "s_trap",
        "s_setprio", "s_sendmsg", "s_sendmsghalt", "s_icache_inv", "s_ttracedata", "s_code_end"})
    if (isWordOrSuffixed(m, name))
      return InstructionFamily::Other;
  if (m.starts_with("s_"))
    return InstructionFamily::Salu;
  if (m.starts_with("v_"))
    return InstructionFamily::Valu;
  return InstructionFamily::Other;
}

InstructionFamily classifyInstruction(const DecodedInstruction &instruction,
                                      bool privateSegmentBufferEnabled) {
  InstructionFamily family = classifyMnemonic(instruction.mnemonic);
  if (family == InstructionFamily::Vmem && privateSegmentBufferEnabled &&
      llvm::StringRef(instruction.mnemonic).starts_with("buffer_") &&
      llvm::any_of(instruction.operands, [](const DecodedOperand &operand) {
        return operand.kind == DecodedOperand::Kind::Register &&
               operand.regName == kPrivateSegmentBufferReg;
      }))
    return InstructionFamily::Scratch;
  return family;
}

size_t FamilyHistogram::total() const {
  return std::accumulate(counts.begin(), counts.end(), size_t{0});
}

} // namespace mxf::codeobj
