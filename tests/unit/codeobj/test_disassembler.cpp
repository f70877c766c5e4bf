//===- test_disassembler.cpp - gfx950 decoding, checked -------------------===//
//
// The disassembler against llvm-objdump's listing of every test kernel
// (same count, addresses and text), against the encodings of
// docs/GFX950_SEMANTICS.md §C, and on undecodable or truncated words, which
// must be errors with their offset.
//
//===----------------------------------------------------------------------===//

#include "codeobj/disassembler.h"
#include "codeobj/hsaco_reader.h"

#include "tests/unit/codeobj/codeobj_test_support.h"

#include <gtest/gtest.h>

#include <thread>

namespace mxf::codeobj {
namespace {

using namespace mxf::codeobj::testing;

std::unique_ptr<Disassembler> makeDisassembler() {
  Result<std::unique_ptr<Disassembler>> disassembler = Disassembler::create();
  EXPECT_TRUE(disassembler.ok()) << disassembler.error();
  return disassembler.ok() ? std::move(disassembler.value()) : nullptr;
}

class AgainstObjdump : public ::testing::TestWithParam<const char *> {};

TEST_P(AgainstObjdump, SameInstructionsAsLlvmObjdump) {
  std::vector<uint8_t> hsaco = loadHsaco(GetParam());
  Result<CodeObjectImage> image = readCodeObject(hsaco);
  ASSERT_TRUE(image.ok()) << image.error();
  std::vector<ObjdumpLine> listing = objdumpListing(GetParam());
  std::unique_ptr<Disassembler> disassembler = makeDisassembler();
  ASSERT_TRUE(disassembler);
  for (const KernelImage &kernel : image.value().kernels) {
    SCOPED_TRACE(kernel.info.name);
    // objdump decodes all of .text, alignment padding included; compare the
    // kernel's symbol range.
    std::vector<ObjdumpLine> expected;
    for (const ObjdumpLine &line : listing)
      if (line.address >= kernel.codeAddress &&
          line.address < kernel.codeAddress + kernel.code.size())
        expected.push_back(line);
    Result<std::vector<DecodedInstruction>> decoded =
        disassembler->disassemble(kernel.code, kernel.codeAddress);
    ASSERT_TRUE(decoded.ok()) << decoded.error();
    ASSERT_EQ(decoded.value().size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      const DecodedInstruction &instruction = decoded.value()[i];
      EXPECT_EQ(instruction.address, expected[i].address);
      EXPECT_EQ(normalizeSpaces(instruction.text), expected[i].text);
      EXPECT_EQ(instruction.offset, instruction.address - kernel.codeAddress);
      EXPECT_FALSE(instruction.opcodeName.empty());
      EXPECT_EQ(instruction.bytes.size(), instruction.size);
    }
    ASSERT_FALSE(decoded.value().empty());
    EXPECT_EQ(decoded.value().back().mnemonic, "s_endpgm");
  }
}

INSTANTIATE_TEST_SUITE_P(CodeObjects, AgainstObjdump,
                         ::testing::Values("mfma_cvt", "mfma_cvt_v5", "scratch", "lds_v5",
                                           "occupancy"));

bool hasMnemonic(const std::vector<DecodedInstruction> &instructions, llvm::StringRef mnemonic,
                 unsigned size = 0) {
  for (const DecodedInstruction &instruction : instructions)
    if (instruction.mnemonic == mnemonic && (size == 0 || instruction.size == size))
      return true;
  return false;
}

TEST(Disassembler, FindsTheIntrinsicsOfTheSource) {
  std::vector<uint8_t> hsaco = loadHsaco("mfma_cvt");
  Result<std::vector<DecodedInstruction>> plain = disassembleKernel(hsaco, "mfma_cvt");
  ASSERT_TRUE(plain.ok()) << plain.error();
  // llvm.amdgcn.mfma.f32.16x16x32.bf16 and llvm.amdgcn.cvt.scalef32.pk.fp4.f32
  EXPECT_TRUE(hasMnemonic(plain.value(), "v_mfma_f32_16x16x32_bf16", 8));
  EXPECT_TRUE(hasMnemonic(plain.value(), "v_cvt_scalef32_pk_fp4_f32", 8));
  Result<std::vector<DecodedInstruction>> scaled = disassembleKernel(hsaco, "scaled_mfma");
  ASSERT_TRUE(scaled.ok()) << scaled.error();
  // One 16-byte instruction: the scale word and the MFMA word together.
  EXPECT_TRUE(hasMnemonic(scaled.value(), "v_mfma_scale_f32_16x16x128_f8f6f4", 16));
  Result<std::vector<DecodedInstruction>> none = disassembleKernel(hsaco, "nope");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("no kernel named 'nope'"), std::string::npos);
}

struct Encoding {
  std::vector<uint8_t> bytes;
  const char *text;
};

// docs/GFX950_SEMANTICS.md §C "Other encodings for decoder tests" and §C9.
const Encoding kEncodings[] = {
    {{0x01, 0x00, 0x3d, 0xd2, 0x02, 0x07, 0x12, 0x04}, "v_cvt_scalef32_pk_fp4_f32 v1, v2, v3, v4"},
    {{0x02, 0x00, 0x3f, 0xd2, 0x01, 0x09, 0x02, 0x00}, "v_cvt_scalef32_pk_f32_fp4 v[2:3], v1, v4"},
    {{0x02, 0xb3, 0x02, 0x7e}, "v_permlane16_swap_b32_e32 v1, v2"},
    {{0x02, 0xb5, 0x02, 0x7e}, "v_permlane32_swap_b32_e32 v1, v2"},
    {{0x00, 0x00, 0xc6, 0xd9, 0x02, 0x00, 0x00, 0x00}, "ds_read_b64_tr_b16 v[0:1], v2"},
    {{0x00, 0x00, 0xb5, 0xd3, 0x04, 0x11, 0x02, 0x04},
     "v_mfma_f32_16x16x32_bf16 v[0:3], v[4:7], v[8:11], v[0:3]"},
    {{0x00, 0x00, 0xb7, 0xd3, 0x10, 0x29, 0x02, 0x04},
     "v_mfma_f32_32x32x16_bf16 v[0:15], v[16:19], v[20:23], v[0:15]"},
    {{0x02, 0xb1, 0x02, 0x7e}, "v_prng_b32_e32 v1, v2"},
    {{0x00, 0x00, 0xac, 0xd3, 0x14, 0x2b, 0x02, 0x00, 0x00, 0x0c, 0xad, 0xd3, 0x04, 0x09, 0x02,
      0x84},
     "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:7], v[4:7], v[0:3], v20, v21 "
     "op_sel_hi:[0,0,0] cbsz:4 blgp:4"},
};

TEST(Disassembler, DocumentedEncodings) {
  std::unique_ptr<Disassembler> disassembler = makeDisassembler();
  ASSERT_TRUE(disassembler);
  for (const Encoding &encoding : kEncodings) {
    SCOPED_TRACE(encoding.text);
    Result<std::vector<DecodedInstruction>> decoded =
        disassembler->disassemble(encoding.bytes, 0x1000);
    ASSERT_TRUE(decoded.ok()) << decoded.error();
    ASSERT_EQ(decoded.value().size(), 1u);
    const DecodedInstruction &instruction = decoded.value()[0];
    EXPECT_EQ(instruction.text, encoding.text);
    EXPECT_EQ(instruction.size, encoding.bytes.size());
    EXPECT_EQ(instruction.address, 0x1000u);
    EXPECT_EQ(instruction.offset, 0u);
  }
}

TEST(Disassembler, ScaledMfmaOperands) {
  // TOOLCHAIN.md: the scaled MFMA decodes as one instruction with 10 operands.
  std::unique_ptr<Disassembler> disassembler = makeDisassembler();
  ASSERT_TRUE(disassembler);
  Result<std::vector<DecodedInstruction>> decoded =
      disassembler->disassemble(kEncodings[8].bytes, 0);
  ASSERT_TRUE(decoded.ok()) << decoded.error();
  const DecodedInstruction &mfma = decoded.value()[0];
  EXPECT_EQ(mfma.operands.size(), 10u);
  EXPECT_NE(mfma.opcodeName.find("V_MFMA_SCALE_F32_16X16X128_F8F6F4"), std::string::npos)
      << mfma.opcodeName;
  ASSERT_GE(mfma.operands.size(), 1u);
  EXPECT_EQ(mfma.operands[0].kind, DecodedOperand::Kind::Register);
  EXPECT_FALSE(mfma.operands[0].regName.empty());
}

TEST(Disassembler, UndecodableWordIsAnErrorWithItsOffset) {
  std::unique_ptr<Disassembler> disassembler = makeDisassembler();
  ASSERT_TRUE(disassembler);
  // s_nop 0, then 0xffffffff (no gfx950 instruction), then s_endpgm.
  const std::vector<uint8_t> code = {0x00, 0x00, 0x80, 0xbf, 0xff, 0xff,
                                     0xff, 0xff, 0x00, 0x00, 0x81, 0xbf};
  Result<std::vector<DecodedInstruction>> decoded = disassembler->disassemble(code, 0x2000);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.error().find("offset 0x4"), std::string::npos) << decoded.error();
  EXPECT_NE(decoded.error().find("address 0x2004"), std::string::npos) << decoded.error();
  EXPECT_NE(decoded.error().find("ff ff ff ff"), std::string::npos) << decoded.error();
}

