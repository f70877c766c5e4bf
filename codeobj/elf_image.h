//===- elf_image.h - A checked view of an AMDGPU HSA code object -*- C++ -*-===//
//
// Opens a linked AMDGPU code object (HSACO) for reading: checks the ELF header
// (64-bit little-endian, EM_AMDGPU, HSA OS ABI, code object v5/v6, linked),
// and finds symbols, the bytes at an address and the metadata note.
//
// The bundle loader will feed this fuzzed and truncated data, so everything
// here goes through the Expected-returning ELFFile API: ELFObjectFile's own
// symbol accessors call report_fatal_error on a damaged symbol table.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_CODEOBJ_ELF_IMAGE_H
#define MXFORGE_CODEOBJ_ELF_IMAGE_H

#include "support/status.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Object/ELFObjectFile.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace mxf::codeobj {

/// A defined symbol and the file bytes it covers.
struct SymbolBytes {
  std::string name;
  uint64_t address = 0;          // st_value: a virtual address in a linked object
  uint64_t size = 0;             // st_size
  uint8_t type = 0;              // STT_FUNC, STT_OBJECT, ...
  llvm::ArrayRef<uint8_t> bytes; // [address, address + size) in the file
};

class ElfImage {
public:
  /// Checks the header and the section table. `bytes` must outlive the image.
  static Result<ElfImage> open(llvm::ArrayRef<uint8_t> bytes);

  /// 5 or 6, from the ELF ABI version (3 -> v5, 4 -> v6).
  unsigned codeObjectVersion() const { return codeObjectVersion_; }
  /// EF_AMDGPU_MACH_* of e_flags (0x04f for gfx950).
  unsigned machine() const { return machine_; }
  /// The target ID the header's e_flags spell (machine, then the xnack and
  /// sramecc settings where they are on or off), for code objects whose
  /// metadata note names none; empty for a machine other than gfx950.
  std::string targetFromFlags() const;

  /// The file bytes of the section named `name`, or an empty optional when
  /// there is none (the first one if the name repeats).
  Result<std::optional<llvm::ArrayRef<uint8_t>>> sectionNamed(llvm::StringRef name) const;

  /// The descriptor (payload) of the first NT_AMDGPU_METADATA note.
  Result<llvm::StringRef> metadataNote() const;

  /// A defined symbol named `name`, from .symtab or else .dynsym, with its
  /// whole [st_value, st_value + st_size) inside one section's file bytes.
  Result<SymbolBytes> findSymbol(llvm::StringRef name) const;

  /// The defined function symbol whose value is `address`, if any.
  Result<SymbolBytes> findFunctionAt(uint64_t address) const;

  /// The file bytes of [address, address + size), which must lie inside one
  /// allocated section with contents (executable if `code`).
  Result<llvm::ArrayRef<uint8_t>> bytesAt(uint64_t address, uint64_t size, bool code,
                                          bool toSectionEnd = false) const;
  /// The file bytes from `address` to the end of the section holding it.
  Result<llvm::ArrayRef<uint8_t>> bytesToSectionEnd(uint64_t address, bool code) const;

private:
  using ElfFile = llvm::object::ELFFile<llvm::object::ELF64LE>;
  using Shdr = llvm::object::ELF64LE::Shdr;
  using Sym = llvm::object::ELF64LE::Sym;

  explicit ElfImage(std::unique_ptr<llvm::object::ELF64LEObjectFile> object)
      : object_(std::move(object)) {}
  const ElfFile &elf() const { return object_->getELFFile(); }
  /// Looks through .symtab, then .dynsym; `match` picks the symbol.
  template <typename Match>
  Result<SymbolBytes> findSymbolIf(Match match, const std::string &what) const;
  Result<SymbolBytes> symbolBytes(const Sym &symbol, llvm::StringRef name) const;

  std::unique_ptr<llvm::object::ELF64LEObjectFile> object_;
  unsigned codeObjectVersion_ = 0;
  unsigned machine_ = 0;
  unsigned flags_ = 0; // e_flags
};

} // namespace mxf::codeobj

#endif // MXFORGE_CODEOBJ_ELF_IMAGE_H
