//===- test_spec_sets.cpp - Spec list files and presets -------------------===//

#include "spec/buckets.h"
#include "spec/op_declaration.h"
#include "spec/presets.h"
#include "templates/family_rules.h"
#include "spec/spec_list.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace mxf {
namespace {

TEST(SpecList, CommentsBlanksDuplicatesAndEveryBadLine) {
  Result<SpecList> list = parseSpecList("# decode set\n"
                                        "rotate_quant:K=4096,M=1   # first\n"
                                        "\n"
                                        "  rotate_quant:M=1,K=4096\n"
                                        "rotate_quant:K=2048\r\n",
                                        "set.txt");
  ASSERT_TRUE(list.ok()) << list.error();
  ASSERT_EQ(list.value().specs.size(), 2u);
  EXPECT_EQ(list.value().specs[1].K, 2048);
  ASSERT_EQ(list.value().notes.size(), 1u);
  EXPECT_EQ(list.value().notes[0], "set.txt:4: duplicate of line 2, ignored");

  Result<SpecList> bad = parseSpecList("rotate_quant:K=4096\nrotate_quant:K=7\nnope\n", "b.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("b.txt:2: "), std::string::npos) << bad.error();
  EXPECT_NE(bad.error().find("\nb.txt:3: "), std::string::npos) << bad.error();
  EXPECT_EQ(parseSpecList("# only comments\n", "e.txt").error(),
            "e.txt: no specs (one per line, '#' comments)");
}

TEST(Presets, EveryPresetIsValidCompleteAndDistinct) {
  ASSERT_GE(specPresets().size(), 3u);
  for (const char *name : {"qwen3-8b", "qwen3-32b", "qwen3-30b-a3b", "deepseek-v3"}) {
    Result<SpecPreset> preset = findSpecPreset(name);
    ASSERT_TRUE(preset.ok()) << preset.error();
    std::set<std::string> seen;
    std::set<int> buckets;
    std::set<ScaleRule> rules;
    std::map<int, std::set<int>> moeBuckets; // stage -> buckets
    std::set<std::pair<int, int>> gemmLayers; // (N, K)
    for (const KernelSpec &spec : preset.value().specs) {
      ASSERT_TRUE(validateSpec(spec).ok()) << printSpec(spec);
      EXPECT_TRUE(checkCompilable(spec).ok()) << checkCompilable(spec).message();
      EXPECT_TRUE(seen.insert(printSpec(spec)).second) << "duplicate " << printSpec(spec);
      EXPECT_EQ(spec.RS, 64);
      if (spec.op == KernelOp::RotateQuantGemm) {
        // The decode GEMMs: AITER's weight layouts, m <= 32.
        EXPECT_EQ(spec.wlayout, WeightLayout::Preshuffle16x16);
        EXPECT_EQ(spec.layout, ScaleLayout::A4W4Shuffle);
        EXPECT_LE(spec.M, kDecodeGemmMaxBucket);
        gemmLayers.insert({spec.N, spec.K});
        continue;
      }
      if (spec.op == KernelOp::RotateQuantMoe) {
        // AITER's MoE path: RCEIL, shuffled scales.
        EXPECT_EQ(spec.scale, ScaleRule::Rceil);
        EXPECT_EQ(spec.layout, ScaleLayout::A4W4Shuffle);
        moeBuckets[spec.stage].insert(spec.M);
        continue;
      }
      buckets.insert(spec.M);
      rules.insert(spec.scale);
    }
    EXPECT_EQ(buckets.size(), std::size(kMBuckets)) << name << ": every M bucket";
    EXPECT_EQ(rules, (std::set<ScaleRule>{ScaleRule::Even, ScaleRule::Rceil})) << name;
    const bool moeModel = std::string(name) == "qwen3-30b-a3b" || std::string(name) == "deepseek-v3";
    EXPECT_EQ(moeBuckets.size(), moeModel ? 2u : 0u) << name << ": both MoE stages";
    // Issue 13: the Qwen3 dense presets carry their layers' decode GEMMs.
    if (std::string(name) == "qwen3-8b") {
      EXPECT_EQ(gemmLayers, (std::set<std::pair<int, int>>{
                                {6144, 4096}, {4096, 4096}, {24576, 4096}, {4096, 12288}}));
    }
    if (std::string(name) == "qwen3-32b") {
      EXPECT_EQ(gemmLayers, (std::set<std::pair<int, int>>{
                                {10240, 5120}, {5120, 8192}, {51200, 5120}, {5120, 25600}}));
    }
    for (const auto &[stage, stageBuckets] : moeBuckets)
      EXPECT_EQ(stageBuckets.size(), std::size(kMBuckets)) << name << " stage " << stage;
  }
  // DeepSeek-V3's experts: K=7168 into E=256 top-8 (issue 12).
  bool deepseekExperts = false;
  // The Result must outlive the loop: value() refers into it.
  const Result<SpecPreset> deepseek = findSpecPreset("deepseek-v3");
  ASSERT_TRUE(deepseek.ok()) << deepseek.error();
  for (const KernelSpec &spec : deepseek.value().specs)
    deepseekExperts |= spec.op == KernelOp::RotateQuantMoe && spec.K == 7168 && spec.E == 256 &&
                       spec.topk == 8 && spec.stage == 1;
  EXPECT_TRUE(deepseekExperts);
  EXPECT_EQ(findSpecPreset("qwen3-8b").value().specs.front().K, 4096);
  EXPECT_EQ(findSpecPreset("qwen3-32b").value().specs.front().K, 5120);
  EXPECT_EQ(findSpecPreset("qwen3-30b-a3b").value().specs.front().K, 2048);
  Result<SpecPreset> unknown = findSpecPreset("llama");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error(), "unknown preset 'llama'; known: qwen3-8b, qwen3-32b, qwen3-30b-a3b, deepseek-v3");
}

} // namespace
} // namespace mxf