TEST(Disassembler, TruncatedInstructionIsAnError) {
  std::unique_ptr<Disassembler> disassembler = makeDisassembler();
  ASSERT_TRUE(disassembler);
  // The first half of an 8-byte VOP3 instruction.
  Result<std::vector<DecodedInstruction>> decoded =
      disassembler->disassemble(llvm::ArrayRef(kEncodings[0].bytes).take_front(4), 0);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.error().find("offset 0x0"), std::string::npos) << decoded.error();
  Result<std::vector<DecodedInstruction>> empty = disassembler->disassemble({}, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty.value().empty());
}

TEST(Disassembler, LiteralCutOffAtTheEnd) {
  // These crash LLVM 22's own decoder when the literal is missing
  // (llvm/llvm-project#170318); here they are "truncated" errors.
  std::unique_ptr<Disassembler> disassembler = makeDisassembler();
  ASSERT_TRUE(disassembler);
  // v_and_b32_e32 v0, <literal>, v0 without its literal (found by the fuzz test).
  Result<std::vector<DecodedInstruction>> vop2 =
      disassembler->disassemble(std::vector<uint8_t>{0xff, 0x00, 0x00, 0x26, 0xff, 0x03}, 0);
  ASSERT_FALSE(vop2.ok());
  EXPECT_NE(vop2.error().find("offset 0x0"), std::string::npos) << vop2.error();
  EXPECT_NE(vop2.error().find("truncated, it needs 8 bytes and 6 remain"), std::string::npos)
      << vop2.error();
  // A VOP3 whose src1 selects a literal (the reproducer of #170318).
  Result<std::vector<DecodedInstruction>> vop3 = disassembler->disassemble(
      std::vector<uint8_t>{0x00, 0x00, 0x03, 0xd1, 0x00, 0xfe, 0x01, 0x00}, 0);
  ASSERT_FALSE(vop3.ok());
  EXPECT_NE(vop3.error().find("truncated, it needs 12 bytes and 8 remain"), std::string::npos)
      << vop3.error();
  // With its literal present it decodes.
  Result<std::vector<DecodedInstruction>> whole = disassembler->disassemble(
      std::vector<uint8_t>{0xff, 0x00, 0x00, 0x26, 0xff, 0x03, 0x00, 0x00}, 0);
  ASSERT_TRUE(whole.ok()) << whole.error();
  EXPECT_EQ(whole.value()[0].text, "v_and_b32_e32 v0, 0x3ff, v0");
}

