//===- decoder.cpp - Machine code -> emulator instructions ----------------===//

#include "emulator/decoder.h"

#include "codeobj/disassembler.h"
#include "emulator/opcode_table.h"
#include "emulator/operands.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>
#include <optional>

namespace mxf::emu {

namespace {

/// Opcode-number -> handler, built once from MCInstrInfo names, plus the
/// operand type LLVM uses for VOP3 input-modifier operands (the value of
/// AMDGPU::OPERAND_INPUT_MODS in this build, read off a known opcode because
/// SIDefines.h is not installed).
struct OpcodeMap {
  std::unique_ptr<llvm::MCInstrInfo> instrInfo;
  std::vector<const OpInfo *> handlers; // by opcode number
  int inputModsType = -1;
  std::string error;
};

const OpcodeMap &opcodeMap() {
  static const OpcodeMap map = [] {
    OpcodeMap m;
    // Creating a disassembler initialises the AMDGPU target once.
    Result<std::unique_ptr<codeobj::Disassembler>> probe = codeobj::Disassembler::create();
    if (!probe.ok()) {
      m.error = probe.error();
      return m;
    }
    std::string error;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(llvm::Triple("amdgcn-amd-amdhsa"), error);
    if (!target) {
      m.error = "no AMDGPU target: " + error;
      return m;
    }
    m.instrInfo.reset(target->createMCInstrInfo());
    const OpRegistry &registry = opRegistry();
    m.handlers.resize(m.instrInfo->getNumOpcodes(), nullptr);
    for (unsigned opcode = 0; opcode < m.instrInfo->getNumOpcodes(); ++opcode) {
      llvm::StringRef name = m.instrInfo->getName(opcode);
      m.handlers[opcode] = registry.find(baseMnemonic(name));
      if (name == "V_FMA_F32_vi") {
        const llvm::MCInstrDesc &desc = m.instrInfo->get(opcode);
        if (desc.getNumOperands() > 1)
          m.inputModsType = desc.operands()[1].OperandType;
      }
    }
    if (m.inputModsType < 0)
      m.error = "cannot find V_FMA_F32_vi to calibrate operand types";
    return m;
  }();
  return map;
}

struct ParsedRegister {
  Operand op;
  std::string problem;
};

/// MC register names: SGPR4, SGPR4_SGPR5, VGPR0_VGPR1_VGPR2_VGPR3, AGPR7,
/// TTMP3, VCC, VCC_LO, EXEC_HI, M0, SCC, SRC_VCCZ, ...
ParsedRegister parseRegister(llvm::StringRef fullName) {
  ParsedRegister r;
  // Subtarget variants carry lowercase tokens (M0_gfxpre11, FLAT_SCR_vi,
  // TTMP3_gfx9plus): the register is the same, drop them.
  llvm::SmallVector<llvm::StringRef, 16> tokens, kept;
  fullName.split(tokens, '_');
  for (llvm::StringRef token : tokens)
    if (!llvm::any_of(token, [](char c) { return c >= 'a' && c <= 'z'; }))
      kept.push_back(token);
  const std::string joined = llvm::join(kept, "_");
  const llvm::StringRef name(joined);
  Operand &op = r.op;
  auto tuple = [&](llvm::StringRef prefix, Operand::Kind kind, unsigned base) -> bool {
    if (!name.starts_with(prefix))
      return false;
    llvm::SmallVector<llvm::StringRef, 16> parts;
    name.split(parts, '_');
    unsigned first = 0;
    for (llvm::StringRef part : parts)
      if (!part.starts_with(prefix) || part.drop_front(prefix.size()).getAsInteger(10, first))
        return false;
    parts.front().drop_front(prefix.size()).getAsInteger(10, first);
    op.kind = kind;
    op.index = uint16_t(base + first);
    op.count = uint8_t(parts.size());
    return true;
  };
  if (tuple("SGPR", Operand::Kind::Scalar, 0) || tuple("VGPR", Operand::Kind::Vgpr, 0) ||
      tuple("AGPR", Operand::Kind::Agpr, 0) || tuple("TTMP", Operand::Kind::Scalar, sreg::kTtmp0))
    return r;
  struct Named {
    const char *name;
    Operand::Kind kind;
    unsigned index, count;
  };
  static const Named kNamed[] = {
      {"VCC", Operand::Kind::Scalar, sreg::kVcc, 2},
      {"VCC_LO", Operand::Kind::Scalar, sreg::kVcc, 1},
      {"VCC_HI", Operand::Kind::Scalar, sreg::kVcc + 1, 1},
      {"EXEC", Operand::Kind::Scalar, sreg::kExec, 2},
      {"EXEC_LO", Operand::Kind::Scalar, sreg::kExec, 1},
      {"EXEC_HI", Operand::Kind::Scalar, sreg::kExec + 1, 1},
      {"M0", Operand::Kind::Scalar, sreg::kM0, 1},
      {"FLAT_SCR", Operand::Kind::Scalar, sreg::kFlatScratch, 2},
      {"FLAT_SCR_LO", Operand::Kind::Scalar, sreg::kFlatScratch, 1},
      {"FLAT_SCR_HI", Operand::Kind::Scalar, sreg::kFlatScratch + 1, 1},
      {"XNACK_MASK", Operand::Kind::Scalar, sreg::kXnackMask, 2},
      {"XNACK_MASK_LO", Operand::Kind::Scalar, sreg::kXnackMask, 1},
      {"XNACK_MASK_HI", Operand::Kind::Scalar, sreg::kXnackMask + 1, 1},
      {"SCC", Operand::Kind::Scc, 0, 1},
      {"SRC_SCC", Operand::Kind::Scc, 0, 1},
      {"SRC_VCCZ", Operand::Kind::Vccz, 0, 1},
      {"SRC_EXECZ", Operand::Kind::Execz, 0, 1},
  };
  for (const Named &n : kNamed)
    if (name == n.name) {
      op.kind = n.kind;
      op.index = uint16_t(n.index);
      op.count = uint8_t(n.count);
      return r;
    }
  r.problem = "register " + fullName.str() + " is not modelled";
  return r;
}

void decodeModifiers(Instruction &inst) {
  const uint32_t w0 = inst.words[0], w1 = inst.words[1];
  Modifiers &m = inst.mods;
  switch (inst.encoding) {
  case Encoding::Vop3: {
    // VOP3B (a scalar carry/flag destination) has SDST in bits 14:8.
    const bool vop3b = inst.numDefs == 2 && inst.defs[1].kind == Operand::Kind::Scalar &&
                       inst.defs[0].isVector();
    if (!vop3b) {
      m.abs = (w0 >> 8) & 7;
      m.opsel = (w0 >> 11) & 0xf;
    }
    m.clamp = (w0 >> 15) & 1;
    m.omod = (w1 >> 27) & 3;
    m.neg = (w1 >> 29) & 7;
    break;
  }
  case Encoding::Vop3p:
    m.negHi = (w0 >> 8) & 7;
    m.opsel = (w0 >> 11) & 7;
    m.opselHi = ((w1 >> 27) & 3) | (((w0 >> 14) & 1) << 2);
    m.clamp = (w0 >> 15) & 1;
    m.neg = (w1 >> 29) & 7;
    break;
  case Encoding::Sdwa: {
    SdwaFields &s = inst.sdwa;
    const bool vopc = ((w0 >> 25) & 0x7f) == 0x3e;
    if (!vopc) {
      s.dstSel = (w1 >> 8) & 7;
      s.dstUnused = (w1 >> 11) & 3;
      m.clamp = (w1 >> 13) & 1;
      m.omod = (w1 >> 14) & 3;
    }
    s.src0Sel = (w1 >> 16) & 7;
    s.src0Sext = (w1 >> 19) & 1;
    m.neg |= (w1 >> 20) & 1;
    m.abs |= (w1 >> 21) & 1;
    s.src1Sel = (w1 >> 24) & 7;
    s.src1Sext = (w1 >> 27) & 1;
    m.neg |= ((w1 >> 28) & 1) << 1;
    m.abs |= ((w1 >> 29) & 1) << 1;
    break;
  }
  case Encoding::Dpp: {
    DppFields &d = inst.dpp;
    d.ctrl = (w1 >> 8) & 0x1ff;
    d.boundCtrl = (w1 >> 19) & 1;
    m.neg = ((w1 >> 20) & 1) | (((w1 >> 22) & 1) << 1);
    m.abs = ((w1 >> 21) & 1) | (((w1 >> 23) & 1) << 1);
    d.bankMask = (w1 >> 24) & 0xf;
    d.rowMask = (w1 >> 28) & 0xf;
    break;
  }
  default:
    break;
  }
}

bool isBranch(llvm::StringRef mnemonic) {
  return mnemonic == "s_branch" || mnemonic.starts_with("s_cbranch");
}

} // namespace

Encoding classifyEncoding(uint32_t w0) {
  if ((w0 >> 31) == 0) {
    const uint32_t top7 = w0 >> 25;
    const uint32_t src0 = w0 & 0x1ff;
    if (src0 == 0xf9)
      return Encoding::Sdwa;
    if (src0 == 0xfa)
      return Encoding::Dpp;
    if (top7 == 0x3f)
      return Encoding::Vop1;
    if (top7 == 0x3e)
      return Encoding::Vopc;
    return Encoding::Vop2;
  }
  if ((w0 >> 30) == 2) {
    switch (w0 >> 23) {
    case 0x17d: return Encoding::Sop1;
    case 0x17e: return Encoding::Sopc;
    case 0x17f: return Encoding::Sopp;
    default: return (w0 >> 28) == 0xb ? Encoding::Sopk : Encoding::Sop2;
    }
  }
  switch (w0 >> 26) {
  case 0x30: return Encoding::Smem;
  case 0x34: return (w0 >> 23) == 0x1a7 ? Encoding::Vop3p : Encoding::Vop3;
  case 0x36: return Encoding::Ds;
  case 0x37: return Encoding::Flat;
  case 0x38: return Encoding::Mubuf;
  case 0x3a: return Encoding::Mtbuf;
  default: return Encoding::Unknown;
  }
}

Status decodeProgram(llvm::ArrayRef<uint8_t> code, uint64_t address, KernelProgram &program) {
  const OpcodeMap &map = opcodeMap();
  if (!map.error.empty())
    return Status::failure("emulator decoder: " + map.error);
  Result<std::unique_ptr<codeobj::Disassembler>> disassembler = codeobj::Disassembler::create();
  if (!disassembler.ok())
    return disassembler.status();
  Result<std::vector<codeobj::DecodedInstruction>> decoded =
      disassembler.value()->disassemble(code, address);
  if (!decoded.ok())
    return decoded.status();

  const unsigned accumOffset = program.descriptor.accumOffset();
  llvm::DenseMap<uint64_t, uint32_t> indexByAddress;
  std::vector<Instruction> &out = program.instructions;
  out.clear();
  out.reserve(decoded.value().size());

  for (const codeobj::DecodedInstruction &d : decoded.value()) {
    Instruction inst;
    inst.address = d.address;
    inst.size = d.size;
    for (unsigned i = 0; i < 4 && 4 * i + 4 <= d.bytes.size(); ++i)
      inst.words[i] = llvm::support::endian::read32le(d.bytes.data() + 4 * i);
    inst.encoding = classifyEncoding(inst.words[0]);
    inst.opcodeName = d.opcodeName;
    inst.text = d.text;
    inst.op = d.opcode < map.handlers.size() ? map.handlers[d.opcode] : nullptr;
    inst.family = inst.op ? inst.op->family : Family::Other;

    const llvm::MCInstrDesc &desc = map.instrInfo->get(d.opcode);
    const unsigned numDescOps = desc.getNumOperands();
    for (unsigned i = 0; i < d.operands.size(); ++i) {
      const codeobj::DecodedOperand &operand = d.operands[i];
      const bool isDef = i < desc.getNumDefs();
      const bool inDesc = i < numDescOps;
      const bool tied = inDesc && !isDef && desc.getOperandConstraint(i, llvm::MCOI::TIED_TO) >= 0;
      const int type = inDesc ? desc.operands()[i].OperandType : -1;
      const bool hasRegClass = inDesc && desc.operands()[i].RegClass != -1;
      if (tied || (inDesc && type == map.inputModsType))
        continue; // tied inputs are the destination; modifiers come from the raw bits
      Operand op;
      if (operand.kind == codeobj::DecodedOperand::Kind::Register) {
        ParsedRegister parsed = parseRegister(operand.regName);
        if (!parsed.problem.empty() && inst.decodeProblem.empty())
          inst.decodeProblem = parsed.problem;
        op = parsed.op;
      } else if (operand.kind == codeobj::DecodedOperand::Kind::Immediate) {
        op.kind = Operand::Kind::Imm;
        op.imm = operand.imm;
        op.count = 1;
      } else {
        if (inst.decodeProblem.empty())
          inst.decodeProblem = "operand " + std::to_string(i) + " is not a register or integer";
        continue;
      }
      if (isDef) {
        if (inst.numDefs < Instruction::kMaxDefs)
          inst.defs[inst.numDefs++] = op;
      } else if (op.kind != Operand::Kind::Imm || hasRegClass) {
        if (inst.numSrcs < Instruction::kMaxSrcs)
          inst.srcs[inst.numSrcs++] = op;
      } else if (inst.numImms < Instruction::kMaxImms) {
        inst.imms[inst.numImms++] = op.imm;
      }
      if (op.isVector()) {
        const int32_t top = int32_t((op.kind == Operand::Kind::Agpr ? accumOffset : 0) +
                                    op.index + op.count - 1);
        inst.maxVgpr = std::max(inst.maxVgpr, top);
      }
    }
    decodeModifiers(inst);
    indexByAddress[inst.address] = uint32_t(out.size());
    out.push_back(std::move(inst));
  }

  // Branch targets: SIMM16 dwords after the branch's next instruction.
  for (Instruction &inst : out) {
    if (inst.encoding != Encoding::Sopp || !inst.op || !isBranch(inst.op->mnemonic))
      continue;
    const int16_t simm16 = int16_t(inst.words[0] & 0xffff);
    const uint64_t target = inst.address + 4 + int64_t(simm16) * 4;
    auto it = indexByAddress.find(target);
    if (it == indexByAddress.end())
      inst.decodeProblem = "branch target " + hex(target) + " is not an instruction of the kernel";
    else
      inst.branchTarget = int32_t(it->second);
  }
  return Status::success();
}

} // namespace mxf::emu
