//===- decode_guards.cpp - Encodings LLVM 22's decoder cannot take --------===//

#include "codeobj/decode_guards.h"

#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/Endian.h"

#include <string>

namespace mxf::codeobj {

namespace {

uint32_t word(llvm::ArrayRef<uint8_t> bytes, size_t index) {
  return llvm::support::endian::read32le(bytes.data() + 4 * index);
}

/// VOP3P-MAI: bits [31:23] of the first dword are 0b110100111 (0xD38...);
/// OP is bits [22:16] (GFX950_SEMANTICS.md §C9).
bool isMai(uint32_t dword0) { return (dword0 & 0xff800000u) == 0xd3800000u; }
unsigned maiOpcode(uint32_t dword0) { return (dword0 >> 16) & 0x7f; }
constexpr unsigned kMaiLdScale = 0x2c;        // v_mfma_ld_scale_b32, the scale word
constexpr unsigned kMaiF8F6F4_16x16x128 = 45; // v_mfma_f32_16x16x128_f8f6f4
constexpr unsigned kMaiF8F6F4_32x32x64 = 46;  // v_mfma_f32_32x32x64_f8f6f4

/// SRC0 is bits [40:32], SRC1 bits [49:41]; 256..511 name VGPRs or AGPRs.
Status checkF8F6F4Sources(llvm::ArrayRef<uint8_t> mai) {
  const uint64_t qword = uint64_t(word(mai, 0)) | uint64_t(word(mai, 1)) << 32;
  const unsigned src0 = (qword >> 32) & 0x1ff, src1 = (qword >> 41) & 0x1ff;
  if (src0 < 256 || src1 < 256)
    return Status::failure("an f8f6f4 MFMA whose A or B source is not a vector register");
  return Status::success();
}

/// The SDWA dword (the second): DST_SEL [10:8], DST_U [12:11] (VOP1/VOP2
/// only; VOPC keeps SDST there), SRC0_SEL [18:16], SRC1_SEL [26:24] (not
/// VOP1). Selects 0..6 are BYTE_0..3, WORD_0..1, DWORD; DST_U 0..2.
Status checkSdwa(llvm::ArrayRef<uint8_t> bytes) {
  if (bytes.size() < 8)
    return Status::failure("an SDWA instruction shorter than 8 bytes");
  const uint32_t base = word(bytes, 0), sdwa = word(bytes, 1);
  const bool isVopc = (base >> 25) == 0x3e, isVop1 = (base >> 25) == 0x3f;
  auto bad = [](const char *field, unsigned value) {
    return Status::failure("an SDWA instruction with " + std::string(field) + " " +
                           std::to_string(value) +
                           " (valid: 0..6 for selects, 0..2 for dst_unused)");
  };
  if (!isVopc && ((sdwa >> 8) & 7) > 6)
    return bad("dst_sel", (sdwa >> 8) & 7);
  if (!isVopc && ((sdwa >> 11) & 3) > 2)
    return bad("dst_unused", (sdwa >> 11) & 3);
  if (((sdwa >> 16) & 7) > 6)
    return bad("src0_sel", (sdwa >> 16) & 7);
  if (!isVop1 && ((sdwa >> 24) & 7) > 6)
    return bad("src1_sel", (sdwa >> 24) & 7);
  return Status::success();
}

} // namespace

Status checkBeforeDecode(llvm::ArrayRef<uint8_t> bytes) {
  if (bytes.size() < 8 || !isMai(word(bytes, 0)))
    return Status::success();
  const unsigned op = maiOpcode(word(bytes, 0));
  if (op == kMaiF8F6F4_16x16x128 || op == kMaiF8F6F4_32x32x64)
    return checkF8F6F4Sources(bytes);
  if (op == kMaiLdScale && bytes.size() >= 16 && isMai(word(bytes, 2))) {
    const unsigned scaled = maiOpcode(word(bytes, 2));
    if (scaled == kMaiF8F6F4_16x16x128 || scaled == kMaiF8F6F4_32x32x64)
      return checkF8F6F4Sources(bytes.drop_front(8));
  }
  return Status::success();
}

Status checkBeforePrint(const llvm::MCInst &inst, llvm::StringRef opcodeName,
                        llvm::ArrayRef<uint8_t> bytes, const llvm::MCInstrInfo &instrInfo,
                        const llvm::MCRegisterInfo &registers,
                        const llvm::MCSubtargetInfo &subtarget) {
  if (opcodeName.contains("_sdwa"))
    if (Status sdwa = checkSdwa(bytes); !sdwa.ok())
      return sdwa;
  // The printer's own test (it prints "/*Invalid register, ...*/" instead),
  // for matrix instructions only: their operands are plain VGPR/AGPR tuples.
  // Elsewhere the class tables reject registers valid code uses (m0 as
  // M0_gfxpre11 in s_mov_b32, exec as a VOP3 carry-in), so a general check
  // would refuse good kernels; LLVM only annotates those, it does not crash.
  if (!opcodeName.starts_with("V_MFMA") && !opcodeName.starts_with("V_SMFMAC"))
    return Status::success();
  const llvm::MCInstrDesc &desc = instrInfo.get(inst.getOpcode());
  const unsigned hwMode = subtarget.getHwMode(llvm::MCSubtargetInfo::HwMode_RegInfo);
  for (unsigned i = 0; i < inst.getNumOperands() && i < desc.getNumOperands(); ++i) {
    const llvm::MCOperand &operand = inst.getOperand(i);
    const int16_t regClass = instrInfo.getOpRegClassID(desc.operands()[i], hwMode);
    if (!operand.isReg() || !operand.getReg().isValid() || regClass < 0 ||
        unsigned(regClass) >= registers.getNumRegClasses())
      continue;
    if (!registers.getRegClass(regClass).contains(operand.getReg()))
      return Status::failure("operand " + std::to_string(i) + " is register " +
                             registers.getName(operand.getReg()) +
                             ", which that operand does not allow");
  }
  return Status::success();
}

} // namespace mxf::codeobj