TEST(Disassembler, EncodingsThatCrashLlvm22AreRejected) {
  // Each of these makes llvm-mc-22 --disassemble -mcpu=gfx950 crash; found
  // by the fuzz tests (codeobj/decode_guards.h).
  std::unique_ptr<Disassembler> disassembler = makeDisassembler();
  ASSERT_TRUE(disassembler);
  const std::pair<std::vector<uint8_t>, const char *> cases[] = {
      // VOP2 SDWA with src1_sel 7: llvm_unreachable in the printer.
      {{0xf9, 0x12, 0x39, 0x5c, 0x5b, 0x2d, 0x55, 0x57}, "src1_sel 7"},
      // f8f6f4 MFMA whose A source is an inline constant: the decoder.
      {{0xc4, 0x85, 0xad, 0xd3, 0xf6, 0x70, 0x8a, 0x42}, "not a vector register"},
      // The same inside a scaled MFMA (after v_mfma_ld_scale_b32).
      {{0x00, 0x00, 0xac, 0xd3, 0x14, 0x2b, 0x02, 0x00, 0x00, 0x0c, 0xad, 0xd3, 0xf6, 0x08, 0x02,
        0x84},
       "not a vector register"},
  };
  for (const auto &[bytes, message] : cases) {
    Result<std::vector<DecodedInstruction>> decoded = disassembler->disassemble(bytes, 0);
    ASSERT_FALSE(decoded.ok()) << message;
    EXPECT_NE(decoded.error().find(message), std::string::npos) << decoded.error();
    EXPECT_NE(decoded.error().find("offset 0x0"), std::string::npos) << decoded.error();
  }
}

