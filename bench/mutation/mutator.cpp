//===- mutator.cpp - Single mutations of a kernel's instruction stream ----===//

#include "bench/mutation/mutator.h"

#include "bench/mutation/encoding_fields.h"
#include "codeobj/disassembler.h"
#include "codeobj/hsaco_reader.h"
#include "emulator/decoder.h"
#include "emulator/emulator.h"
#include "emulator/opcode_table.h"
#include "emulator/program.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace mxf::mutation {

const char *className(MutationClass cls) {
  switch (cls) {
  case MutationClass::Register:
    return "a register";
  case MutationClass::Immediate:
    return "b immediate";
  case MutationClass::Opcode:
    return "c opcode";
  case MutationClass::Modifier:
    return "d modifier";
  case MutationClass::Waitcnt:
    return "e s_waitcnt";
  case MutationClass::Barrier:
    return "f s_barrier";
  }
  return "?";
}

const char *classKey(MutationClass cls) {
  switch (cls) {
  case MutationClass::Register:
    return "register";
  case MutationClass::Immediate:
    return "immediate";
  case MutationClass::Opcode:
    return "opcode";
  case MutationClass::Modifier:
    return "modifier";
  case MutationClass::Waitcnt:
    return "waitcnt";
  case MutationClass::Barrier:
    return "barrier";
  }
  return "?";
}

namespace {

constexpr uint32_t kSNop0 = 0xBF800000u;

std::vector<uint8_t> bytesOf(const std::array<uint32_t, 4> &words, unsigned size) {
  std::vector<uint8_t> bytes(size);
  std::memcpy(bytes.data(), words.data(), size);
  return bytes;
}

} // namespace

Result<KernelCode> readKernelCode(const std::vector<uint8_t> &hsaco, const std::string &kernel) {
  Result<codeobj::CodeObjectImage> image = codeobj::readCodeObject(hsaco);
  if (!image.ok())
    return image.status();
  for (const codeobj::KernelImage &k : image.value().kernels) {
    if (k.info.name != kernel)
      continue;
    KernelCode out;
    out.kernelName = kernel;
    out.codeFileOffset = size_t(k.code.data() - hsaco.data());
    out.codeAddress = k.codeAddress;
    Result<std::unique_ptr<codeobj::Disassembler>> disassembler = codeobj::Disassembler::create();
    if (!disassembler.ok())
      return disassembler.status();
    Result<std::vector<codeobj::DecodedInstruction>> decoded =
        disassembler.value()->disassemble(k.code, k.codeAddress);
    if (!decoded.ok())
      return decoded.status();
    for (const codeobj::DecodedInstruction &d : decoded.value()) {
      KernelInstruction inst;
      inst.address = d.address;
      inst.size = d.size;
      std::memcpy(inst.words.data(), d.bytes.data(), std::min<size_t>(d.bytes.size(), 16));
      inst.encoding = emu::classifyEncoding(inst.words[0]);
      inst.mnemonic = d.mnemonic;
      inst.opcodeName = d.opcodeName;
      inst.text = d.text;
      out.instructions.push_back(std::move(inst));
    }
    out.hsaco = hsaco;
    return out;
  }
  return Result<KernelCode>::failure("no kernel named '" + kernel + "' in the code object");
}

std::vector<uint8_t> applyMutation(const KernelCode &code, const Mutation &mutation) {
  std::vector<uint8_t> out = code.hsaco;
  const KernelInstruction &inst = code.instructions[mutation.index];
  const size_t at = code.codeFileOffset + size_t(inst.address - code.codeAddress);
  std::memcpy(out.data() + at, mutation.words.data(), inst.size);
  return out;
}

struct Mutator::Decoded {
  bool ok = false;
  unsigned size = 0;
  std::string opcodeName, text;
};

Mutator::Mutator(const KernelCode &code) : code_(code) {}
Mutator::~Mutator() = default;

Result<std::unique_ptr<Mutator>> Mutator::create(const KernelCode &code) {
  std::unique_ptr<Mutator> mutator(new Mutator(code));
  Result<std::unique_ptr<codeobj::Disassembler>> disassembler = codeobj::Disassembler::create();
  if (!disassembler.ok())
    return disassembler.status();
  mutator->disassembler_ = std::move(disassembler.value());
  return mutator;
}

