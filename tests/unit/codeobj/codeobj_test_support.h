//===- codeobj_test_support.h - Test code objects and tool outputs -*- C++ -*-===//
//
// The code objects tests/unit/codeobj/CMakeLists.txt builds from Inputs/,
// and readers for what the LLVM tools said about them at build time:
// llvm-objdump's listing, llc's "; Occupancy:" comments, llvm-readelf's
// decoding of the metadata note. Those are the independent facts the tests
// compare codeobj/ against.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_UNIT_CODEOBJ_CODEOBJ_TEST_SUPPORT_H
#define MXFORGE_TESTS_UNIT_CODEOBJ_CODEOBJ_TEST_SUPPORT_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mxf::codeobj::testing {

/// <build>/tests/unit/codeobj/hsaco/<name>.<extension>
std::string testFile(llvm::StringRef name, llvm::StringRef extension);

/// The whole file; fails the current test (and returns empty) if unreadable.
std::vector<uint8_t> readBytes(const std::string &path);
std::string readText(const std::string &path);

/// <name>.hsaco as bytes.
std::vector<uint8_t> loadHsaco(llvm::StringRef name);

/// One line of llvm-objdump -d: the instruction's address and its text
/// (mnemonic and operands, whitespace-normalized, comment dropped).
struct ObjdumpLine {
  uint64_t address = 0;
  std::string text;
};
/// Every instruction line of <name>.objdump, in order.
std::vector<ObjdumpLine> objdumpListing(llvm::StringRef name);

/// kernel name -> llc's "; Occupancy: N" from <name>.s.
std::map<std::string, unsigned> llcOccupancy(llvm::StringRef name);

/// Collapses runs of blanks to one space and trims.
std::string normalizeSpaces(llvm::StringRef text);

/// Copy of `bytes` with `from` replaced by `to` (same length) at its first
/// occurrence at or after `start`; fails the test if `from` is absent.
std::vector<uint8_t> replaceBytes(std::vector<uint8_t> bytes, llvm::StringRef from,
                                  llvm::StringRef to, size_t start = 0);

/// File offsets of a symbol's table entries (one per table that holds it:
/// .symtab and .dynsym), for tests that damage a symbol.
std::vector<size_t> symbolEntryOffsets(const std::vector<uint8_t> &elf, llvm::StringRef name);

/// The file offset of a symbol's bytes (its section's offset plus its
/// value's distance from the section's address).
size_t symbolFileOffset(const std::vector<uint8_t> &elf, llvm::StringRef name);

/// Little-endian stores into a byte buffer.
void store32(std::vector<uint8_t> &bytes, size_t offset, uint32_t value);
void store64(std::vector<uint8_t> &bytes, size_t offset, uint64_t value);

} // namespace mxf::codeobj::testing

#endif // MXFORGE_TESTS_UNIT_CODEOBJ_CODEOBJ_TEST_SUPPORT_H
