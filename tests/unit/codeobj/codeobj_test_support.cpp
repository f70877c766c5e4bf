//===- codeobj_test_support.cpp - Test code objects and tool outputs ------===//

#include "tests/unit/codeobj/codeobj_test_support.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

namespace mxf::codeobj::testing {

std::string testFile(llvm::StringRef name, llvm::StringRef extension) {
  return std::string(MXFORGE_CODEOBJ_TEST_DIR) + "/" + name.str() + "." + extension.str();
}

std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path << " (build target codeobj_test_inputs)";
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string readText(const std::string &path) {
  std::vector<uint8_t> bytes = readBytes(path);
  return std::string(bytes.begin(), bytes.end());
}

std::vector<uint8_t> loadHsaco(llvm::StringRef name) { return readBytes(testFile(name, "hsaco")); }

std::string normalizeSpaces(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef, 8> words;
  text.split(words, ' ', -1, /*KeepEmpty=*/false);
  std::string out;
  for (llvm::StringRef word : words) {
    word = word.trim();
    if (word.empty())
      continue;
    if (!out.empty())
      out += ' ';
    out += word.str();
  }
  return out;
}

std::vector<ObjdumpLine> objdumpListing(llvm::StringRef name) {
  // Lines look like "\ts_endpgm   // 000000001A74: BF810000" (a branch adds
  // " <kernel+0x10>" after the encoding).
  std::vector<ObjdumpLine> lines;
  std::istringstream in(readText(testFile(name, "objdump")));
  std::string line;
  while (std::getline(in, line)) {
    llvm::StringRef text(line);
    if (!text.starts_with("\t"))
      continue;
    auto [instruction, comment] = text.split("//");
    llvm::StringRef addressText = comment.trim().split(':').first;
    uint64_t address = 0;
    if (addressText.getAsInteger(16, address))
      continue;
    std::string normalized = instruction.str();
    std::replace(normalized.begin(), normalized.end(), '\t', ' ');
    lines.push_back({address, normalizeSpaces(normalized)});
  }
  return lines;
}

std::map<std::string, unsigned> llcOccupancy(llvm::StringRef name) {
  std::map<std::string, unsigned> occupancy;
  std::istringstream in(readText(testFile(name, "s")));
  std::string line, kernel;
  while (std::getline(in, line)) {
    llvm::StringRef text(line);
    // "mfma_cvt:                               ; @mfma_cvt"
    if (!text.empty() && (llvm::isAlpha(text[0]) || text[0] == '_') && text.contains(": ") &&
        text.contains("; @"))
      kernel = text.split(':').first.str();
    unsigned waves = 0;
    if (text.consume_front("; Occupancy: ") && !text.trim().getAsInteger(10, waves))
      occupancy[kernel] = waves;
  }
  return occupancy;
}

std::vector<uint8_t> replaceBytes(std::vector<uint8_t> bytes, llvm::StringRef from,
                                  llvm::StringRef to, size_t start) {
  EXPECT_EQ(from.size(), to.size());
  llvm::StringRef haystack(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  size_t at = haystack.find(from, start);
  EXPECT_NE(at, llvm::StringRef::npos) << "'" << from.str() << "' not in the file";
  if (at != llvm::StringRef::npos)
    std::copy(to.begin(), to.end(), bytes.begin() + at);
  return bytes;
}

std::vector<size_t> symbolEntryOffsets(const std::vector<uint8_t> &elf, llvm::StringRef name) {
  using ELFT = llvm::object::ELF64LE;
  std::vector<size_t> offsets;
  auto file = llvm::object::ELFFile<ELFT>::create(
      llvm::StringRef(reinterpret_cast<const char *>(elf.data()), elf.size()));
  if (!file) {
    ADD_FAILURE() << llvm::toString(file.takeError());
    return offsets;
  }
  auto sections = llvm::cantFail(file->sections());
  for (const ELFT::Shdr &section : sections) {
    if (section.sh_type != llvm::ELF::SHT_SYMTAB && section.sh_type != llvm::ELF::SHT_DYNSYM)
      continue;
    auto symbols = llvm::cantFail(file->symbols(&section));
    llvm::StringRef strings = llvm::cantFail(file->getStringTableForSymtab(section, sections));
    for (size_t i = 0; i < symbols.size(); ++i)
      if (llvm::cantFail(symbols[i].getName(strings)) == name)
        offsets.push_back(section.sh_offset + i * sizeof(ELFT::Sym));
  }
  return offsets;
}

size_t symbolFileOffset(const std::vector<uint8_t> &elf, llvm::StringRef name) {
  using ELFT = llvm::object::ELF64LE;
  auto file = llvm::cantFail(llvm::object::ELFFile<ELFT>::create(
      llvm::StringRef(reinterpret_cast<const char *>(elf.data()), elf.size())));
  auto sections = llvm::cantFail(file.sections());
  std::vector<size_t> entries = symbolEntryOffsets(elf, name);
  if (entries.empty()) {
    ADD_FAILURE() << "no symbol " << name.str();
    return 0;
  }
  const auto *symbol = reinterpret_cast<const ELFT::Sym *>(elf.data() + entries[0]);
  const ELFT::Shdr &section = sections[symbol->st_shndx];
  return section.sh_offset + (symbol->st_value - section.sh_addr);
}

void store32(std::vector<uint8_t> &bytes, size_t offset, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes[offset + i] = static_cast<uint8_t>(value >> (8 * i));
}

void store64(std::vector<uint8_t> &bytes, size_t offset, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    bytes[offset + i] = static_cast<uint8_t>(value >> (8 * i));
}

} // namespace mxf::codeobj::testing
