//===- opcode_table.cpp - Mnemonic -> semantics, and LLVM opcodes ---------===//

#include "emulator/opcode_table.h"

#include "codeobj/instruction_families.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

namespace mxf::emu {

namespace {

Family familyOf(llvm::StringRef mnemonic) {
  switch (codeobj::classifyMnemonic(mnemonic)) {
  case codeobj::InstructionFamily::Salu: return Family::Salu;
  case codeobj::InstructionFamily::Valu: return Family::Valu;
  case codeobj::InstructionFamily::Vmem: return Family::Vmem;
  case codeobj::InstructionFamily::Scratch: return Family::Vmem;
  case codeobj::InstructionFamily::Smem: return Family::Smem;
  case codeobj::InstructionFamily::Lds: return Family::Lds;
  case codeobj::InstructionFamily::Mfma: return Family::Mfma;
  case codeobj::InstructionFamily::CvtScaled: return Family::CvtScaled;
  case codeobj::InstructionFamily::Branch: return Family::Branch;
  case codeobj::InstructionFamily::Other: return Family::Other;
  }
  return Family::Other;
}

bool hasLowercase(llvm::StringRef token) {
  return llvm::any_of(token, [](char c) { return c >= 'a' && c <= 'z'; });
}

/// Uppercase tokens LLVM appends for addressing variants of one mnemonic.
bool isAddressingTag(llvm::StringRef token) {
  return token == "IMM" || token == "SGPR" || token == "SADDR" || token == "OFFSET" ||
         token == "OFFEN" || token == "IDXEN" || token == "BOTHEN" || token == "ADDR64" ||
         token == "RTN" || token == "SVS" || token == "ST" ||
         token == "LDS"; // BUFFER_LOAD_DWORD_LDS_*: the lds bit is in the encoding
}

} // namespace

void OpRegistry::add(llvm::StringRef mnemonic, Handler handler) {
  auto info = std::make_unique<OpInfo>();
  info->handler = handler;
  info->family = familyOf(mnemonic);
  auto &slot = ops_[mnemonic];
  slot = std::move(info);
  slot->mnemonic = ops_.find(mnemonic)->getKeyData(); // the map owns the string
}

const OpInfo *OpRegistry::find(llvm::StringRef mnemonic) const {
  auto it = ops_.find(mnemonic);
  return it == ops_.end() ? nullptr : it->second.get();
}

std::vector<std::string> OpRegistry::mnemonics() const {
  std::vector<std::string> names;
  for (const auto &entry : ops_)
    names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  return names;
}

const OpRegistry &opRegistry() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    registerSalu(r);
    registerSopp(r);
    registerSmem(r);
    registerValu(r);
    registerValuFloat(r);
    registerValuCmp(r);
    registerValuPacked(r);
    registerVmem(r);
    registerMubuf(r);
    registerLds(r);
    registerMfma(r);
    registerCvtScaled(r);
    registerPermlane(r);
    registerSwizzle(r);
    registerHwReg(r);
    return r;
  }();
  return registry;
}

std::string baseMnemonic(llvm::StringRef opcodeName) {
  llvm::SmallVector<llvm::StringRef, 8> tokens;
  opcodeName.split(tokens, '_');
  // Variant suffixes first (lowercase), then addressing tags (uppercase).
  while (tokens.size() > 1 && hasLowercase(tokens.back()))
    tokens.pop_back();
  while (tokens.size() > 1 && isAddressingTag(tokens.back()))
    tokens.pop_back();
  return llvm::StringRef(llvm::join(tokens, "_")).lower();
}

std::string basePrintedMnemonic(llvm::StringRef printed) {
  for (llvm::StringRef suffix : {"_e32", "_e64", "_sdwa", "_dpp"})
    if (printed.ends_with(suffix))
      return printed.drop_back(suffix.size()).str();
  return printed.str();
}

} // namespace mxf::emu
