//===- test_spec_matrix.cpp - Every matrix spec compiles to a good kernel -===//
//
// For each rotate_quant and quant_weight spec of the matrices: the code object compiles in
// process, uses no scratch and spills nothing, has no undefined symbols,
// contains the instructions the template intends (checked on the MC
// disassembly, not on assembly text), and stays within the register and LDS
// budget that docs/templates.md documents. Numerical correctness is the
// emulator suite's job (tests/e2e).
//
//===----------------------------------------------------------------------===//

#include "codeobj/disassembler.h"
#include "codeobj/occupancy.h"
#include "compiler/compiler.h"
#include "numerics/formats.h"
#include "abi/operands.h"
#include "templates/registry.h"
#include "templates/common/rotating_quantizer/tiling.h"
#include "tests/support/quantizer_tiling.h"
#include "templates/rotate_quant/rules.h"
#include "tests/support/spec_matrix.h"

#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>

namespace mxf {
namespace {

/// The VGPR budget of docs/templates.md ("Register budget"): 8 waves per
/// SIMD for every spec.
constexpr uint32_t kVgprBudget = 64;
/// fp6 kernels: 80 VGPRs, 6 waves per SIMD (72 and 7 but at RS=256).
constexpr uint32_t kFp6VgprBudget = 80;
/// rotate_quant_moe's tight kernels: 72 VGPRs, 7 waves (80 at RS=256).
constexpr uint32_t kMoeVgprBudget = 72;

std::vector<std::string> undefinedSymbols(const std::vector<uint8_t> &hsaco) {
  std::vector<std::string> names;
  llvm::StringRef bytes(reinterpret_cast<const char *>(hsaco.data()), hsaco.size());
  auto object = llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(bytes, "kernel"));
  if (!object) {
    llvm::consumeError(object.takeError());
    return {"<not an object file>"};
  }
  for (const llvm::object::SymbolRef &symbol : (*object)->symbols()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    if (!flags) {
      llvm::consumeError(flags.takeError());
      continue;
    }
    if (!(*flags & llvm::object::SymbolRef::SF_Undefined))
      continue;
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    if (name && !name->empty())
      names.push_back(name->str());
    else if (!name)
      llvm::consumeError(name.takeError());
  }
  return names;
}

class SpecMatrix : public ::testing::TestWithParam<KernelSpec> {
protected:

};

TEST_P(SpecMatrix, CompilesToAKernelWithinBudget) {
  const KernelSpec &spec = GetParam();
  SCOPED_TRACE(printSpec(spec));
  // Verify after every pass, which compiles skip by default: the matrix is
  // where the templates' IR meets each MLIR pass.
  CompileOptions options;
  options.verifyEachPass = true;
  Result<CodeObject> compiled = compileSpec(spec, options);
  ASSERT_TRUE(compiled.ok()) << compiled.error();
  const KernelInfo &info = compiled.value().kernel;
  const KernelTiling tiling = testing::quantizerTilingOf(spec);
  const bool fp6 = formatInfo(spec.fmt).bits == 6;

  // Compiled for its code spec (M set to the tiling class), launched as the
  // template recorded, with the arguments abi/ declares.
  const KernelSpec codeSpec = codeSpecFor(spec).value();
  EXPECT_EQ(info.name, kernelName(codeSpec));
  EXPECT_EQ(compiled.value().spec, printSpec(codeSpec));
  EXPECT_TRUE(compiled.value().launch.checkAgainst(info).ok());
  EXPECT_EQ(compiled.value().launch.workgroupSize, uint32_t(tiling.workgroupSize()));
  EXPECT_EQ(info.scratchBytes, 0u);
  EXPECT_EQ(info.vgprSpillCount, 0u);
  EXPECT_EQ(info.sgprSpillCount, 0u);
  EXPECT_EQ(info.ldsBytes,
            uint32_t(tiling.ldsBytes + frontLdsBytes(testing::quantizerFamilyOf(spec), spec, tiling)));
  EXPECT_EQ(info.maxWorkgroupSize, uint32_t(tiling.workgroupSize()));
  EXPECT_EQ(info.explicitArgCount(),
            kernelOperands(spec).size() + kernelScalarArgs(spec).size()); // x,[r],q,s,m,strides
  // rotate_quant: x, q, s, m, x_stride, q_stride (no q_stride in AITER's
  // dense A6W6 tiles); quant_weight: w, q, s, w_stride (no row count:
  // always N); r for a learned rotation. rotate_quant_moe: x, topk_ids,
  // topk_weights, [expert_mask], q, s, the four sorted arrays, m, and
  // x_stride, q_stride at stage 1.
  const size_t fixedArgs = spec.op == KernelOp::QuantWeight             ? 4
                           : spec.layout == ScaleLayout::A6W6Tiles      ? 5
                           : spec.op != KernelOp::RotateQuantMoe        ? 6
                                                                        : 10 + spec.emask + (spec.stage == 1 ? 2 : 0);
  EXPECT_EQ(info.explicitArgCount(),
            fixedArgs + (isLearned(spec.rot) ? 1u : 0u) + (spec.round == Rounding::Sr ? 1u : 0u) +
                (spec.select == RotationSelect::Mask ? 2u : 0u) + // layer_mask, layer
                (spec.select == RotationSelect::Flag ? 1u : 0u)); // rotate
  EXPECT_EQ(compiled.value().launch.maxRows, uint32_t(maxLaunchRows(codeSpec)));
  std::printf("[ budget   ] %s: %u VGPRs, %u SGPRs, LDS %u\n", info.name.c_str(), info.vgprCount,
              info.sgprCount, info.ldsBytes);
  // fp6: the convert's two 16-VGPR source tuples and, for w6a16_16x128,
  // byte-wise stores (docs/templates.md) cost a few kernels a wave.
  // rotate_quant_moe: the scatter and the sorter's pointers cost the
  // tight kernels a wave (72 VGPRs, 80 at RS=256), and the sorter's LDS
  // beside a staged R can cost one more (docs/templates.md, "rotate_quant_moe").
  // Selective rotation at RS=256 (both paths' addresses, the quant-only
  // side's 8 blocks) is held to 72 VGPRs, 7 waves.
  const bool moe = spec.op == KernelOp::RotateQuantMoe;
  const bool selective256 = spec.select != RotationSelect::Off && spec.RS >= 256;
  const bool selectiveTiles = spec.layout == ScaleLayout::A6W6Tiles &&
                              (spec.select != RotationSelect::Off ||
                               (spec.RS >= 256 && spec.rot == RotationKind::Learned));
  EXPECT_LE(info.vgprCount, selectiveTiles                   ? (spec.RS >= 256 ? 128u : 96u)
                            : fp6 || (moe && spec.RS >= 256) ? kFp6VgprBudget
                            : moe || selective256          ? kMoeVgprBudget
                                                           : kVgprBudget);
  EXPECT_EQ(undefinedSymbols(compiled.value().hsaco), std::vector<std::string>{});

  codeobj::Occupancy occupancy =
      codeobj::computeOccupancy({info.vgprCount, info.sgprCount, info.ldsBytes,
                                 info.maxWorkgroupSize});
  // Neither registers nor LDS nor the workgroup size may cost waves.
  // fp6: 7 waves, 6 at RS=256 and for W6A16 weight tiles with a per-block R
  // through each wave's LDS (docs/templates.md, "fp6 codes").
  // AITER's A6W6 tiles are asked for 6, 5 (96 VGPRs) with selection (both
  // paths keep the tiles' addresses) or a learned R at RS=256, 4 (128) with
  // selection at RS=256.
  const bool fp6Six = spec.RS >= 256 || spec.layout == ScaleLayout::A6W6Tiles ||
                      (spec.op == KernelOp::QuantWeight &&
                                         spec.wlayout == WeightLayout::W6A16Tile16x128 &&
                                         tiling.transposesInWaveLds);
  const bool fp6Five = spec.layout == ScaleLayout::A6W6Tiles &&
                       (spec.select != RotationSelect::Off ||
                        (spec.RS >= 256 && spec.rot == RotationKind::Learned));
  const bool fp6Four = fp6Five && spec.select != RotationSelect::Off && spec.RS >= 256;
  EXPECT_GE(occupancy.wavesPerSimd, moe     ? 6u
                                    : !fp6  ? (selective256 ? 7u : 8u)
                                    : fp6Four ? 4u
                                    : fp6Five ? 5u
                                    : fp6Six  ? 6u
                                              : 7u)
      << occupancy.limitingFactor();

  Result<std::vector<codeobj::DecodedInstruction>> code =
      codeobj::disassembleKernel(compiled.value().hsaco, info.name);
  ASSERT_TRUE(code.ok()) << code.error();
  std::map<std::string, size_t> mnemonics;
  for (const codeobj::DecodedInstruction &inst : code.value())
    ++mnemonics[inst.mnemonic];
  auto has = [&](const char *prefix) {
    for (const auto &[mnemonic, count] : mnemonics)
      if (llvm::StringRef(mnemonic).starts_with(prefix))
        return true;
    return false;
  };
  // The scaled convert of the spec's format and rounding, and no other.
  const char *converts[] = {"v_cvt_scalef32_pk_fp4_f32", "v_cvt_scalef32_2xpk16_fp6_f32",
                            "v_cvt_scalef32_2xpk16_bf6_f32", "v_cvt_scalef32_pk_fp8_f32",
                            "v_cvt_scalef32_pk_bf8_f32"};
  const char *stochasticConverts[] = {
      "v_cvt_scalef32_sr_pk_fp4_f32",   "v_cvt_scalef32_sr_pk32_fp6_f32",
      "v_cvt_scalef32_sr_pk32_bf6_f32", "v_cvt_scalef32_sr_fp8_f32",
      "v_cvt_scalef32_sr_bf8_f32"};
  // round=rna (AITER A6W6) rounds on the vector ALUs: no convert at all.
  const bool sr = spec.round == Rounding::Sr, rna = spec.round == Rounding::Rna;
  for (size_t f = 0; f < std::size(converts); ++f) {
    EXPECT_EQ(has(converts[f]), !sr && !rna && kAllElemFormats[f] == spec.fmt) << converts[f];
    EXPECT_EQ(has(stochasticConverts[f]), sr && kAllElemFormats[f] == spec.fmt)
        << stochasticConverts[f];
  }
  EXPECT_TRUE(has("v_permlane16_swap_b32")) << "cross-lane block maximum";
  EXPECT_TRUE(has("v_permlane32_swap_b32")) << "cross-lane block maximum";
  // The butterfly rotates on the vector ALUs (docs/templates.md).
  EXPECT_EQ(has("v_mfma_f32_16x16x32_bf16"),
            spec.RS > 0 && spec.rot != RotationKind::HadamardButterfly);
  // R read transposed from LDS: a learned R staged by the workgroup, or a
  // per-block R's pieces in each wave's own LDS (RS >= 64). Given as
  // R[out][in] (rconv=xrt), the operands are rows of r: no transposing reads.
  const bool readsRThroughLds = spec.rot == RotationKind::Learned ||
                                (spec.rot == RotationKind::LearnedPerBlock && spec.RS >= 64);
  EXPECT_EQ(has("ds_read_b64_tr_b16"),
            readsRThroughLds && spec.rconv == RotationConvention::XR);
  if (readsRThroughLds && spec.rconv == RotationConvention::XRt) {
    EXPECT_TRUE(has("ds_read_b128")) << "rows of R[out][in] from LDS";
  }
  EXPECT_TRUE(has("global_load_dwordx")) << "vector loads of x";
  // The MoE sorter counts with integer LDS atomics and nothing else atomic.
  EXPECT_EQ(has("ds_add_u32"), spec.op == KernelOp::RotateQuantMoe);
  EXPECT_FALSE(has("global_atomic"));
  EXPECT_TRUE(has("s_endpgm"));
  EXPECT_FALSE(has("scratch_"));
  EXPECT_FALSE(has("buffer_store")); // private-memory spills would show up here
  EXPECT_FALSE(has("flat_load"));    // every access is known global or LDS
  EXPECT_FALSE(has("flat_store"));
}

std::string specTestName(const ::testing::TestParamInfo<KernelSpec> &info) {
  std::string name = std::to_string(info.index) + "_" + kernelName(info.param);
  return name.substr(0, 120);
}

INSTANTIATE_TEST_SUITE_P(RotateQuant, SpecMatrix,
                         ::testing::ValuesIn(testing::rotateQuantSpecMatrix()), specTestName);
// The weight kernel is the same emitter over N rows: the same budget.
INSTANTIATE_TEST_SUITE_P(QuantWeight, SpecMatrix,
                         ::testing::ValuesIn(testing::quantWeightSpecMatrix()), specTestName);
// The MoE kernel: the same emitter behind the sorter, the same budget.
INSTANTIATE_TEST_SUITE_P(RotateQuantMoe, SpecMatrix,
                         ::testing::ValuesIn(testing::rotateQuantMoeSpecMatrix()), specTestName);

// Compiles reuse MLIR contexts, TargetMachines and code generation pipelines
// (compiler/object_pool.h, gfx950_target.h); what one compile leaves in them
// must not change the next one's code. ctest runs each matrix case in a
// process of its own, so this walks the matrix in one process: each kernel,
// compiled after all the ones before it, must match a compile with a fresh
// code generation pipeline. Every spec in Release; every 8th under the
// sanitizers, where a compile is ~10x slower.
TEST(SpecMatrixReuse, EarlierCompilesDoNotChangeTheCode) {
#if defined(__SANITIZE_ADDRESS__)
  constexpr size_t kStride = 8;
#else
  constexpr size_t kStride = 1;
#endif
  const std::vector<KernelSpec> specs = testing::rotateQuantSpecMatrix();
  CompileOptions fresh;
  fresh.freshCodeGenPipeline = true;
  size_t compared = 0;
  for (size_t i = 0; i < specs.size(); i += kStride) {
    SCOPED_TRACE(printSpec(specs[i]));
    Result<CodeObject> reused = compileSpec(specs[i], CompileOptions{});
    Result<CodeObject> alone = compileSpec(specs[i], fresh);
    ASSERT_TRUE(reused.ok()) << reused.error();
    ASSERT_TRUE(alone.ok()) << alone.error();
    ASSERT_TRUE(reused.value().hsaco == alone.value().hsaco)
        << "a reused code generation pipeline changed the code";
    ++compared;
  }
  EXPECT_GE(compared, specs.size() / kStride);
}

TEST(SpecMatrixDefinition, CoversEveryCombination) {
  std::vector<KernelSpec> specs = testing::rotateQuantSpecMatrix();
  EXPECT_GE(specs.size(), 300u);
  std::set<std::tuple<int, int, int, int>> combos;
  std::set<int> ks, ms;
  for (const KernelSpec &spec : specs) {
    combos.insert({spec.RS, int(spec.rot), int(spec.scale), int(spec.layout)});
    ks.insert(spec.K);
    ms.insert(spec.M);
    EXPECT_TRUE(checkRotateQuantSupported(spec).ok()) << printSpec(spec);
  }
  EXPECT_GE(combos.size(), 13u * 4 * 2);
  EXPECT_EQ(ms.size(), 9u); // every M bucket
  EXPECT_TRUE(ks.count(256) && ks.count(16384) && ks.count(4096) && ks.count(5120));
}

} // namespace
} // namespace mxf
