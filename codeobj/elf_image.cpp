//===- elf_image.cpp - A checked view of an AMDGPU HSA code object --------===//

#include "codeobj/elf_image.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

namespace mxf::codeobj {

namespace ELF = llvm::ELF;

namespace {

std::string hex(uint64_t value) { return "0x" + llvm::utohexstr(value); }

template <typename T> Result<T> fail(const llvm::Twine &message) {
  return Result<T>::failure(message.str());
}

/// The header checks that give a specific message; everything after them
/// (section table, string tables) is checked by ELFFile itself.
Status checkIdent(llvm::ArrayRef<uint8_t> bytes) {
  if (bytes.size() < ELF::EI_NIDENT || bytes[ELF::EI_MAG0] != ELF::ElfMagic[0] ||
      bytes[ELF::EI_MAG1] != ELF::ElfMagic[1] || bytes[ELF::EI_MAG2] != ELF::ElfMagic[2] ||
      bytes[ELF::EI_MAG3] != ELF::ElfMagic[3])
    return Status::failure("not an ELF file (no \\x7fELF magic at the start)");
  if (bytes[ELF::EI_CLASS] != ELF::ELFCLASS64)
    return Status::failure("ELF class is " + std::to_string(bytes[ELF::EI_CLASS]) +
                           ", not 64-bit (ELFCLASS64): AMDGPU code objects are 64-bit");
  if (bytes[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return Status::failure("ELF data encoding is " + std::to_string(bytes[ELF::EI_DATA]) +
                           ", not little-endian: AMDGPU code objects are little-endian");
  if (bytes[ELF::EI_OSABI] != ELF::ELFOSABI_AMDGPU_HSA)
    return Status::failure("ELF OS ABI is " + std::to_string(bytes[ELF::EI_OSABI]) +
                           ", not AMDGPU HSA (64): not an HSA code object");
  return Status::success();
}

/// ELF ABI version -> code object version; v5 (ABI 3) and v6 (ABI 4) are the
/// versions LLVM 22 writes (v6 is its default), and the only ones whose
/// metadata layout (hidden arguments, target ID) this reader knows.
Result<unsigned> codeObjectVersionOf(uint8_t abiVersion) {
  switch (abiVersion) {
  case ELF::ELFABIVERSION_AMDGPU_HSA_V5:
    return 5u;
  case ELF::ELFABIVERSION_AMDGPU_HSA_V6:
    return 6u;
  default:
    // unsigned: a uint8_t would print as a character.
    return fail<unsigned>("code object version " + llvm::Twine(unsigned(abiVersion) + 2) +
                          " (ELF ABI version " + llvm::Twine(unsigned(abiVersion)) +
                          ") is not supported; mxforge reads v5 (ABI 3) and v6 (ABI 4)");
  }
}

bool isDefined(const llvm::object::ELF64LE::Sym &symbol) {
  return symbol.st_shndx != ELF::SHN_UNDEF && symbol.st_shndx < ELF::SHN_LORESERVE;
}

} // namespace

Result<ElfImage> ElfImage::open(llvm::ArrayRef<uint8_t> bytes) {
  if (Status ident = checkIdent(bytes); !ident.ok())
    return ident;
  llvm::StringRef data(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  auto object = llvm::object::ELF64LEObjectFile::create(llvm::MemoryBufferRef(data, "hsaco"));
  if (!object)
    return fail<ElfImage>("malformed ELF: " + llvm::toString(object.takeError()));
  ElfImage image(std::make_unique<llvm::object::ELF64LEObjectFile>(std::move(*object)));

  const auto &header = image.elf().getHeader();
  if (header.e_machine != ELF::EM_AMDGPU)
    return fail<ElfImage>("ELF machine is " + llvm::Twine(unsigned(header.e_machine)) +
                          ", not AMDGPU (EM_AMDGPU = 224)");
  if (header.e_type != ELF::ET_DYN)
    return fail<ElfImage>("ELF type is " + llvm::Twine(unsigned(header.e_type)) +
                          (header.e_type == ELF::ET_REL ? " (a relocatable object)" : "") +
                          ", not a linked code object (ET_DYN): link it first with ld.lld -shared");
  Result<unsigned> version = codeObjectVersionOf(header.e_ident[ELF::EI_ABIVERSION]);
  if (!version.ok())
    return version.status();
  image.codeObjectVersion_ = version.value();
  image.machine_ = header.e_flags & ELF::EF_AMDGPU_MACH;
  image.flags_ = header.e_flags;
  // Fail now on a damaged section table, so later lookups can name what
  // they miss rather than repeat a table error.
  if (auto sections = image.elf().sections(); !sections)
    return fail<ElfImage>("malformed ELF section table: " + llvm::toString(sections.takeError()));
  return image;
}

std::string ElfImage::targetFromFlags() const {
  if (machine_ != ELF::EF_AMDGPU_MACH_AMDGCN_GFX950)
    return "";
  // Code object v4+ feature fields: "any" leaves the feature out of the ID.
  std::string target = "amdgcn-amd-amdhsa--gfx950";
  switch (flags_ & ELF::EF_AMDGPU_FEATURE_SRAMECC_V4) {
  case ELF::EF_AMDGPU_FEATURE_SRAMECC_ON_V4: target += ":sramecc+"; break;
  case ELF::EF_AMDGPU_FEATURE_SRAMECC_OFF_V4: target += ":sramecc-"; break;
  default: break;
  }
  switch (flags_ & ELF::EF_AMDGPU_FEATURE_XNACK_V4) {
  case ELF::EF_AMDGPU_FEATURE_XNACK_ON_V4: target += ":xnack+"; break;
  case ELF::EF_AMDGPU_FEATURE_XNACK_OFF_V4: target += ":xnack-"; break;
  default: break;
  }
  return target;
}

Result<std::optional<llvm::ArrayRef<uint8_t>>> ElfImage::sectionNamed(llvm::StringRef name) const {
  using R = Result<std::optional<llvm::ArrayRef<uint8_t>>>;
  auto sections = elf().sections();
  if (!sections)
    return R::failure(llvm::toString(sections.takeError()));
  for (const Shdr &section : *sections) {
    auto sectionName = elf().getSectionName(section);
    if (!sectionName)
      return R::failure("malformed section name: " + llvm::toString(sectionName.takeError()));
    if (*sectionName != name)
      continue;
    auto contents = elf().getSectionContents(section);
    if (!contents)
      return R::failure("section " + name.str() + " lies outside the file: " +
                        llvm::toString(contents.takeError()));
    return std::optional<llvm::ArrayRef<uint8_t>>(*contents);
  }
  return std::optional<llvm::ArrayRef<uint8_t>>();
}

Result<llvm::StringRef> ElfImage::metadataNote() const {
  auto sections = elf().sections();
  if (!sections)
    return fail<llvm::StringRef>(llvm::toString(sections.takeError()));
  for (const Shdr &section : *sections) {
    if (section.sh_type != ELF::SHT_NOTE)
      continue;
    // Note headers are 4-byte words; LLVM checks the note's bounds but not
    // the section's alignment.
    if (section.sh_offset % 4 != 0)
      return fail<llvm::StringRef>("note section at file offset " + hex(section.sh_offset) +
                                   " is not 4-byte aligned");
    llvm::Error error = llvm::Error::success();
    for (const auto &note : elf().notes(section, error)) {
      if (note.getName() != "AMDGPU" || note.getType() != ELF::NT_AMDGPU_METADATA)
        continue;
      // Stop iterating before returning: the Error must be checked.
      llvm::ArrayRef<uint8_t> desc = note.getDesc(section.sh_addralign > 4 ? 8 : 4);
      llvm::consumeError(std::move(error));
      return llvm::StringRef(reinterpret_cast<const char *>(desc.data()), desc.size());
    }
    if (error)
      return fail<llvm::StringRef>("malformed note section: " + llvm::toString(std::move(error)));
  }
  return fail<llvm::StringRef>("no NT_AMDGPU_METADATA note (owner AMDGPU, type 32): "
                               "the code object has no kernel metadata");
}

Result<SymbolBytes> ElfImage::symbolBytes(const Sym &symbol, llvm::StringRef name) const {
  SymbolBytes found;
  found.name = name.str();
  found.address = symbol.st_value;
  found.size = symbol.st_size;
  found.type = symbol.getType();
  auto section = elf().getSection(symbol.st_shndx);
  if (!section)
    return fail<SymbolBytes>("symbol '" + name + "': " + llvm::toString(section.takeError()));
  const Shdr &sec = **section;
  const uint64_t start = sec.sh_addr, end = sec.sh_addr + sec.sh_size;
  if (sec.sh_type == ELF::SHT_NOBITS || end < start || symbol.st_value < start ||
      symbol.st_value > end || symbol.st_size > end - symbol.st_value)
    return fail<SymbolBytes>(
        "symbol '" + name + "' [" + hex(symbol.st_value) + ", +" + llvm::Twine(symbol.st_size) +
        ") lies outside the contents of its section [" + hex(start) + ", " + hex(end) + ")");
  auto contents = elf().getSectionContents(sec);
  if (!contents)
    return fail<SymbolBytes>("symbol '" + name + "': " + llvm::toString(contents.takeError()));
  found.bytes = contents->slice(symbol.st_value - start, symbol.st_size);
  return found;
}

template <typename Match>
Result<SymbolBytes> ElfImage::findSymbolIf(Match match, const std::string &what) const {
  auto sections = elf().sections();
  if (!sections)
    return fail<SymbolBytes>(llvm::toString(sections.takeError()));
  // .symtab first: it is the complete table; a stripped object keeps only
  // .dynsym, which still holds the kernels and their descriptors.
  for (unsigned type : {ELF::SHT_SYMTAB, ELF::SHT_DYNSYM}) {
    for (const Shdr &section : *sections) {
      if (section.sh_type != type)
        continue;
      auto symbols = elf().symbols(&section);
      if (!symbols)
        return fail<SymbolBytes>("malformed symbol table: " + llvm::toString(symbols.takeError()));
      auto strings = elf().getStringTableForSymtab(section, *sections);
      if (!strings)
        return fail<SymbolBytes>("malformed symbol table: " + llvm::toString(strings.takeError()));
      for (const Sym &symbol : symbols->drop_front(symbols->empty() ? 0 : 1)) {
        auto name = symbol.getName(*strings);
        if (!name)
          return fail<SymbolBytes>("malformed symbol name: " + llvm::toString(name.takeError()));
        if (isDefined(symbol) && match(symbol, *name))
          return symbolBytes(symbol, *name);
      }
    }
  }
  return fail<SymbolBytes>("no defined symbol " + what);
}

Result<SymbolBytes> ElfImage::findSymbol(llvm::StringRef name) const {
  return findSymbolIf([&](const Sym &, llvm::StringRef candidate) { return candidate == name; },
                      "'" + name.str() + "'");
}

Result<SymbolBytes> ElfImage::findFunctionAt(uint64_t address) const {
  return findSymbolIf(
      [&](const Sym &symbol, llvm::StringRef) {
        return symbol.getType() == ELF::STT_FUNC && symbol.st_value == address;
      },
      "of type FUNC at " + hex(address));
}

Result<llvm::ArrayRef<uint8_t>> ElfImage::bytesToSectionEnd(uint64_t address, bool code) const {
  return bytesAt(address, UINT64_MAX, code, /*toSectionEnd=*/true);
}

Result<llvm::ArrayRef<uint8_t>> ElfImage::bytesAt(uint64_t address, uint64_t size,
                                                  bool code, bool toSectionEnd) const {
  auto sections = elf().sections();
  if (!sections)
    return fail<llvm::ArrayRef<uint8_t>>(llvm::toString(sections.takeError()));
  for (const Shdr &section : *sections) {
    const uint64_t start = section.sh_addr, end = section.sh_addr + section.sh_size;
    if (!(section.sh_flags & ELF::SHF_ALLOC) || section.sh_type == ELF::SHT_NOBITS || end < start ||
        address < start || address >= end)
      continue;
    if (code && !(section.sh_flags & ELF::SHF_EXECINSTR))
      return fail<llvm::ArrayRef<uint8_t>>("address " + hex(address) +
                                           " is in a section that is not executable");
    if (toSectionEnd)
      size = end - address;
    if (size > end - address)
      return fail<llvm::ArrayRef<uint8_t>>("[" + hex(address) + ", +" + llvm::Twine(size) +
                                           ") runs past the end of its section at " + hex(end));
    auto contents = elf().getSectionContents(section);
    if (!contents)
      return fail<llvm::ArrayRef<uint8_t>>(llvm::toString(contents.takeError()));
    return contents->slice(address - start, size);
  }
  return fail<llvm::ArrayRef<uint8_t>>("address " + hex(address) +
                                       " is not inside any loaded section");
}

} // namespace mxf::codeobj
