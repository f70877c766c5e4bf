//===- test_mxf_dialect.cpp - The mxf dialect and its C++ API -------------===//
//
// For a grid of valid specs of every op: buildMxfModule verifies, prints,
// parses back to the same text, and specFromOp recovers the spec; the kernel
// names are identifiers and pairwise distinct; the operand shapes match the
// numerics/ layouts; the verifier rejects a broken op with a message that
// names the operand. The lit tests (tests/lit/mxf) cover the text syntax and
// every class of diagnostic.
//
//===----------------------------------------------------------------------===//

#include "abi/operands.h"
#include "tests/support/parsed_spec.h"
#include "dialects/mxf/mxf_api.h"
#include "dialects/mxf/mxf_dialect.h"

#include "numerics/formats.h"
#include "numerics/options.h"
#include "numerics/scale_rules.h"
#include "spec/kernel_spec.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace mxf {
namespace {

using namespace mlir;

std::string printOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

/// The single mxf kernel op of a module built by buildMxfModule.
Operation *kernelOpOf(ModuleOp module) {
  Operation *found = nullptr;
  module.walk([&](Operation *op) {
    if (isMxfKernelOp(op))
      found = op;
  });
  return found;
}

//===----------------------------------------------------------------------===//
// The grid: every rotation, format, layout and rule appears with every op
// that accepts it; the other fields cycle so that no two neighbours agree.
//===----------------------------------------------------------------------===//

struct RotationChoice {
  int rs;
  RotationKind kind;
};
constexpr RotationChoice kRotations[] = {
    {0, RotationKind::None},
    {32, RotationKind::Hadamard},
    {64, RotationKind::HadamardButterfly},
    {128, RotationKind::Learned},
    {256, RotationKind::LearnedPerBlock},
    {32, RotationKind::LearnedPerBlock},
};
constexpr RotationKind kAllRotationKinds[] = {RotationKind::None, RotationKind::Hadamard,
                                              RotationKind::HadamardButterfly,
                                              RotationKind::Learned, RotationKind::LearnedPerBlock};
constexpr Intermediate kIntermediates[] = {Intermediate::F32, Intermediate::Bf16};
constexpr Rounding kRoundings[] = {Rounding::Rne, Rounding::Sr};
constexpr ScaleLayout kScaleLayouts[] = {ScaleLayout::Plain, ScaleLayout::A4W4Shuffle};
constexpr WeightLayout kWeightLayouts[] = {WeightLayout::Plain, WeightLayout::Preshuffle16x16,
                                           WeightLayout::W6A16Tile16x128};
constexpr int kMBuckets[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};

std::vector<ElemFormat> formatsOf(KernelOp op) {
  if (op == KernelOp::RotateQuantGemm)
    return {ElemFormat::E2M1};
  if (op == KernelOp::QuantWeight)
    return {ElemFormat::E2M1, ElemFormat::E2M3};
  return {std::begin(kAllElemFormats), std::end(kAllElemFormats)};
}

std::vector<KernelSpec> specGrid() {
  std::vector<KernelSpec> grid;
  unsigned counter = 0;
  for (KernelOp op : kAllKernelOps)
    for (const RotationChoice &rotation : kRotations)
      for (ElemFormat fmt : formatsOf(op))
        for (ScaleLayout layout : kScaleLayouts)
          for (WeightLayout wlayout : kWeightLayouts) {
            const bool hasWeights = op == KernelOp::RotateQuantGemm || op == KernelOp::QuantWeight;
            if (!hasWeights && wlayout != WeightLayout::Plain)
              continue;
            if (wlayout == WeightLayout::Preshuffle16x16 && fmt != ElemFormat::E2M1)
              continue;
            if (wlayout == WeightLayout::W6A16Tile16x128 &&
                (op != KernelOp::QuantWeight || fmt != ElemFormat::E2M3))
              continue;
            ++counter;
            KernelSpec spec;
            spec.op = op;
            spec.RS = rotation.rs;
            spec.rot = rotation.kind;
            // K: a multiple of RS (and of 64 for preshuffle); 96 only where
            // RS allows, to cover K/32 columns that need padding to 8.
            const int ks[] = {4096, 7168, 256, 96};
            spec.K = ks[counter % 4];
            if (spec.K == 96 && (spec.RS > 32 || wlayout != WeightLayout::Plain))
              spec.K = 512;
            if (spec.RS > 0 && spec.K % spec.RS != 0)
              spec.K = 4096;
            spec.fmt = fmt;
            spec.scale = kAllScaleRules[counter % std::size(kAllScaleRules)];
            spec.round = kRoundings[(counter / 2) % 2];
            spec.inter = kIntermediates[(counter / 3) % 2];
            spec.layout = layout;
            if (op != KernelOp::QuantWeight)
              spec.M = kMBuckets[counter % std::size(kMBuckets)];
            if (op == KernelOp::RotateQuantMoe) {
              const int es[] = {8, 256, 1, 33};
              spec.E = es[counter % 4];
              spec.topk = std::min(spec.E, 1 + static_cast<int>(counter % 8));
              const int blocks[] = {32, 64, 128, 16};
              spec.block = blocks[counter % 4];
              spec.stage = 1 + static_cast<int>(counter % 2);
              spec.emask = static_cast<int>((counter / 2) % 2);
            }
            if (hasWeights) {
              const int ns[] = {16, 4096, 14336, 48};
              spec.N = ns[counter % 4];
              spec.wlayout = wlayout;
            }
            grid.push_back(spec);
          }
  return grid;
}

TEST(MxfDialectTest, GridIsValidAndCoversEveryOp) {
  std::vector<KernelSpec> grid = specGrid();
  std::set<KernelOp> ops;
  for (const KernelSpec &spec : grid) {
    Status s = validateSpec(spec);
    ASSERT_TRUE(s.ok()) << printSpec(spec) << ": " << s.message();
    ops.insert(spec.op);
  }
  EXPECT_EQ(ops.size(), std::size(kAllKernelOps));
  EXPECT_GT(grid.size(), 150u);
}

TEST(MxfDialectTest, BuildVerifyPrintParseAndSpecFromOpRoundTrip) {
  MLIRContext context;
  for (const KernelSpec &spec : specGrid()) {
    SCOPED_TRACE(printSpec(spec));
    OwningOpRef<ModuleOp> module = buildMxfModule(spec, context);
    ASSERT_TRUE(module);
    ASSERT_TRUE(succeeded(verify(*module)));

    // The function: named by kernelName, carrying the canonical spec text.
    auto funcs = llvm::to_vector(module->getOps<func::FuncOp>());
    ASSERT_EQ(funcs.size(), 1u);
    func::FuncOp func = funcs.front();
    EXPECT_EQ(func.getSymName(), kernelName(spec));
    auto specAttr = func->getAttrOfType<StringAttr>(kSpecAttrName);
    ASSERT_TRUE(specAttr);
    EXPECT_EQ(specAttr.getValue(), printSpec(spec));
    const size_t expectedArgs = kernelOperands(spec).size() + (spec.op != KernelOp::QuantWeight);
    EXPECT_EQ(func.getNumArguments(), expectedArgs);

    Operation *op = kernelOpOf(*module);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(specFromOp(op), spec);

    // Text -> module -> text is a fixed point, and the spec survives it.
    const std::string text = printOp(*module);
    OwningOpRef<ModuleOp> reparsed = parseSourceString<ModuleOp>(text, ParserConfig(&context));
    ASSERT_TRUE(reparsed) << text;
    ASSERT_TRUE(succeeded(verify(*reparsed)));
    EXPECT_EQ(printOp(*reparsed), text);
    Operation *reparsedOp = kernelOpOf(*reparsed);
    ASSERT_NE(reparsedOp, nullptr);
    EXPECT_EQ(specFromOp(reparsedOp), spec);

    // The generic form (the op holding its spec text) parses too.
    std::string generic;
    llvm::raw_string_ostream os(generic);
    module->print(os, OpPrintingFlags().printGenericOpForm());
    OwningOpRef<ModuleOp> fromGeneric =
        parseSourceString<ModuleOp>(generic, ParserConfig(&context));
    ASSERT_TRUE(fromGeneric) << generic;
    EXPECT_EQ(printOp(*fromGeneric), text);
  }
}

TEST(MxfDialectTest, KernelNamesAreDistinctIdentifiers) {
  std::set<std::string> names;
  std::vector<KernelSpec> grid = specGrid();
  for (const KernelSpec &spec : grid) {
    const std::string name = kernelName(spec);
    for (char c : name)
      ASSERT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '_') << name;
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
  }
  // And names differ in exactly the specs that differ, across every single
  // field change of one spec (rules whose spellings share a prefix such as
  // rceil / rceil_recip included).
  KernelSpec base;
  base.K = 4096;
  base.RS = 64;
  base.rot = RotationKind::Hadamard;
  std::set<std::string> variants;
  for (ScaleRule rule : kAllScaleRules)
    for (RotationKind kind : {RotationKind::Hadamard, RotationKind::HadamardButterfly,
                              RotationKind::Learned, RotationKind::LearnedPerBlock})
      for (ElemFormat fmt : kAllElemFormats) {
        KernelSpec spec = base;
        spec.scale = rule;
        spec.rot = kind;
        spec.fmt = fmt;
        EXPECT_TRUE(variants.insert(kernelName(spec)).second) << kernelName(spec);
      }
}

