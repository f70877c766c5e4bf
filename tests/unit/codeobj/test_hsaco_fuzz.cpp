//===- test_hsaco_fuzz.cpp - Damaged code objects never crash -------------===//
//
// The bundle loader will hand codeobj/ whatever is on disk. 20,000 mutants of
// valid code objects (truncations, bit flips, overwritten words, biased
// towards the ELF header, section and symbol tables, the note and the
// descriptors, where parsing decisions are made) go through every entry
// point: each must succeed or fail with a message, never crash, and never
// read outside its input. Each mutant lives in a buffer of exactly its size
// so that AddressSanitizer (the MXFORGE_SANITIZE build) sees any over-read.
// The seed is printed; MXFORGE_TEST_SEED replays a run.
//
//===----------------------------------------------------------------------===//

#include "codeobj/hsaco_reader.h"
#include "codeobj/kernel_summary.h"

#include "tests/unit/codeobj/codeobj_test_support.h"
#include "tests/unit/test_seed.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"

#include <gtest/gtest.h>

#include <memory>

namespace mxf::codeobj {
namespace {

using namespace mxf::codeobj::testing;

constexpr int kMutants = 20000;

/// splitmix64: cheap, so the time goes to the reader.
class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  size_t below(size_t bound) { return bound ? static_cast<size_t>(next() % bound) : 0; }

private:
  uint64_t state_;
};

struct Range {
  size_t begin, end;
};

/// The parts of a valid code object where parsing decisions are made: the
/// ELF header, program and section headers, and every section but .text.
std::vector<Range> structuralRanges(const std::vector<uint8_t> &elf) {
  using ELFT = llvm::object::ELF64LE;
  std::vector<Range> ranges = {{0, 64}};
  auto file = llvm::cantFail(llvm::object::ELFFile<ELFT>::create(
      llvm::StringRef(reinterpret_cast<const char *>(elf.data()), elf.size())));
  const auto &header = file.getHeader();
  ranges.push_back({size_t(header.e_phoff), size_t(header.e_phoff + header.e_phnum * 56)});
  ranges.push_back({size_t(header.e_shoff), size_t(header.e_shoff + header.e_shnum * 64)});
  for (const ELFT::Shdr &section : llvm::cantFail(file.sections()))
    if (section.sh_type != llvm::ELF::SHT_NOBITS && section.sh_size &&
        !(section.sh_flags & llvm::ELF::SHF_EXECINSTR))
      ranges.push_back({size_t(section.sh_offset), size_t(section.sh_offset + section.sh_size)});
  for (Range &range : ranges)
    range.end = std::min(range.end, elf.size());
  return ranges;
}

/// Words that are likely to hit boundaries when they land in a size, an
/// offset, an index or a count.
uint64_t interestingValue(Rng &rng, size_t fileSize) {
  const uint64_t values[] = {0,
                             1,
                             0x7f,
                             0x80,
                             0xff,
                             0xffff,
                             0x7fffffff,
                             0x80000000,
                             0xffffffff,
                             fileSize,
                             fileSize - 1,
                             fileSize + 1,
                             64,
                             ~0ull,
                             0x8000000000000000ull};
  return values[rng.below(std::size(values))];
}

std::vector<uint8_t> mutate(const std::vector<uint8_t> &base, const std::vector<Range> &ranges,
                            Rng &rng) {
  std::vector<uint8_t> bytes = base;
  auto offsetIn = [&](bool structural) {
    if (structural) {
      const Range &range = ranges[rng.below(ranges.size())];
      return range.begin + rng.below(range.end - range.begin);
    }
    return rng.below(bytes.size());
  };
  const size_t edits = 1 + rng.below(4);
  for (size_t edit = 0; edit < edits && !bytes.empty(); ++edit) {
    const bool structural = rng.below(4) != 0;
    switch (rng.below(5)) {
    case 0: // truncate
      bytes.resize(rng.below(bytes.size()));
      break;
    case 1: // flip one bit
    case 2: {
      const size_t at = offsetIn(structural);
      if (at < bytes.size())
        bytes[at] ^= uint8_t(1u << rng.below(8));
      break;
    }
    case 3: { // a random byte
      const size_t at = offsetIn(structural);
      if (at < bytes.size())
        bytes[at] = uint8_t(rng.next());
      break;
    }
    case 4: { // an aligned 4- or 8-byte word set to a boundary value
      const size_t width = rng.below(2) ? 8 : 4;
      const size_t at = offsetIn(structural) & ~(width - 1);
      const uint64_t value = interestingValue(rng, base.size());
      for (size_t i = 0; i < width && at + i < bytes.size(); ++i)
        bytes[at + i] = uint8_t(value >> (8 * i));
      break;
    }
    }
  }
  return bytes;
}

bool inside(llvm::ArrayRef<uint8_t> view, const std::vector<uint8_t> &buffer) {
  return view.empty() || (view.data() >= buffer.data() &&
                          view.data() + view.size() <= buffer.data() + buffer.size());
}

TEST(HsacoFuzz, MutantsFailCleanlyOrReadConsistently) {
  Rng rng(mxf::testing::testSeed("HsacoFuzz"));
  const char *const names[] = {"mfma_cvt", "lds_v5", "scratch", "mfma_cvt_stripped"};
  std::vector<std::vector<uint8_t>> bases;
  std::vector<std::vector<Range>> ranges;
  for (const char *name : names) {
    bases.push_back(loadHsaco(name));
    ASSERT_FALSE(bases.back().empty()) << name;
    ranges.push_back(structuralRanges(bases.back()));
  }
  Result<std::unique_ptr<Disassembler>> disassembler = Disassembler::create();
  ASSERT_TRUE(disassembler.ok()) << disassembler.error();

  size_t accepted = 0, rejected = 0;
  for (int i = 0; i < kMutants; ++i) {
    const size_t which = rng.below(bases.size());
    const std::vector<uint8_t> mutated = mutate(bases[which], ranges[which], rng);
    // Exactly-sized heap copy: one byte past it is an ASan report.
    const std::vector<uint8_t> bytes(mutated.begin(), mutated.end());
    SCOPED_TRACE("mutant " + std::to_string(i) + " of " + names[which]);

    Result<CodeObjectImage> image = readCodeObject(bytes);
    Result<std::vector<KernelInfo>> infos = readKernelInfos(bytes);
    ASSERT_EQ(image.ok(), infos.ok());
    if (!image.ok()) {
      ASSERT_FALSE(image.error().empty());
      ++rejected;
      continue;
    }
    ++accepted;
    for (const KernelImage &kernel : image.value().kernels) {
      ASSERT_TRUE(inside(kernel.code, bytes));
      ASSERT_FALSE(kernel.code.empty());
      for (const KernelArgInfo &arg : kernel.info.args)
        ASSERT_LE(uint64_t(arg.offset) + arg.size, kernel.info.kernargSize);
      Result<KernelDescriptor> kd = readKernelDescriptor(bytes, kernel.info.name);
      ASSERT_TRUE(kd.ok()) << kd.error();
      ASSERT_EQ(kd.value().kernargSize, kernel.info.kernargSize);
    }
    // Decoding and classification of whatever code survived the mutation.
    Result<CodeObjectSummary> summary = summarizeCodeObject(bytes, *disassembler.value());
    if (!summary.ok()) {
      ASSERT_FALSE(summary.error().empty());
      continue;
    }
    for (const KernelSummary &kernel : summary.value().kernels)
      for (const DecodedInstruction &instruction : kernel.instructions)
        ASSERT_TRUE(inside(instruction.bytes, bytes));
  }
  std::printf("[ fuzz     ] %d mutants: %zu read, %zu rejected\n", kMutants, accepted, rejected);
  // Both outcomes must occur, or the mutations are not reaching the parser.
  EXPECT_GT(accepted, size_t(kMutants / 100));
  EXPECT_GT(rejected, size_t(kMutants / 10));
}

TEST(HsacoFuzz, MetadataNoteMutants) {
  // The note alone, mutated hard: the msgpack shape check and the key
  // checks are the only defence of Document::readFromBlob.
  Rng rng(mxf::testing::testSeed("HsacoFuzz.MetadataNote"));
  const std::vector<uint8_t> base = loadHsaco("mfma_cvt");
  std::string text(base.begin(), base.end());
  const size_t name = text.find(std::string("AMDGPU\0", 7));
  ASSERT_NE(name, std::string::npos);
  const size_t descBegin = name + 8;
  const size_t descSize = base[name - 8] | base[name - 7] << 8;
  size_t accepted = 0;
  for (int i = 0; i < 5000; ++i) {
    std::vector<uint8_t> bytes = base;
    const size_t flips = 1 + rng.below(8);
    for (size_t f = 0; f < flips; ++f)
      bytes[descBegin + rng.below(descSize)] ^= uint8_t(1u << rng.below(8));
    const std::vector<uint8_t> exact(bytes.begin(), bytes.end());
    Result<std::vector<KernelInfo>> infos = readKernelInfos(exact);
    if (infos.ok())
      ++accepted;
    else
      ASSERT_FALSE(infos.error().empty());
  }
  std::printf("[ fuzz     ] 5000 note mutants: %zu read\n", accepted);
}

TEST(HsacoFuzz, DisassemblerOnRandomAndMutatedCode) {
  // The emulator will decode whatever a code object holds: random words and
  // real code with flipped bits must decode or fail with an offset. (This
  // found LLVM 22's crash on a literal cut off at the end; see
  // Disassembler::disassemble.)
  Rng rng(mxf::testing::testSeed("HsacoFuzz.Disassembler"));
  Result<std::unique_ptr<Disassembler>> disassembler = Disassembler::create();
  ASSERT_TRUE(disassembler.ok()) << disassembler.error();
  const std::vector<uint8_t> hsaco = loadHsaco("mfma_cvt"); // the views below point here
  Result<CodeObjectImage> image = readCodeObject(hsaco);
  ASSERT_TRUE(image.ok()) << image.error();
  std::vector<uint8_t> realCode;
  for (const KernelImage &kernel : image.value().kernels)
    realCode.insert(realCode.end(), kernel.code.begin(), kernel.code.end());
  size_t decoded = 0, failed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> code;
    if (i % 2) {
      code.resize(4 * (1 + rng.below(16)));
      for (uint8_t &byte : code)
        byte = uint8_t(rng.next());
    } else {
      code = realCode;
      for (size_t f = 0, flips = 1 + rng.below(4); f < flips; ++f)
        code[rng.below(code.size())] ^= uint8_t(1u << rng.below(8));
      code.resize(rng.below(code.size() + 1));
    }
    const std::vector<uint8_t> exact(code.begin(), code.end());
    Result<std::vector<DecodedInstruction>> result =
        disassembler.value()->disassemble(exact, 0x1000);
    if (!result.ok()) {
      ASSERT_NE(result.error().find("offset 0x"), std::string::npos) << result.error();
      ++failed;
      continue;
    }
    ++decoded;
    uint64_t next = 0;
    for (const DecodedInstruction &instruction : result.value()) {
      ASSERT_EQ(instruction.offset, next);
      ASSERT_TRUE(inside(instruction.bytes, exact));
      next += instruction.size;
    }
    ASSERT_EQ(next, exact.size());
  }
  std::printf("[ fuzz     ] 20000 code mutants: %zu decoded, %zu rejected\n", decoded, failed);
}

} // namespace
} // namespace mxf::codeobj
