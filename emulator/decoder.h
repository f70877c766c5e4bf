//===- decoder.h - Machine code -> emulator instructions ---------*- C++ -*-===//
//
// Decodes a kernel's code with LLVM's MC disassembler for gfx950 (through
// codeobj/disassembler.h) and turns each MCInst into an Instruction: handler
// by opcode name, operands classified with the opcode's MCInstrDesc
// (definitions, sources, named immediates, input-modifier operands), modifier
// fields from the raw encoding, branch targets resolved to instruction
// indices. Done once per code object.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_EMULATOR_DECODER_H
#define MXFORGE_EMULATOR_DECODER_H

#include "emulator/program.h"

#include "llvm/ADT/ArrayRef.h"

namespace mxf::emu {

/// Decodes `code` (at `address`) into `program.instructions`. AGPR operands
/// are placed in the unified file with `program.descriptor`'s accum_offset.
Status decodeProgram(llvm::ArrayRef<uint8_t> code, uint64_t address, KernelProgram &program);

/// Encoding class of an instruction from its first dword (ISA §13).
Encoding classifyEncoding(uint32_t word0);

} // namespace mxf::emu

#endif // MXFORGE_EMULATOR_DECODER_H
