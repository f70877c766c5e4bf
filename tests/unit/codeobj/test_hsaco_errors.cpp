//===- test_hsaco_errors.cpp - Damaged code objects, named errors ---------===//
//
// Each test damages a valid code object in one known way and checks that
// readKernelInfos fails with a message that names what is wrong: not ELF,
// wrong class, endianness, OS ABI, version, machine or type, a damaged
// section table, a missing note, malformed msgpack, a missing or mistyped
// key, an argument outside the kernarg segment, and a descriptor or code
// range that does not fit the file.
//
//===----------------------------------------------------------------------===//

#include "codeobj/hsaco_reader.h"

#include "tests/unit/codeobj/codeobj_test_support.h"

#include "llvm/BinaryFormat/ELF.h"

#include <gtest/gtest.h>

#include <string>

namespace mxf::codeobj {
namespace {

using namespace mxf::codeobj::testing;

/// Fails the test unless reading `bytes` fails with every one of `needles`
/// in its message.
void expectError(const std::vector<uint8_t> &bytes, std::initializer_list<const char *> needles) {
  Result<std::vector<KernelInfo>> infos = readKernelInfos(bytes);
  ASSERT_FALSE(infos.ok()) << "damaged input was accepted";
  EXPECT_FALSE(infos.error().empty());
  for (const char *needle : needles)
    EXPECT_NE(infos.error().find(needle), std::string::npos)
        << "message: " << infos.error() << "\nexpected to contain: " << needle;
}

std::vector<uint8_t> valid() { return loadHsaco("mfma_cvt"); }

/// Offset of the metadata note's name ("AMDGPU\0"): its type word is 4
/// bytes before, its descriptor size 8 bytes before.
size_t noteNameOffset(const std::vector<uint8_t> &bytes) {
  std::string text(bytes.begin(), bytes.end());
  size_t at = text.find(std::string("AMDGPU\0", 7));
  EXPECT_NE(at, std::string::npos);
  EXPECT_EQ(bytes[at - 4], llvm::ELF::NT_AMDGPU_METADATA);
  return at;
}

TEST(HsacoErrors, TheValidOneReads) { ASSERT_TRUE(readKernelInfos(valid()).ok()); }

TEST(HsacoErrors, NotElf) {
  expectError({}, {"not an ELF file"});
  std::string text = "rotate_quant:K=4096\n";
  expectError(std::vector<uint8_t>(text.begin(), text.end()), {"not an ELF file"});
}

TEST(HsacoErrors, WrongIdent) {
  std::vector<uint8_t> bytes = valid();
  bytes[llvm::ELF::EI_CLASS] = llvm::ELF::ELFCLASS32;
  expectError(bytes, {"not 64-bit"});
  bytes = valid();
  bytes[llvm::ELF::EI_DATA] = llvm::ELF::ELFDATA2MSB;
  expectError(bytes, {"little-endian"});
  bytes = valid();
  bytes[llvm::ELF::EI_OSABI] = llvm::ELF::ELFOSABI_NONE;
  expectError(bytes, {"OS ABI is 0", "not an HSA code object"});
}

TEST(HsacoErrors, UnsupportedCodeObjectVersion) {
  std::vector<uint8_t> bytes = valid();
  bytes[llvm::ELF::EI_ABIVERSION] = llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V4;
  expectError(bytes, {"code object version 4", "ELF ABI version 2", "v5", "v6"});
}

TEST(HsacoErrors, WrongMachine) {
  std::vector<uint8_t> bytes = valid();
  bytes[18] = llvm::ELF::EM_X86_64; // e_machine, little-endian half at +18
  bytes[19] = 0;
  expectError(bytes, {"ELF machine is 62", "not AMDGPU"});
}

TEST(HsacoErrors, RelocatableObjectIsNotLinked) {
  // llc's output before ld.lld: relocations still unapplied.
  expectError(readBytes(testFile("mfma_cvt", "o")), {"relocatable", "ld.lld -shared"});
}

TEST(HsacoErrors, TruncatedAfterTheHeader) {
  std::vector<uint8_t> bytes = valid();
  bytes.resize(64);
  expectError(bytes, {"section"});
  bytes.resize(40); // shorter than an ELF header
  expectError(bytes, {"malformed ELF"});
}

TEST(HsacoErrors, NoMetadataNote) {
  std::vector<uint8_t> bytes = valid();
  bytes[noteNameOffset(bytes) - 4] = llvm::ELF::NT_AMDGPU_METADATA + 1;
  expectError(bytes, {"no NT_AMDGPU_METADATA note"});
}

TEST(HsacoErrors, TruncatedMsgpack) {
  std::vector<uint8_t> bytes = valid();
  store32(bytes, noteNameOffset(bytes) - 8, 40); // n_descsz: 40 bytes of the map
  expectError(bytes, {"metadata note", "msgpack"});
}

TEST(HsacoErrors, MissingRequiredKey) {
  std::vector<uint8_t> bytes = replaceBytes(valid(), ".vgpr_count", ".vgpr_coun!");
  expectError(bytes, {"amdhsa.kernels[", "'.vgpr_count' is missing"});
}

// Hand-assembled code objects (AITER's shipped .co files) name their target
// only in the ELF header: the reader takes it from e_flags, and only there.
TEST(HsacoErrors, AMissingTargetComesFromTheElfHeader) {
  std::vector<uint8_t> bytes = replaceBytes(valid(), "amdhsa.target", "amdhsa.targe!");
  Result<CodeObjectImage> image = readCodeObject(bytes);
  ASSERT_TRUE(image.ok()) << image.error();
  Result<CodeObjectImage> original = readCodeObject(valid());
  ASSERT_TRUE(original.ok());
  EXPECT_EQ(image.value().target, original.value().target) << "e_flags spell the note's target";
  for (const KernelImage &kernel : image.value().kernels)
    EXPECT_EQ(kernel.info.target, image.value().target);
  constexpr size_t kEFlags = 48; // Elf64_Ehdr::e_flags
  store32(bytes, kEFlags, llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX942);
  expectError(bytes, {"'amdhsa.target' is missing", "not gfx950"});
}

TEST(HsacoErrors, WrongValueType) {
  // ".wavefront_size" then positive fixint 64 (0x40); 0xc0 is nil.
  std::vector<uint8_t> bytes = replaceBytes(valid(), llvm::StringRef(".wavefront_size\x40", 16),
                                            llvm::StringRef(".wavefront_size\xc0", 16));
  expectError(bytes, {"'.wavefront_size' is nil, expected an unsigned integer"});
}

TEST(HsacoErrors, DuplicateKey) {
  std::vector<uint8_t> bytes = replaceBytes(valid(), ".sgpr_count", ".vgpr_count");
  expectError(bytes, {"metadata note", "duplicate key"});
}

TEST(HsacoErrors, NonStringMapKey) {
  // The fixstr header of a key (0xab: 11 bytes) becomes an empty map, a key
  // that llvm::msgpack::Document cannot order.
  std::vector<uint8_t> bytes = replaceBytes(valid(), "\xab.vgpr_count", "\x80.vgpr_count");
  expectError(bytes, {"map key", "not a string"});
}

TEST(HsacoErrors, ArgumentOutsideTheKernargSegment) {
  // .kernarg_segment_size 288 is uint16 0xcd 0x01 0x20; make it 16.
  std::vector<uint8_t> bytes =
      replaceBytes(valid(), llvm::StringRef(".kernarg_segment_size\xcd\x01\x20", 24),
                   llvm::StringRef(".kernarg_segment_size\xcd\x00\x10", 24));
  expectError(bytes, {".args[", "runs past the 16-byte kernarg segment"});
}

TEST(HsacoErrors, DescriptorOutsideItsSection) {
  std::vector<uint8_t> bytes = valid();
  for (size_t entry : symbolEntryOffsets(bytes, "mfma_cvt.kd"))
    store64(bytes, entry + 8, 0x7fff0000); // st_value
  expectError(bytes, {"kernel 'mfma_cvt'", "descriptor", "lies outside"});
}

TEST(HsacoErrors, DescriptorOfTheWrongSize) {
  std::vector<uint8_t> bytes = valid();
  for (size_t entry : symbolEntryOffsets(bytes, "mfma_cvt.kd"))
    store64(bytes, entry + 16, 32); // st_size
  expectError(bytes, {"is 32 bytes, expected 64"});
}

TEST(HsacoErrors, MissingDescriptorSymbol) {
  // The first "mfma_cvt.kd" is the note's .symbol; the next two are the
  // names in .dynstr and .strtab.
  std::vector<uint8_t> bytes = valid();
  std::string text(bytes.begin(), bytes.end());
  const size_t inNote = text.find("mfma_cvt.kd");
  bytes = replaceBytes(bytes, "mfma_cvt.kd", "mfma_cvt.kX", inNote + 1);
  bytes = replaceBytes(bytes, "mfma_cvt.kd", "mfma_cvt.kX", inNote + 1);
  expectError(bytes, {"no defined symbol 'mfma_cvt.kd'"});
}

TEST(HsacoErrors, DescriptorDisagreesWithTheNote) {
  std::vector<uint8_t> bytes = valid();
  store32(bytes, symbolFileOffset(bytes, "mfma_cvt.kd") + 0, 4096); // group segment size
  expectError(bytes, {"group segment size (4096) differs from the metadata's (0)"});
}

TEST(HsacoErrors, CodeEntryOffByFour) {
  std::vector<uint8_t> bytes = valid();
  const size_t kd = symbolFileOffset(bytes, "mfma_cvt.kd");
  uint64_t entry = 0;
  for (int i = 0; i < 8; ++i)
    entry |= uint64_t(bytes[kd + 16 + i]) << (8 * i);
  store64(bytes, kd + 16, entry + 4);
  expectError(bytes, {"code entry", "is not the start of function 'mfma_cvt'"});
  store64(bytes, kd + 16, 0x8000000000000000ull); // wraps: no section there
  expectError(bytes, {"kernel 'mfma_cvt'"});
}

TEST(HsacoErrors, KernelSymbolIsNotAFunction) {
  std::vector<uint8_t> bytes = valid();
  for (size_t entry : symbolEntryOffsets(bytes, "mfma_cvt"))
    bytes[entry + 4] = (bytes[entry + 4] & 0xf0) | llvm::ELF::STT_OBJECT; // st_info
  expectError(bytes, {"is not a function"});
}

} // namespace
} // namespace mxf::codeobj