TEST(MxfDialectTest, KernelNameScheme) {
  Result<KernelSpec> dense = parseSpec("rotate_quant:K=4096,RS=64");
  ASSERT_TRUE(dense.ok());
  EXPECT_EQ(kernelName(dense.value()),
            "mxf_rotate_quant_K4096_RS64_hadamard_M16_fp4_even_rne_f32_plain_gfx950");
  Result<KernelSpec> moe = parseSpec("rotate_quant_moe:topk=8,E=256,K=7168,RS=128,fmt=fp8_e4m3");
  ASSERT_TRUE(moe.ok());
  EXPECT_EQ(kernelName(moe.value()), "mxf_rotate_quant_moe_K7168_RS128_hadamard_M16_topk8_E256_"
                                     "block32_stage1_emask0_fp8_e4m3_even_rne_f32_a4w4_shuffle_"
                                     "gfx950");
  Result<KernelSpec> gemm = parseSpec("rotate_quant_gemm:K=4096,N=14336,RS=32,M=1,"
                                      "layout=a4w4_shuffle,wlayout=preshuffle_16x16");
  ASSERT_TRUE(gemm.ok());
  EXPECT_EQ(kernelName(gemm.value()), "mxf_rotate_quant_gemm_K4096_N14336_RS32_hadamard_M1_fp4_"
                                      "even_rne_f32_a4w4_shuffle_preshuffle_16x16_gfx950");
  Result<KernelSpec> weight =
      parseSpec("quant_weight:K=4096,N=4096,fmt=fp6_e2m3,RS=64,rot=learned");
  ASSERT_TRUE(weight.ok());
  EXPECT_EQ(kernelName(weight.value()),
            "mxf_quant_weight_K4096_N4096_RS64_learned_fp6_e2m3_even_rne_f32_plain_plain_gfx950");
}