namespace mxf {
namespace {

// A preset is its model's shapes plus each op's contribution from its own
// folder (OpDeclaration::presetSpecs), in families.def order: presets.cpp
// names no op. Checked by rebuilding every preset from the declarations.
TEST(Presets, EachOpContributesFromItsFolderInFamilyOrder) {
  size_t contributingOps = 0;
  for (KernelOp op : kAllKernelOps)
    contributingOps += opDeclaration(op)->presetSpecs != nullptr;
  EXPECT_GE(contributingOps, 3u);
  for (const SpecPreset &preset : specPresets()) {
    std::vector<KernelSpec> rebuilt;
    for (KernelOp op : kAllKernelOps) {
      const size_t before = rebuilt.size();
      if (opDeclaration(op)->presetSpecs)
        opDeclaration(op)->presetSpecs(preset.shapes, rebuilt);
      for (size_t i = before; i < rebuilt.size(); ++i)
        EXPECT_EQ(rebuilt[i].op, op) << preset.name << ": an op contributed another op's spec";
    }
    EXPECT_EQ(rebuilt, preset.specs) << preset.name;
    // The MoE front end comes only with experts, the decode GEMM only with
    // listed weights.
    const auto count = [&](KernelOp op) {
      return std::count_if(preset.specs.begin(), preset.specs.end(),
                           [&](const KernelSpec &spec) { return spec.op == op; });
    };
    EXPECT_EQ(count(KernelOp::RotateQuantMoe) > 0, preset.shapes.experts > 0) << preset.name;
    EXPECT_EQ(count(KernelOp::RotateQuantGemm) > 0, !preset.shapes.decodeGemms.empty())
        << preset.name;
  }
  // Negative control: a model with no widths gets no rotate_quant kernels.
  std::vector<KernelSpec> none;
  opDeclaration(KernelOp::RotateQuant)->presetSpecs(ModelShapes{}, none);
  EXPECT_TRUE(none.empty());
}

} // namespace
} // namespace mxf
