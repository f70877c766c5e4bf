//===- instruction.h - One decoded gfx950 instruction ------------*- C++ -*-===//
//
// The emulator's form of an instruction, built once per code object by the
// decoder: which handler runs it, its operands (registers and constant values
// from LLVM's MCInst) and its modifier fields (read from the raw encoding, as
// the ISA defines them, so that the semantics files read like the ISA's
// pseudo-code).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_EMULATOR_INSTRUCTION_H
#define MXFORGE_EMULATOR_INSTRUCTION_H

#include "emulator/emulator.h"

#include <array>
#include <cstdint>
#include <string>

namespace mxf::emu {

/// Hardware encoding, from the top bits of the first dword.
enum class Encoding : uint8_t {
  Sop1, Sop2, Sopk, Sopc, Sopp, Smem,
  Vop1, Vop2, Vopc, // 32-bit forms (with a literal: 64 bits)
  Sdwa, Dpp,        // VOP1/VOP2/VOPC with the SDWA or DPP dword
  Vop3, Vop3p,      // Vop3p includes the matrix (MAI) instructions
  Ds, Flat, Mubuf, Mtbuf, Unknown,
};

/// Scalar register numbers: the 7/8-bit operand encoding of the ISA.
namespace sreg {
constexpr unsigned kFlatScratch = 102;
constexpr unsigned kXnackMask = 104;
constexpr unsigned kVcc = 106;
constexpr unsigned kTtmp0 = 108;
constexpr unsigned kM0 = 124;
constexpr unsigned kExec = 126;
constexpr unsigned kCount = 128;
constexpr unsigned kUserSgprs = 102; // s0..s101
} // namespace sreg

struct Operand {
  enum class Kind : uint8_t {
    None,
    Scalar, // the scalar file by encoding number (SGPRs, VCC, M0, EXEC, TTMPs)
    Vgpr,
    Agpr,
    Imm,    // inline or literal constant, as LLVM decoded it
    Scc,    // src_scc
    Vccz,   // src_vccz
    Execz,  // src_execz
  };
  Kind kind = Kind::None;
  uint16_t index = 0; // register number (Scalar: encoding number)
  uint8_t count = 0;  // dwords
  int64_t imm = 0;

  bool isVector() const { return kind == Kind::Vgpr || kind == Kind::Agpr; }
};

/// VOP3/VOP3P/SDWA/DPP modifier fields, bit i for source i.
struct Modifiers {
  uint8_t neg = 0, abs = 0;
  uint8_t opsel = 0;   // VOP3: OPSEL[3:0] (bit 3 = destination); VOP3P: OP_SEL[2:0]
  uint8_t opselHi = 0; // VOP3P: OP_SEL_HI[2:0]
  uint8_t negHi = 0;   // VOP3P: NEG_HI[2:0]
  uint8_t omod = 0;    // 0 none, 1 *2, 2 *4, 3 /2
  bool clamp = false;
};

struct SdwaFields {
  uint8_t dstSel = 6, dstUnused = 0, src0Sel = 6, src1Sel = 6; // 6 = DWORD
  bool src0Sext = false, src1Sext = false;
};

struct DppFields {
  uint16_t ctrl = 0;
  uint8_t rowMask = 0xf, bankMask = 0xf;
  bool boundCtrl = false;
};

struct Instruction;
struct Wave;
/// Executes one instruction on one wave. A failure names what went wrong;
/// the executor adds the instruction's text, address, workgroup and wave.
using Handler = Status (*)(Wave &, const Instruction &);

struct OpInfo {
  const char *mnemonic; // base mnemonic, e.g. "v_add_co_u32"
  Handler handler;
  Family family;
};

struct Instruction {
  const OpInfo *op = nullptr; // nullptr: no semantics (the run stops here)
  Family family = Family::Other;
  Encoding encoding = Encoding::Unknown;
  uint64_t address = 0;
  uint32_t size = 0;
  std::array<uint32_t, 4> words{}; // raw dwords (16-byte scaled MFMA: all four)

  static constexpr unsigned kMaxDefs = 2, kMaxSrcs = 6, kMaxImms = 8;
  std::array<Operand, kMaxDefs> defs{};
  std::array<Operand, kMaxSrcs> srcs{};
  std::array<int64_t, kMaxImms> imms{};
  uint8_t numDefs = 0, numSrcs = 0, numImms = 0;

  Modifiers mods;
  SdwaFields sdwa;
  DppFields dpp;

  /// Branches: index of the target instruction in the kernel's program.
  int32_t branchTarget = -1;
  /// Highest unified VGPR index the operands name (-1: none).
  int32_t maxVgpr = -1;

  std::string opcodeName; // MCInstrInfo::getName
  std::string text;       // MCInstPrinter output
  /// Non-empty: the decoder could not represent an operand; executing the
  /// instruction fails with this message.
  std::string decodeProblem;

  const Operand &dst(unsigned i = 0) const { return defs[i]; }
  const Operand &src(unsigned i) const { return srcs[i]; }
};

} // namespace mxf::emu

#endif // MXFORGE_EMULATOR_INSTRUCTION_H