//===----------------------------------------------------------------------===//
// Operand shapes against the numerics/ layout rules
//===----------------------------------------------------------------------===//

std::vector<std::string> describe(const std::vector<KernelOperand> &operands) {
  std::vector<std::string> out;
  for (const KernelOperand &operand : operands) {
    std::string text = std::string(operand.name) + ":";
    for (size_t i = 0; i < operand.shape.size(); ++i)
      text += (i ? "x" : "") + std::to_string(operand.shape[i]);
    text += std::string("x") + operandElementName(operand.element);
    out.push_back(text);
  }
  return out;
}

using testing::parsed;

TEST(MxfDialectTest, OperandShapes) {
  using V = std::vector<std::string>;
  EXPECT_EQ(describe(kernelOperands(parsed("rotate_quant:K=4096,RS=64"))),
            (V{"x:16x4096xbf16", "q:16x2048xi8", "s:16x128xi8"}));
  EXPECT_EQ(describe(kernelOperands(parsed("rotate_quant:K=96,M=1,layout=a4w4_shuffle,"
                                           "fmt=fp6_e3m2"))),
            (V{"x:1x96xbf16", "q:1x72xi8", "s:256x8xi8"}));
  EXPECT_EQ(describe(kernelOperands(parsed("rotate_quant:K=4096,RS=128,rot=learned,"
                                           "fmt=fp8_e5m2"))),
            (V{"x:16x4096xbf16", "r:128x128xbf16", "q:16x4096xi8", "s:16x128xi8"}));
  EXPECT_EQ(describe(kernelOperands(parsed("rotate_quant:K=512,RS=64,rot=learned_per_block"))),
            (V{"x:16x512xbf16", "r:8x64x64xbf16", "q:16x256xi8", "s:16x16xi8"}));
  // capacity = 16*8 + 256*32 - 8 = 8312; shuffled rows pad to 32: 8320;
  // blocks = ceil(8312/32) = 260.
  EXPECT_EQ(describe(kernelOperands(parsed("rotate_quant_moe:topk=8,E=256,K=7168,RS=128"))),
            (V{"x:16x7168xbf16", "topk_ids:16x8xi32", "topk_weights:16x8xf32", "q:16x3584xi8",
               "s:8320x224xi8", "sorted_ids:8312xi32", "sorted_weights:8312xf32",
               "sorted_expert_ids:260xi32", "num_valid_ids:2xi32"}));
  // Stage 2 with an expert mask: x and q per (token, slot), dense; the mask
  // follows the routing inputs; the sorting outputs do not change.
  EXPECT_EQ(describe(kernelOperands(parsed("rotate_quant_moe:topk=8,E=256,K=7168,RS=128,"
                                           "stage=2,emask=1"))),
            (V{"x:16x8x7168xbf16", "topk_ids:16x8xi32", "topk_weights:16x8xf32",
               "expert_mask:256xi32", "q:16x8x3584xi8", "s:8320x224xi8", "sorted_ids:8312xi32",
               "sorted_weights:8312xf32", "sorted_expert_ids:260xi32", "num_valid_ids:2xi32"}));
  EXPECT_EQ(describe(kernelOperands(parsed("rotate_quant_moe:topk=2,E=4,K=64,block=64,"
                                           "layout=plain"))),
            (V{"x:16x64xbf16", "topk_ids:16x2xi32", "topk_weights:16x2xf32", "q:16x32xi8",
               "s:286x2xi8", "sorted_ids:286xi32", "sorted_weights:286xf32",
               "sorted_expert_ids:5xi32", "num_valid_ids:2xi32"}));
  EXPECT_EQ(describe(kernelOperands(parsed("rotate_quant_gemm:K=4096,N=14336,RS=32,M=1,"
                                           "layout=a4w4_shuffle,wlayout=preshuffle_16x16"))),
            (V{"x:1x4096xbf16", "w_q:14336x2048xi8", "w_s:14336x128xi8", "y:1x14336xbf16",
               // 896 tiles, 3 a wave: 75 column groups' counters (76 words),
               // then 75 x 4 chains x 4 waves x 3 tiles x 256 words.
               "ws:1x921676xi32"}));
  EXPECT_EQ(describe(kernelOperands(parsed("rotate_quant_gemm:K=96,N=48,layout=a4w4_shuffle"))),
            (V{"x:16x96xbf16", "w_q:48x48xi8", "w_s:256x8xi8", "y:16x48xbf16"}));
  EXPECT_EQ(describe(kernelOperands(parsed("quant_weight:K=4096,N=4096,fmt=fp6_e2m3,RS=64,"
                                           "rot=learned"))),
            (V{"w:4096x4096xbf16", "r:64x64xbf16", "q:4096x3072xi8", "s:4096x128xi8"}));
}