TEST(Disassembler, RegisterOutsideItsOperandClassIsAnError) {
  // v_mfma_f32_16x16x32_bf16 with an SGPR tuple as A: LLVM decodes it and
  // prints "/*Invalid register*/"; the emulator must not run it.
  std::unique_ptr<Disassembler> disassembler = makeDisassembler();
  ASSERT_TRUE(disassembler);
  Result<std::vector<DecodedInstruction>> decoded = disassembler->disassemble(
      std::vector<uint8_t>{0x00, 0x00, 0xb5, 0xd3, 0x04, 0x10, 0x02, 0x04}, 0);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.error().find("operand 1 is register SGPR4_SGPR5_SGPR6_SGPR7"),
            std::string::npos)
      << decoded.error();
}

TEST(Disassembler, CorruptKernelCodeIsAnErrorNamingTheKernel) {
  std::vector<uint8_t> hsaco = loadHsaco("mfma_cvt");
  const size_t code = symbolFileOffset(hsaco, "mfma_cvt");
  store32(hsaco, code + 8, 0xffffffffu); // the second instruction is 8 bytes at +8
  Result<std::vector<DecodedInstruction>> decoded = disassembleKernel(hsaco, "mfma_cvt");
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.error().find("kernel 'mfma_cvt'"), std::string::npos) << decoded.error();
  EXPECT_NE(decoded.error().find("offset 0x8"), std::string::npos) << decoded.error();
}

TEST(Disassembler, ConcurrentCreationAndUse) {
  // Target initialization happens once, whichever thread comes first.
  std::vector<std::string> texts(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < texts.size(); ++t)
    threads.emplace_back([&, t] {
      Result<std::unique_ptr<Disassembler>> disassembler = Disassembler::create();
      if (!disassembler.ok())
        return;
      auto decoded = disassembler.value()->disassemble(kEncodings[t % 2].bytes, 0);
      if (decoded.ok() && decoded.value().size() == 1)
        texts[t] = decoded.value()[0].text;
    });
  for (std::thread &thread : threads)
    thread.join();
  for (size_t t = 0; t < texts.size(); ++t)
    EXPECT_EQ(texts[t], kEncodings[t % 2].text);
}

} // namespace
} // namespace mxf::codeobj
