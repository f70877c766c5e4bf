//===- encoding_fields.cpp - Where an instruction's operands sit in its bits ===//

#include "bench/mutation/encoding_fields.h"

#include "bench/mutation/text.h"

namespace mxf::mutation {
namespace {

using K = FieldKind;
using emu::Encoding;


/// VOP3b: a scalar carry or flag destination in bits 14:8 instead of
/// abs/op_sel.
bool isVop3b(const std::string &mnemonic) {
  static const char *const kVop3b[] = {
      "v_add_co_u32",     "v_sub_co_u32",    "v_subrev_co_u32", "v_addc_co_u32", "v_subb_co_u32",
      "v_subbrev_co_u32", "v_div_scale_f32", "v_div_scale_f64", "v_mad_u64_u32", "v_mad_i64_i32"};
  for (const char *name : kVop3b)
    if (startsWith(mnemonic, name))
      return true;
  return false;
}

/// The VOP1/VOP2/VOPC word (also word 0 of SDWA and DPP forms).
void addVopWord0(Encoding base, std::vector<Field> &out, bool src0InWord0) {
  switch (base) {
  case Encoding::Vop1:
    out.push_back({"vdst", 0, 17, 8, K::Register});
    out.push_back({"opcode", 0, 9, 8, K::Opcode});
    break;
  case Encoding::Vopc:
    out.push_back({"vsrc1", 0, 9, 8, K::Register});
    out.push_back({"opcode", 0, 17, 8, K::Opcode});
    break;
  default: // VOP2
    out.push_back({"vdst", 0, 17, 8, K::Register});
    out.push_back({"vsrc1", 0, 9, 8, K::Register});
    out.push_back({"opcode", 0, 25, 6, K::Opcode});
    break;
  }
  if (src0InWord0)
    out.push_back({"src0", 0, 0, 9, K::Source});
}

/// The 32-bit VOP form a SDWA or DPP word 0 carries.
Encoding vopBase(uint32_t word0) {
  const uint32_t top7 = word0 >> 25;
  return top7 == 0x3f ? Encoding::Vop1 : top7 == 0x3e ? Encoding::Vopc : Encoding::Vop2;
}

/// The three 9-bit sources of a VOP3/VOP3P/MAI second dword `word`.
void addSources(uint8_t word, std::vector<Field> &out) {
  out.push_back({"src0", word, 0, 9, K::Source});
  out.push_back({"src1", word, 9, 9, K::Source});
  out.push_back({"src2", word, 18, 9, K::Source});
}

void addMai(uint8_t first, std::vector<Field> &out) {
  out.push_back({"vdst", first, 0, 8, K::Register});
  out.push_back({"cbsz", first, 8, 3, K::Modifier});
  out.push_back({"abid", first, 11, 4, K::Modifier});
  out.push_back({"acc_cd", first, 15, 1, K::Register});
  out.push_back({"opcode", first, 16, 7, K::Opcode});
  addSources(uint8_t(first + 1), out);
  out.push_back({"acc_a", uint8_t(first + 1), 27, 1, K::Register});
  out.push_back({"acc_b", uint8_t(first + 1), 28, 1, K::Register});
  out.push_back({"blgp", uint8_t(first + 1), 29, 3, K::Modifier});
}

} // namespace

bool sourceIsRegister(uint32_t value) { return value < 128 || value >= 256; }

bool sourceIsInlineConstant(uint32_t value) {
  return (value >= 128 && value <= 208) || (value >= 240 && value <= 248);
}

std::vector<Field> fieldsOf(Encoding encoding, const std::array<uint32_t, 4> &words, unsigned size,
                            const std::string &mnemonic) {
  std::vector<Field> out;
  // A 32-bit encoding that is 8 bytes long carries a literal.
  auto literal = [&](unsigned naturalSize) {
    if (size == naturalSize + 4)
      out.push_back({"literal", uint8_t(naturalSize / 4), 0, 32, K::Literal});
  };
  switch (encoding) {
  case Encoding::Sop2:
    out.push_back({"sdst", 0, 16, 7, K::Register});
    out.push_back({"ssrc1", 0, 8, 8, K::Source});
    out.push_back({"ssrc0", 0, 0, 8, K::Source});
    out.push_back({"opcode", 0, 23, 7, K::Opcode});
    literal(4);
    break;
  case Encoding::Sopk:
    out.push_back({"sdst", 0, 16, 7, K::Register});
    out.push_back({"simm16", 0, 0, 16, K::Immediate});
    out.push_back({"opcode", 0, 23, 5, K::Opcode});
    literal(4); // s_setreg_imm32_b32
    break;
  case Encoding::Sop1:
    out.push_back({"sdst", 0, 16, 7, K::Register});
    out.push_back({"ssrc0", 0, 0, 8, K::Source});
    out.push_back({"opcode", 0, 8, 8, K::Opcode});
    literal(4);
    break;
  case Encoding::Sopc:
    out.push_back({"ssrc1", 0, 8, 8, K::Source});
    out.push_back({"ssrc0", 0, 0, 8, K::Source});
    out.push_back({"opcode", 0, 16, 7, K::Opcode});
    literal(4);
    break;
  case Encoding::Smem:
    out.push_back({"sbase", 0, 0, 6, K::Register});
    out.push_back({"sdata", 0, 6, 7, K::Register});
    out.push_back({"opcode", 0, 18, 8, K::Opcode});
    if ((words[0] >> 17) & 1) // IMM: an immediate byte offset
      out.push_back({"offset", 1, 0, 21, K::Immediate});
    else // the offset field names an SGPR
      out.push_back({"offset_sgpr", 1, 0, 7, K::Register});
    if ((words[0] >> 14) & 1) // SOE: an SGPR offset as well
      out.push_back({"soffset", 1, 25, 7, K::Register});
    break;
  case Encoding::Vop1:
  case Encoding::Vop2:
  case Encoding::Vopc:
    addVopWord0(encoding, out, /*src0InWord0=*/true);
    literal(4);
    break;
  case Encoding::Sdwa:
    addVopWord0(vopBase(words[0]), out, /*src0InWord0=*/false);
    out.push_back({"src0", 1, 0, 8, K::Register});
    out.push_back({"src0_sgpr", 1, 23, 1, K::Register});
    out.push_back({"src1_sgpr", 1, 31, 1, K::Register});
    if (vopBase(words[0]) == Encoding::Vopc) {
      // VOPC's SDWA word has the scalar destination where the others have
      // the destination selects.
      out.push_back({"sdst", 1, 8, 7, K::Register});
      out.push_back({"sdst_sgpr", 1, 15, 1, K::Register});
    } else {
      out.push_back({"dst_sel", 1, 8, 3, K::Modifier});
      out.push_back({"dst_unused", 1, 11, 2, K::Modifier});
      out.push_back({"clamp", 1, 13, 1, K::Modifier});
      out.push_back({"omod", 1, 14, 2, K::Modifier});
    }
    out.push_back({"src0_sel", 1, 16, 3, K::Modifier});
    out.push_back({"src0_sext", 1, 19, 1, K::Modifier});
    out.push_back({"src0_neg", 1, 20, 1, K::Modifier});
    out.push_back({"src0_abs", 1, 21, 1, K::Modifier});
    out.push_back({"src1_sel", 1, 24, 3, K::Modifier});
    out.push_back({"src1_sext", 1, 27, 1, K::Modifier});
    out.push_back({"src1_neg", 1, 28, 1, K::Modifier});
    out.push_back({"src1_abs", 1, 29, 1, K::Modifier});
    break;
  case Encoding::Dpp:
    addVopWord0(vopBase(words[0]), out, /*src0InWord0=*/false);
    out.push_back({"src0", 1, 0, 8, K::Register});
    out.push_back({"dpp_ctrl", 1, 8, 9, K::Modifier});
    out.push_back({"bound_ctrl", 1, 19, 1, K::Modifier});
    out.push_back({"src0_neg", 1, 20, 1, K::Modifier});
    out.push_back({"src0_abs", 1, 21, 1, K::Modifier});
    out.push_back({"src1_neg", 1, 22, 1, K::Modifier});
    out.push_back({"src1_abs", 1, 23, 1, K::Modifier});
    out.push_back({"bank_mask", 1, 24, 4, K::Modifier});
    out.push_back({"row_mask", 1, 28, 4, K::Modifier});
    break;
  case Encoding::Vop3: {
    // v_bitop3_*'s truth table is an immediate spread over the abs, omod
    // and neg bits (llvm-mc: bitop3:0x01 is bit 29 of the second dword).
    const bool bitop3 = startsWith(mnemonic, "v_bitop3");
    const K modifierOrTable = bitop3 ? K::Immediate : K::Modifier;
    out.push_back({"vdst", 0, 0, 8, K::Register});
    out.push_back({"opcode", 0, 16, 10, K::Opcode});
    if (isVop3b(mnemonic)) {
      out.push_back({"sdst", 0, 8, 7, K::Register});
    } else {
      out.push_back({bitop3 ? "bitop3[7:5]" : "abs", 0, 8, 3, modifierOrTable});
      out.push_back({"op_sel", 0, 11, 4, K::Modifier});
    }
    out.push_back({"clamp", 0, 15, 1, K::Modifier});
    addSources(1, out);
    out.push_back({bitop3 ? "bitop3[4:3]" : "omod", 1, 27, 2, modifierOrTable});
    out.push_back({bitop3 ? "bitop3[2:0]" : "neg", 1, 29, 3, modifierOrTable});
    break;
  }
  case Encoding::Vop3p:
    if (size == 16) {
      // The scaled MFMA: v_mfma_ld_scale_b32 (the scale sources and their
      // byte selection in op_sel/op_sel_hi), then the MAI dwords.
      out.push_back({"scale_src0", 1, 0, 9, K::Source});
      out.push_back({"scale_src1", 1, 9, 9, K::Source});
      out.push_back({"scale_op_sel", 0, 11, 3, K::Modifier});
      out.push_back({"scale_op_sel_hi2", 0, 14, 1, K::Modifier});
      out.push_back({"scale_op_sel_hi", 1, 27, 2, K::Modifier});
      addMai(2, out);
    } else if (startsWith(mnemonic, "v_mfma") || startsWith(mnemonic, "v_smfmac")) {
      addMai(0, out);
    } else {
      out.push_back({"vdst", 0, 0, 8, K::Register});
      out.push_back({"neg_hi", 0, 8, 3, K::Modifier});
      out.push_back({"op_sel", 0, 11, 3, K::Modifier});
      out.push_back({"op_sel_hi2", 0, 14, 1, K::Modifier});
      out.push_back({"clamp", 0, 15, 1, K::Modifier});
      out.push_back({"opcode", 0, 16, 7, K::Opcode});
      addSources(1, out);
      out.push_back({"op_sel_hi", 1, 27, 2, K::Modifier});
      out.push_back({"neg", 1, 29, 3, K::Modifier});
    }
    break;
  case Encoding::Ds:
    out.push_back({"offset", 0, 0, 16, K::Immediate}); // offset0 | offset1 << 8
    out.push_back({"opcode", 0, 17, 8, K::Opcode});
    out.push_back({"acc", 0, 25, 1, K::Register});
    out.push_back({"addr", 1, 0, 8, K::Register});
    out.push_back({"data0", 1, 8, 8, K::Register});
    out.push_back({"data1", 1, 16, 8, K::Register});
    out.push_back({"vdst", 1, 24, 8, K::Register});
    break;
  case Encoding::Flat:
    out.push_back({"offset", 0, 0, 13, K::Immediate});
    out.push_back({"opcode", 0, 18, 7, K::Opcode});
    out.push_back({"addr", 1, 0, 8, K::Register});
    out.push_back({"data", 1, 8, 8, K::Register});
    out.push_back({"saddr", 1, 16, 7, K::Register});
    out.push_back({"acc", 1, 23, 1, K::Register});
    out.push_back({"vdst", 1, 24, 8, K::Register});
    break;
  default: // SOPP, MUBUF/MTBUF (none in our kernels), unknown
    break;
  }
  return out;
}

} // namespace mxf::mutation