// One op per line of templates/families.def, named as the spec names the
// op: the dialect holds no list of its own.
TEST(MxfDialectTest, EveryFamilyHasItsOp) {
  MLIRContext context;
  context.loadDialect<dialect::MxfDialect>();
  size_t registered = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations())
    registered += name.getDialectNamespace() == "mxf";
  EXPECT_EQ(registered, std::size(kAllKernelOps));
  for (KernelOp op : kAllKernelOps)
    EXPECT_TRUE(RegisteredOperationName::lookup(std::string("mxf.") + kernelOpName(op), &context))
        << kernelOpName(op);
}

//===----------------------------------------------------------------------===//
// Failures
//===----------------------------------------------------------------------===//

TEST(MxfDialectTest, InvalidSpecBuildsNothing) {
  MLIRContext context;
  KernelSpec spec;
  spec.K = 4128;
  spec.RS = 64;
  spec.rot = RotationKind::Hadamard;
  EXPECT_FALSE(buildMxfModule(spec, context));
  OwningOpRef<ModuleOp> module;
  Status s = tryBuildMxfModule(spec, context, module);
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(module);
  EXPECT_EQ(s.message(), "invalid spec: K=4128: K must be a multiple of RS=64");
}

TEST(MxfDialectTest, SpecFromOpRejectsOtherOps) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module = buildMxfModule(parsed("rotate_quant:K=64"), context);
  ASSERT_TRUE(module);
  Result<KernelSpec> spec = trySpecFromOp(module->getOperation());
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().find("'builtin.module' is not an mxf kernel op"), std::string::npos)
      << spec.error();
  EXPECT_FALSE(trySpecFromOp(nullptr).ok());
}

