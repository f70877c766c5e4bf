//===- elf_symbols.cpp - Does a code object define a symbol? --------------===//
//
// ELF64 little-endian only, read field by field with memcpy (no alignment
// assumed). Offsets from <elf.h>'s Elf64_Ehdr, Elf64_Shdr and Elf64_Sym.
//
//===----------------------------------------------------------------------===//

#include "runtime/elf_symbols.h"

#include <cstring>
#include <elf.h>

namespace mxf {
namespace {

using Symbols = Result<std::vector<std::string>>;

/// `T` at `offset`, if `sizeof(T)` bytes fit there.
template <typename T> bool readAt(const uint8_t *data, size_t size, uint64_t offset, T &value) {
  if (offset > size || sizeof(T) > size - offset)
    return false;
  std::memcpy(&value, data + offset, sizeof(T));
  return true;
}

} // namespace

bool looksLikeElf64(const uint8_t *data, size_t size) {
  return size >= EI_NIDENT && std::memcmp(data, ELFMAG, SELFMAG) == 0 &&
         data[EI_CLASS] == ELFCLASS64 && data[EI_DATA] == ELFDATA2LSB;
}

Symbols definedElfSymbols(const uint8_t *data, size_t size) {
  if (!looksLikeElf64(data, size))
    return Symbols::failure("not a 64-bit little-endian ELF file");
  Elf64_Ehdr header;
  if (!readAt(data, size, 0, header))
    return Symbols::failure("the ELF header is cut short");
  if (header.e_shnum != 0 && header.e_shentsize != sizeof(Elf64_Shdr))
    return Symbols::failure("ELF section headers of " + std::to_string(header.e_shentsize) +
                            " bytes, expected " + std::to_string(sizeof(Elf64_Shdr)));
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  for (size_t i = 0; i < sections.size(); ++i)
    if (!readAt(data, size, header.e_shoff + i * sizeof(Elf64_Shdr), sections[i]))
      return Symbols::failure("ELF section header " + std::to_string(i) +
                              " lies outside the file");
  std::vector<std::string> names;
  for (const Elf64_Shdr &table : sections) {
    if (table.sh_type != SHT_SYMTAB && table.sh_type != SHT_DYNSYM)
      continue;
    if (table.sh_entsize != sizeof(Elf64_Sym) || table.sh_link >= sections.size())
      return Symbols::failure("an ELF symbol table with a bad entry size or string table");
    const Elf64_Shdr &strings = sections[table.sh_link];
    if (table.sh_offset > size || table.sh_size > size - table.sh_offset ||
        strings.sh_offset > size || strings.sh_size > size - strings.sh_offset)
      return Symbols::failure("an ELF symbol or string table lies outside the file");
    for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= table.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym symbol;
      (void)readAt(data, size, table.sh_offset + at, symbol); // inside: checked above
      if (symbol.st_shndx == SHN_UNDEF || symbol.st_name >= strings.sh_size)
        continue;
      const char *name = reinterpret_cast<const char *>(data + strings.sh_offset + symbol.st_name);
      // Names end at a NUL inside the string table, or are cut at its end.
      names.emplace_back(name, strnlen(name, size_t(strings.sh_size - symbol.st_name)));
    }
  }
  return names;
}

} // namespace mxf
