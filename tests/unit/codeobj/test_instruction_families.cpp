//===- test_instruction_families.cpp - Mnemonic -> family -----------------===//
//
// The rules of codeobj/instruction_families.h on a table of gfx950
// mnemonics, the private-segment-buffer rule on real encodings, and the
// histograms of the test kernels against what their sources contain.
//
//===----------------------------------------------------------------------===//

#include "codeobj/instruction_families.h"
#include "codeobj/kernel_summary.h"

#include "tests/unit/codeobj/codeobj_test_support.h"

#include <gtest/gtest.h>

namespace mxf::codeobj {
namespace {

using namespace mxf::codeobj::testing;
using F = InstructionFamily;

TEST(InstructionFamilies, Mnemonics) {
  const std::pair<const char *, F> table[] = {
      {"v_mfma_f32_16x16x32_bf16", F::Mfma},
      {"v_mfma_scale_f32_16x16x128_f8f6f4", F::Mfma},
      {"v_smfmac_f32_16x16x64_bf16", F::Mfma},
      {"v_cvt_scalef32_pk_fp4_f32", F::CvtScaled},
      {"v_cvt_scalef32_sr_pk_fp4_f32", F::CvtScaled},
      {"v_cvt_scalef32_pk32_bf16_fp6", F::CvtScaled},
      {"v_cvt_f32_f16", F::Valu},
      {"v_accvgpr_read_b32", F::Valu},
      {"v_permlane16_swap_b32_e32", F::Valu},
      {"v_add_u32_e32", F::Valu},
      {"global_load_dwordx4", F::Vmem},
      {"global_store_dword", F::Vmem},
      {"buffer_load_dword", F::Vmem},
      {"flat_load_dword", F::Vmem},
      {"scratch_store_dwordx4", F::Scratch},
      {"scratch_load_dword", F::Scratch},
      {"ds_read_b64_tr_b16", F::Lds},
      {"ds_write_b32", F::Lds},
      {"s_load_dwordx4", F::Smem},
      {"s_buffer_load_dword", F::Smem},
      {"s_dcache_wb", F::Smem},
      {"s_memtime", F::Smem},
      {"s_branch", F::Branch},
      {"s_cbranch_scc1", F::Branch},
      {"s_cbranch_execz", F::Branch},
      {"s_setpc_b64", F::Branch},
      {"s_swappc_b64", F::Branch},
      {"s_getpc_b64", F::Salu},
      {"s_mov_b32", F::Salu},
      {"s_add_i32", F::Salu},
      {"s_cmp_lg_u32", F::Salu},
      {"s_waitcnt", F::Other},
      {"s_waitcnt_vscnt", F::Other},
      {"s_nop", F::Other},
      {"s_endpgm", F::Other},
      {"s_barrier", F::Other},
      {"s_sendmsg", F::Other},
      {"s_setprio", F::Other},
      {"exp", F::Other},
  };
  for (const auto &[mnemonic, family] : table)
    EXPECT_EQ(familyName(classifyMnemonic(mnemonic)), familyName(family)) << mnemonic;
}

TEST(InstructionFamilies, NamesAndOrder) {
  std::vector<std::string> names;
  for (F family : allFamilies())
    names.push_back(familyName(family).str());
  EXPECT_EQ(names, (std::vector<std::string>{"salu", "valu", "vmem", "smem", "lds", "mfma",
                                             "cvt-scaled", "branch", "scratch", "other"}));
}

TEST(InstructionFamilies, BufferThroughThePrivateSegmentBufferIsScratch) {
  Result<std::unique_ptr<Disassembler>> disassembler = Disassembler::create();
  ASSERT_TRUE(disassembler.ok()) << disassembler.error();
  // buffer_store_dword v1, off, s[0:3], 0 offset:4 (llvm-mc -show-encoding)
  const std::vector<uint8_t> privateStore = {0x04, 0x00, 0x70, 0xe0, 0x00, 0x01, 0x00, 0x80};
  // buffer_load_dword v1, off, s[8:11], 0
  const std::vector<uint8_t> otherLoad = {0x00, 0x00, 0x50, 0xe0, 0x00, 0x01, 0x02, 0x80};
  auto store = disassembler.value()->disassemble(privateStore, 0);
  auto load = disassembler.value()->disassemble(otherLoad, 0);
  ASSERT_TRUE(store.ok() && load.ok());
  EXPECT_EQ(classifyInstruction(store.value()[0], /*privateSegmentBufferEnabled=*/true),
            F::Scratch);
  EXPECT_EQ(classifyInstruction(store.value()[0], false), F::Vmem);
  EXPECT_EQ(classifyInstruction(load.value()[0], true), F::Vmem);
}

const KernelSummary *findSummary(const CodeObjectSummary &summary, llvm::StringRef name) {
  for (const KernelSummary &kernel : summary.kernels)
    if (kernel.kernel.info.name == name)
      return &kernel;
  ADD_FAILURE() << "no kernel " << name.str();
  return nullptr;
}

Result<CodeObjectSummary> summarize(llvm::StringRef hsaco, std::vector<uint8_t> &storage) {
  storage = loadHsaco(hsaco);
  Result<std::unique_ptr<Disassembler>> disassembler = Disassembler::create();
  if (!disassembler.ok())
    return disassembler.status();
  return summarizeCodeObject(storage, *disassembler.value());
}

TEST(InstructionFamilies, HistogramsMatchTheSources) {
  std::vector<uint8_t> mfmaBytes, scratchBytes, ldsBytes;
  Result<CodeObjectSummary> mfma = summarize("mfma_cvt", mfmaBytes);
  Result<CodeObjectSummary> scratch = summarize("scratch", scratchBytes);
  Result<CodeObjectSummary> lds = summarize("lds_v5", ldsBytes);
  ASSERT_TRUE(mfma.ok() && scratch.ok() && lds.ok());

  const KernelSummary *k = findSummary(mfma.value(), "mfma_cvt");
  ASSERT_TRUE(k);
  const FamilyHistogram &h = k->histogram;
  EXPECT_EQ(h.total(), k->instructions.size());
  EXPECT_EQ(h[F::Mfma], 1u);      // one mfma intrinsic
  EXPECT_EQ(h[F::CvtScaled], 1u); // one cvt.scalef32 intrinsic
  EXPECT_EQ(h[F::Vmem], 3u);      // two global loads, one store
  EXPECT_GE(h[F::Smem], 1u);      // the kernel arguments
  EXPECT_EQ(h[F::Lds] + h[F::Scratch] + h[F::Branch], 0u);
  EXPECT_GE(h[F::Other], 1u); // s_endpgm at least

  const KernelSummary *array = findSummary(scratch.value(), "private_array");
  ASSERT_TRUE(array);
  EXPECT_GE(array->histogram[F::Scratch], 2u); // the store in the loop, the load
  EXPECT_GE(array->histogram[F::Branch], 1u);  // the loop's back edge
  const KernelSummary *spill = findSummary(scratch.value(), "vgpr_spill");
  ASSERT_TRUE(spill);
  EXPECT_GT(spill->histogram[F::Scratch], 0u);

  ASSERT_EQ(lds.value().kernels.size(), 1u);
  EXPECT_EQ(lds.value().kernels[0].histogram[F::Lds], 2u); // one LDS store, one load
  EXPECT_EQ(lds.value().kernels[0].histogram[F::Scratch], 0u);
}

} // namespace
} // namespace mxf::codeobj