/// The first diagnostic `verify` emits for the module.
std::string firstVerifyError(MLIRContext &context, ModuleOp module) {
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (message.empty())
      message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(verify(module)));
  return message;
}

TEST(MxfDialectTest, VerifierNamesTheOperandAndTheExpectedType) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module = buildMxfModule(parsed("rotate_quant:K=4096,RS=64"), context);
  ASSERT_TRUE(module);
  auto op = cast<dialect::RotateQuantOp>(kernelOpOf(*module));
  // K=2048 makes x, q and s too big; the first operand reports. The
  // function's mxf.spec no longer matches either, but ops verify first.
  op.setSpec(printSpec(parsed("rotate_quant:K=2048,RS=64")));
  EXPECT_EQ(firstVerifyError(context, *module),
            "'mxf.rotate_quant' op operand #0 (x) must be memref<16x2048xbf16> for M=16, K=2048 "
            "([M, K]), got memref<16x4096xbf16>");
}

// The operand count follows the spec (expert_mask exactly with emask=1):
// changing the spec of a built op is reported before any operand type is
// compared, with the operands the spec takes.
TEST(MxfDialectTest, VerifierChecksTheOperandCountAgainstTheSpec) {
  MLIRContext context;
  const KernelSpec masked = parsed("rotate_quant_moe:K=512,topk=2,E=8,emask=1");
  const KernelSpec unmasked = parsed("rotate_quant_moe:K=512,topk=2,E=8");
  OwningOpRef<ModuleOp> module = buildMxfModule(masked, context);
  ASSERT_TRUE(module);
  auto op = cast<dialect::RotateQuantMoeOp>(kernelOpOf(*module));
  EXPECT_EQ(op->getNumOperands(), kernelOperands(masked).size() + 1);
  op.setSpec(printSpec(unmasked));
  EXPECT_EQ(firstVerifyError(context, *module),
            "'mxf.rotate_quant_moe' op takes 10 operands for " + printSpec(unmasked) +
                " (x, topk_ids, topk_weights, q, s, sorted_ids, sorted_weights, "
                "sorted_expert_ids, num_valid_ids, rows), got 11");
  // Negative control: the spec the operands were built for verifies.
  op.setSpec(printSpec(masked));
  EXPECT_TRUE(succeeded(verify(*module)));
}

// An op holds a spec of its own op only.
TEST(MxfDialectTest, VerifierRefusesASpecOfAnotherOp) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module = buildMxfModule(parsed("rotate_quant:K=4096,RS=64"), context);
  ASSERT_TRUE(module);
  auto op = cast<dialect::RotateQuantOp>(kernelOpOf(*module));
  op.setSpec(printSpec(parsed("quant_weight:K=4096,N=16")));
  EXPECT_EQ(firstVerifyError(context, *module),
            "'mxf.rotate_quant' op holds a quant_weight spec (\"" +
                printSpec(parsed("quant_weight:K=4096,N=16")) +
                "\"); it computes rotate_quant");
}

TEST(MxfDialectTest, VerifierChecksTheSpecAttributeOfTheFunction) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module = buildMxfModule(parsed("rotate_quant:K=4096,RS=64"), context);
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  func->setAttr(kSpecAttrName, StringAttr::get(&context, printSpec(parsed("rotate_quant:K=64"))));
  std::string message = firstVerifyError(context, *module);
  EXPECT_EQ(message, "'mxf.rotate_quant' op has spec \"" +
                         printSpec(parsed("rotate_quant:K=4096,"
                                          "RS=64")) +
                         "\" but the enclosing 'func.func' declares mxf.spec = \"" +
                         printSpec(parsed("rotate_quant:K=64")) + "\"");
}

} // namespace
} // namespace mxf
