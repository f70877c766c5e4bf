//===- disassembler.h - gfx950 machine code to instructions ------*- C++ -*-===//
//
// Decodes gfx950 machine code with LLVM's MC disassembler (target
// amdgcn-amd-amdhsa, CPU gfx950) from libLLVM.so: the same decoder as
// llvm-objdump, so the instruction stream the emulator runs is the one the
// tools show. An undecodable word is an error with its offset, never skipped.
//
// Opcode numbers are specific to one LLVM build (the AMDGPU generated headers
// are not installed; TOOLCHAIN.md), so each instruction carries its opcode
// name (MCInstrInfo::getName) and mnemonic; map those once at start-up.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_CODEOBJ_DISASSEMBLER_H
#define MXFORGE_CODEOBJ_DISASSEMBLER_H

#include "support/status.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mxf::codeobj {

struct DecodedOperand {
  enum class Kind { Register, Immediate, FloatImmediate, Expression, Invalid };
  Kind kind = Kind::Invalid;
  unsigned reg = 0;       // Register: the MC register number (build-specific)
  std::string regName;    // Register: MCRegisterInfo name, e.g. "SGPR0_SGPR1_SGPR2_SGPR3"
  int64_t imm = 0;        // Immediate
  double fpImm = 0;       // FloatImmediate
  std::string expression; // Expression, printed
};

struct DecodedInstruction {
  uint64_t offset = 0;    // from the start of the decoded range
  uint64_t address = 0;   // offset + the range's address
  unsigned size = 0;      // bytes: 4, 8 or 16 (a scaled MFMA is one 16-byte instruction)
  unsigned opcode = 0;    // MC opcode number (build-specific; prefer opcodeName)
  std::string opcodeName; // MCInstrInfo::getName, e.g. "V_MFMA_F32_16X16X32_BF16_e64_gfx940"
  std::string mnemonic;   // first word of `text`, e.g. "v_mfma_f32_16x16x32_bf16"
  std::string text;       // MCInstPrinter output, e.g. "v_mfma_f32_16x16x32_bf16 a[0:3], ..."
  std::vector<DecodedOperand> operands;
  llvm::ArrayRef<uint8_t> bytes; // view into the decoded range
};

/// One MC disassembler stack for gfx950. Not thread-safe: use one per
/// thread. Creating it initializes the AMDGPU target once per process
/// (thread-safe).
class Disassembler {
public:
  static Result<std::unique_ptr<Disassembler>> create();
  ~Disassembler();

  /// Decodes all of `code` (placed at `address`). Fails at the first word
  /// that does not decode, naming its offset and bytes.
  Result<std::vector<DecodedInstruction>> disassemble(llvm::ArrayRef<uint8_t> code,
                                                      uint64_t address) const;

private:
  struct Impl;
  explicit Disassembler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Decodes the code of the kernel named `kernelName` in a code object (its
/// function symbol's range, reached through the kernel descriptor).
Result<std::vector<DecodedInstruction>> disassembleKernel(llvm::ArrayRef<uint8_t> hsaco,
                                                          llvm::StringRef kernelName);

} // namespace mxf::codeobj

#endif // MXFORGE_CODEOBJ_DISASSEMBLER_H
