//===- mutator.h - Single mutations of a kernel's instruction stream -*- C++ -*-===//
//
// Finds a kernel's instructions in a code object's .text and makes single
// mutations of them, in six classes: (a) a register operand's bit, (b) an
// immediate (offsets, simm16, literals, inline-constant codes), (c) the
// opcode (another valid opcode of the same encoding), (d) a modifier bit,
// (e) an s_waitcnt and (f) an s_barrier replaced by s_nop 0.
//
// A mutant is kept only when LLVM decodes the mutated instruction to one
// instruction of the same size (so the rest of the stream is unchanged),
// of the same opcode except in class c, and the emulator has semantics
// for it: a mutant the emulator refuses to run would be "caught" by the
// emulator's coverage, not by the checks whose strength is measured.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_BENCH_MUTATION_MUTATOR_H
#define MXFORGE_BENCH_MUTATION_MUTATOR_H

#include "emulator/instruction.h"
#include "support/status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace mxf::codeobj {
class Disassembler;
}

namespace mxf::mutation {

enum class MutationClass : uint8_t { Register, Immediate, Opcode, Modifier, Waitcnt, Barrier };
constexpr size_t kNumClasses = 6;
/// "a register", "b immediate", ..., "f s_barrier".
const char *className(MutationClass cls);
/// "register", "immediate", ... (for JSON).
const char *classKey(MutationClass cls);

struct KernelInstruction {
  uint64_t address = 0;
  unsigned size = 0;
  std::array<uint32_t, 4> words{};
  emu::Encoding encoding = emu::Encoding::Unknown;
  std::string mnemonic, opcodeName, text;
};

/// One kernel of a code object, located and decoded.
struct KernelCode {
  std::string kernelName;
  std::vector<uint8_t> hsaco;
  size_t codeFileOffset = 0; // where the kernel's first instruction is in hsaco
  uint64_t codeAddress = 0;
  std::vector<KernelInstruction> instructions;
};

Result<KernelCode> readKernelCode(const std::vector<uint8_t> &hsaco, const std::string &kernel);

struct Mutation {
  MutationClass cls = MutationClass::Register;
  size_t index = 0;                // instruction index in KernelCode::instructions
  std::array<uint32_t, 4> words{}; // the mutated instruction's dwords
  std::string what;                // "vdst bit 3", "opcode 0x35 -> 0x34", "removed"
  std::string field;               // the field's name ("src1", "literal", "opcode", ...)
  uint32_t before = 0, after = 0;  // the field's value before and after
  std::string mutatedText, mutatedOpcodeName;
  bool sameDecoding = false; // LLVM decodes it to the original's text and opcode
};

/// The code object with `mutation` applied to its .text.
std::vector<uint8_t> applyMutation(const KernelCode &code, const Mutation &mutation);

/// Candidates looked at while sampling a class, and why some were dropped.
struct SampleStats {
  size_t sites = 0;            // (instruction, field, bit) sites, or instructions for class c
  size_t unusedFieldSites = 0; // fields the instruction does not have (no flip changes it)
  size_t tried = 0;
  size_t undecodable = 0; // LLVM rejects the mutated word (or prints it as invalid)
  size_t otherSize = 0;   // decodes to an instruction of another size (or another opcode)
  size_t noSemantics = 0; // the emulator has no semantics for the mutated instruction
};

class Mutator {
public:
  static Result<std::unique_ptr<Mutator>> create(const KernelCode &code);
  ~Mutator();

  /// Every s_waitcnt (class e) or s_barrier (class f), replaced by s_nop 0.
  std::vector<Mutation> everyRemoval(MutationClass cls) const;

  /// Up to `count` distinct valid mutants of class a-d, drawn uniformly over
  /// the class's sites (class c: over instructions, then over the valid
  /// other opcodes of the chosen one) in an order `rng` decides.
  std::vector<Mutation> sample(MutationClass cls, size_t count, std::mt19937_64 &rng,
                               SampleStats &stats) const;

private:
  explicit Mutator(const KernelCode &code);
  struct Decoded;
  /// The mutated instruction `index` with `words`, decoded alone.
  Decoded decodeAt(size_t index, const std::array<uint32_t, 4> &words) const;
  bool emulatorRuns(const Mutation &mutation) const;
  bool hasHandler(const std::string &opcodeName) const;

  const KernelCode &code_;
  std::unique_ptr<codeobj::Disassembler> disassembler_;
};

} // namespace mxf::mutation

#endif // MXFORGE_BENCH_MUTATION_MUTATOR_H
