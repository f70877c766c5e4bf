//===- kernel_summary.h - What `mxforge inspect` reports ---------*- C++ -*-===//
//
// Per kernel of a gfx950 code object: its KernelInfo and descriptor, its
// decoded instructions with their families, the family histogram, the
// occupancy, and the warnings a kernel author must see (scratch in use,
// register spills). Plain data: the inspect command formats it, tests check
// it directly.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_CODEOBJ_KERNEL_SUMMARY_H
#define MXFORGE_CODEOBJ_KERNEL_SUMMARY_H

#include "codeobj/disassembler.h"
#include "codeobj/hsaco_reader.h"
#include "codeobj/instruction_families.h"
#include "codeobj/occupancy.h"
#include "support/status.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mxf::codeobj {

struct KernelSummary {
  KernelImage kernel;
  std::vector<DecodedInstruction> instructions;
  std::vector<InstructionFamily> families; // one per instruction
  FamilyHistogram histogram;
  Occupancy occupancy;
  size_t scratchInstructions = 0;
  /// "scratch in use: ..." and "spills: ..." lines, empty when clean.
  std::vector<std::string> warnings;
};

struct CodeObjectSummary {
  std::string target;
  unsigned codeObjectVersion = 0;
  std::vector<KernelSummary> kernels;
  /// The launch record mxforge embedded (readLaunchRecord), checked against
  /// the kernel's metadata; empty for code objects without one.
  std::optional<LaunchRecord> launch;
};

/// True if `target` (amdhsa.target) names gfx950, with or without target
/// features (":sramecc+", ":xnack-").
bool isGfx950Target(llvm::StringRef target);

/// Both of a code object's claims to be gfx950 code: `amdhsa.target` and the
/// ELF header's machine. What inspect and `run --hsaco` require before they
/// decode or emulate anything.
Status checkGfx950CodeObject(const CodeObjectImage &image);

/// Reads, decodes and classifies every kernel. Fails on damaged input, on a
/// target other than gfx950 (the decoder and the occupancy rules are
/// gfx950's), and on code that does not decode.
Result<CodeObjectSummary> summarizeCodeObject(llvm::ArrayRef<uint8_t> hsaco,
                                              const Disassembler &disassembler);

} // namespace mxf::codeobj

#endif // MXFORGE_CODEOBJ_KERNEL_SUMMARY_H
