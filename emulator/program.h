//===- program.h - A decoded kernel, ready to execute ------------*- C++ -*-===//
//
// Everything launch() needs from the code object for one kernel: its
// metadata (KernelInfo), its kernel descriptor (initial state, §D of
// GFX950_SEMANTICS.md) and its instructions in address order.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_EMULATOR_PROGRAM_H
#define MXFORGE_EMULATOR_PROGRAM_H

#include "codeobj/kernel_descriptor.h"
#include "emulator/instruction.h"
#include "abi/kernel_info.h"

#include <string>
#include <vector>

namespace mxf::emu {

struct KernelProgram {
  KernelInfo info;
  codeobj::KernelDescriptor descriptor;
  uint64_t codeAddress = 0;
  std::vector<Instruction> instructions;
  /// Non-empty when the code could not be decoded: launches fail with it.
  std::string decodeError;
};

} // namespace mxf::emu

#endif // MXFORGE_EMULATOR_PROGRAM_H
