//===- encoding_fields.h - Where an instruction's operands sit in its bits -*- C++ -*-===//
//
// The fields of each gfx950 encoding that a single mutation may change:
// register numbers, 9-bit source operands, immediates and literals, the
// opcode, and the modifier bits, as bit ranges of the raw dwords (CDNA4 ISA
// chapter 13, checked against llvm-mc-22 -show-encoding). The table only
// says where to flip; LLVM's decoder then says what the flip means, and the
// mutator keeps a mutant only when it decodes, so a field this table gets
// wrong costs candidates, never a wrong mutant.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_BENCH_MUTATION_ENCODING_FIELDS_H
#define MXFORGE_BENCH_MUTATION_ENCODING_FIELDS_H

#include "emulator/instruction.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mxf::mutation {

enum class FieldKind : uint8_t {
  Register,  // a register number (or a register-file select bit)
  Source,    // a 9- or 8-bit source operand: register, inline constant or literal marker
  Immediate, // an offset or simm16
  Literal,   // the 32-bit literal dword after the instruction
  Opcode,
  Modifier, // neg/abs/clamp/omod/op_sel, SDWA selects, DPP controls, MFMA cbsz/abid/blgp
};

struct Field {
  const char *name;
  uint8_t word; // dword index in the instruction
  uint8_t lo;   // lowest bit in that dword
  uint8_t width;
  FieldKind kind;

  uint32_t mask() const { return (width >= 32 ? ~0u : ((1u << width) - 1)) << lo; }
  uint32_t get(const std::array<uint32_t, 4> &words) const { return (words[word] & mask()) >> lo; }
  void set(std::array<uint32_t, 4> &words, uint32_t value) const {
    words[word] = (words[word] & ~mask()) | ((value << lo) & mask());
  }
};

/// The mutable fields of an instruction with these raw words, size and
/// mnemonic (which tells VOP3b from VOP3a and MFMA from VOP3P). SOPP has
/// none: its waits and barriers are removed whole, its branches, nops and
/// s_endpgm are left alone.
std::vector<Field> fieldsOf(emu::Encoding encoding, const std::array<uint32_t, 4> &words,
                            unsigned size, const std::string &mnemonic);

/// Whether a 9-bit source value names a register (SGPR, special scalar
/// register, VGPR) or an inline constant.
bool sourceIsRegister(uint32_t value);
bool sourceIsInlineConstant(uint32_t value);

} // namespace mxf::mutation

#endif // MXFORGE_BENCH_MUTATION_ENCODING_FIELDS_H