Mutator::Decoded Mutator::decodeAt(size_t index, const std::array<uint32_t, 4> &words) const {
  const KernelInstruction &inst = code_.instructions[index];
  const std::vector<uint8_t> bytes = bytesOf(words, inst.size);
  Decoded out;
  Result<std::vector<codeobj::DecodedInstruction>> decoded =
      disassembler_->disassemble(bytes, inst.address);
  if (!decoded.ok() || decoded.value().size() != 1)
    return out; // undecodable, or now shorter than the original
  out.ok = true;
  out.size = decoded.value()[0].size;
  out.opcodeName = decoded.value()[0].opcodeName;
  out.text = decoded.value()[0].text;
  return out;
}

bool Mutator::hasHandler(const std::string &opcodeName) const {
  return emu::opRegistry().find(emu::baseMnemonic(opcodeName)) != nullptr;
}

bool Mutator::emulatorRuns(const Mutation &mutation) const {
  const std::vector<uint8_t> hsaco = applyMutation(code_, mutation);
  Result<std::shared_ptr<const emu::LoadedCodeObject>> loaded =
      emu::LoadedCodeObject::load(hsaco.data(), hsaco.size());
  if (!loaded.ok())
    return false;
  const emu::KernelProgram *program = loaded.value()->findKernel(code_.kernelName);
  return program && program->decodeError.empty() &&
         loaded.value()->unsupportedInstructions(code_.kernelName).empty();
}

std::vector<Mutation> Mutator::everyRemoval(MutationClass cls) const {
  const char *mnemonic = cls == MutationClass::Waitcnt ? "s_waitcnt" : "s_barrier";
  std::vector<Mutation> out;
  for (size_t i = 0; i < code_.instructions.size(); ++i) {
    const KernelInstruction &inst = code_.instructions[i];
    if (inst.mnemonic != mnemonic || inst.size != 4)
      continue;
    Mutation m;
    m.cls = cls;
    m.index = i;
    m.words = {kSNop0, 0, 0, 0};
    m.what = "replaced by s_nop 0";
    m.mutatedText = "s_nop 0";
    m.mutatedOpcodeName = "S_NOP";
    out.push_back(std::move(m));
  }
  return out;
}

namespace {

/// One place a class-a/b/d mutation can flip: bit `bit` of field `field`.
struct Site {
  size_t index;
  Field field;
  unsigned bit;
};

bool fieldInClass(const Field &field, uint32_t value, MutationClass cls) {
  switch (cls) {
  case MutationClass::Register:
    return field.kind == FieldKind::Register ||
           (field.kind == FieldKind::Source && sourceIsRegister(value));
  case MutationClass::Immediate:
    return field.kind == FieldKind::Immediate || field.kind == FieldKind::Literal ||
           (field.kind == FieldKind::Source && sourceIsInlineConstant(value));
  case MutationClass::Modifier:
    return field.kind == FieldKind::Modifier;
  default:
    return false;
  }
}

/// The bits of `field` a class flips. A register source keeps its kind
/// (SGPR-side values below 128 flip bits 0-6, VGPRs bits 0-7); an inline
/// constant flips bits 0-5 and must stay an inline constant.
std::vector<unsigned> bitsToFlip(const Field &field, uint32_t value, MutationClass cls) {
  unsigned width = field.width;
  if (field.kind == FieldKind::Source)
    width = cls == MutationClass::Immediate ? 6 : value >= 256 ? 8 : 7;
  std::vector<unsigned> bits;
  for (unsigned bit = 0; bit < width; ++bit) {
    if (field.kind == FieldKind::Source && cls == MutationClass::Immediate &&
        !sourceIsInlineConstant(value ^ (1u << bit)))
      continue;
    bits.push_back(bit);
  }
  return bits;
}

} // namespace

