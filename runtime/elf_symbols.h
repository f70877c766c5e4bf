//===- elf_symbols.h - Does a code object define a symbol? --------*- C++ -*-===//
//
// The one question the bundle loader asks of a code object's ELF, answered
// without LLVM (the runtime links none): which kernel symbols it defines. A
// bundle entry names its kernel in the manifest; the code object must define
// that kernel's descriptor (`<name>.kd`, what hipModuleGetFunction resolves),
// or the entry would launch code that is not the kernel it names.
//
// Bounds-checked against the buffer throughout: a damaged ELF is an error
// message, never a read outside it.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_ELF_SYMBOLS_H
#define MXFORGE_RUNTIME_ELF_SYMBOLS_H

#include "support/status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mxf {

/// True if `data` starts like a 64-bit little-endian ELF file (the only kind
/// a gfx950 code object is).
bool looksLikeElf64(const uint8_t *data, size_t size);

/// The names of the symbols `data` defines (section index not SHN_UNDEF) in
/// its .symtab and .dynsym, in file order. Fails, saying what is wrong, when
/// the header, the section table or a symbol table lies outside the bytes.
Result<std::vector<std::string>> definedElfSymbols(const uint8_t *data, size_t size);

} // namespace mxf

#endif // MXFORGE_RUNTIME_ELF_SYMBOLS_H