std::vector<Mutation> Mutator::sample(MutationClass cls, size_t count, std::mt19937_64 &rng,
                                      SampleStats &stats) const {
  std::vector<Mutation> out;
  std::set<std::pair<size_t, std::array<uint32_t, 4>>> seen;
  auto accept = [&](size_t index, const std::array<uint32_t, 4> &words, std::string what,
                    const Field &field, uint32_t before, uint32_t after) {
    if (!seen.insert({index, words}).second)
      return false;
    ++stats.tried;
    const KernelInstruction &inst = code_.instructions[index];
    const Decoded d = decodeAt(index, words);
    // LLVM's printer marks an operand it decoded but the encoding does not
    // allow (a misaligned register tuple, an immediate a VOP1 cannot take):
    // not an instruction the hardware runs.
    if (!d.ok || d.text.find("/*Invalid") != std::string::npos) {
      ++stats.undecodable;
      return false;
    }
    const bool opcodeChanged = d.opcodeName != inst.opcodeName;
    if (d.size != inst.size || opcodeChanged != (cls == MutationClass::Opcode)) {
      ++stats.otherSize;
      return false;
    }
    Mutation m;
    m.cls = cls;
    m.index = index;
    m.words = words;
    m.what = std::move(what);
    m.field = field.name;
    m.before = before;
    m.after = after;
    m.mutatedText = d.text;
    m.mutatedOpcodeName = d.opcodeName;
    m.sameDecoding = !opcodeChanged && d.text == inst.text;
    if (!hasHandler(d.opcodeName) || !emulatorRuns(m)) {
      ++stats.noSemantics;
      return false;
    }
    out.push_back(std::move(m));
    return true;
  };

  if (cls == MutationClass::Opcode) {
    // Uniform over instructions, then over the other opcodes of the field
    // that decode at the same size and that the emulator implements.
    std::vector<std::pair<size_t, Field>> sites;
    for (size_t i = 0; i < code_.instructions.size(); ++i) {
      const KernelInstruction &inst = code_.instructions[i];
      for (const Field &f : fieldsOf(inst.encoding, inst.words, inst.size, inst.mnemonic))
        if (f.kind == FieldKind::Opcode)
          sites.push_back({i, f});
    }
    stats.sites = sites.size();
    std::shuffle(sites.begin(), sites.end(), rng);
    std::map<size_t, std::vector<uint32_t>> alternatives;
    bool progress = true;
    while (out.size() < count && progress) {
      progress = false;
      for (const auto &[index, field] : sites) {
        if (out.size() >= count)
          break;
        const KernelInstruction &inst = code_.instructions[index];
        auto found = alternatives.find(index);
        if (found == alternatives.end()) {
          std::vector<uint32_t> values;
          const uint32_t current = field.get(inst.words);
          for (uint32_t v = 0; v < (1u << field.width); ++v) {
            if (v == current)
              continue;
            std::array<uint32_t, 4> words = inst.words;
            field.set(words, v);
            const Decoded d = decodeAt(index, words);
            if (d.ok && d.size == inst.size && d.opcodeName != inst.opcodeName &&
                d.text.find("/*Invalid") == std::string::npos && hasHandler(d.opcodeName))
              values.push_back(v);
          }
          found = alternatives.emplace(index, std::move(values)).first;
        }
        std::vector<uint32_t> &values = found->second;
        while (!values.empty()) {
          const size_t pick = size_t(rng() % values.size());
          const uint32_t v = values[pick];
          values.erase(values.begin() + long(pick));
          std::array<uint32_t, 4> words = inst.words;
          field.set(words, v);
          if (accept(index, words, fmt::format("opcode 0x{:x} -> 0x{:x}", field.get(inst.words), v),
                     field, field.get(inst.words), v)) {
            progress = true;
            break;
          }
        }
      }
    }
    return out;
  }

  // Classes a, b, d: every (instruction, field, bit) of a field the
  // instruction has (a field none of whose flips changes LLVM's decoding,
  // such as DS data1 of a ds_read, is not one of its operands).
  std::vector<Site> sites;
  for (size_t i = 0; i < code_.instructions.size(); ++i) {
    const KernelInstruction &inst = code_.instructions[i];
    for (const Field &f : fieldsOf(inst.encoding, inst.words, inst.size, inst.mnemonic)) {
      const uint32_t value = f.get(inst.words);
      if (!fieldInClass(f, value, cls))
        continue;
      const std::vector<unsigned> bits = bitsToFlip(f, value, cls);
      bool used = false;
      for (unsigned bit : bits) {
        std::array<uint32_t, 4> words = inst.words;
        f.set(words, value ^ (1u << bit));
        const Decoded d = decodeAt(i, words);
        if (d.ok && d.opcodeName == inst.opcodeName && d.text != inst.text) {
          used = true;
          break;
        }
      }
      if (!used) {
        stats.unusedFieldSites += bits.size();
        continue;
      }
      for (unsigned bit : bits)
        sites.push_back({i, f, bit});
    }
  }
  stats.sites = sites.size();
  std::shuffle(sites.begin(), sites.end(), rng);
  for (const Site &site : sites) {
    if (out.size() >= count)
      break;
    const KernelInstruction &inst = code_.instructions[site.index];
    const uint32_t value = site.field.get(inst.words);
    std::array<uint32_t, 4> words = inst.words;
    site.field.set(words, value ^ (1u << site.bit));
    accept(site.index, words,
           fmt::format("{} bit {} (0x{:x} -> 0x{:x})", site.field.name, site.bit, value,
                       value ^ (1u << site.bit)),
           site.field, value, value ^ (1u << site.bit));
  }
  return out;
}

} // namespace mxf::mutation
