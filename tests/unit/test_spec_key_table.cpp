//===- test_spec_key_table.cpp - One declaration per spec key -------------===//
//
// spec/key_table.cpp declares each key once; the parser, printer, validator,
// KernelSpec equality and kernel names are loops over it. These tests pin the
// table's own invariants and that each consumer really follows it.
//
//===----------------------------------------------------------------------===//

#include "spec/kernel_name.h"
#include "spec/kernel_spec.h"
#include "spec/key_table.h"
#include "spec/op_declaration.h"

#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace mxf {
namespace {

using spec_detail::KeyDeclaration;
using spec_detail::keyDeclaration;
using spec_detail::KeyValueKind;
using spec_detail::kNumSpecKeys;
using spec_detail::SpecKey;

TEST(SpecKeyTable, EachKeyIsDeclaredOnceInKeyOrder) {
  std::set<std::string> names;
  for (size_t i = 0; i < kNumSpecKeys; ++i) {
    const KeyDeclaration &key = keyDeclaration(SpecKey(i));
    EXPECT_EQ(size_t(key.key), i) << key.name;
    EXPECT_TRUE(names.insert(key.name).second) << "declared twice: " << key.name;
    EXPECT_EQ(spec_detail::parseSpecKey(key.name), SpecKey(i));
    EXPECT_EQ(key.kind == KeyValueKind::Enum, key.spellings != nullptr) << key.name;
    EXPECT_EQ(key.kind == KeyValueKind::Enum, key.holdsEnumValue != nullptr) << key.name;
    EXPECT_EQ(key.applies != nullptr, key.whyNotApplicable != nullptr) << key.name;
  }
  EXPECT_EQ(allSpecKeys().size(), kNumSpecKeys);
}

/// Every spelling an enum key lists parses into the field and prints back
/// as itself; a spelling of no value is refused with the list.
TEST(SpecKeyTable, EnumSpellingsRoundTripThroughTheField) {
  for (size_t i = 0; i < kNumSpecKeys; ++i) {
    const KeyDeclaration &key = keyDeclaration(SpecKey(i));
    if (key.kind != KeyValueKind::Enum)
      continue;
    const std::string listed = key.spellings();
    size_t count = 0;
    for (size_t at = 0; at <= listed.size(); ++count) {
      const size_t end = std::min(listed.find(", ", at), listed.size());
      const std::string spelling = listed.substr(at, end - at);
      KernelSpec spec;
      ASSERT_TRUE(key.parseValue(spec, spelling).ok()) << key.name << "=" << spelling;
      EXPECT_TRUE(key.holdsEnumValue(spec));
      std::string printed;
      key.appendValue(printed, spec);
      EXPECT_EQ(printed, spelling) << key.name;
      at = end + 2;
    }
    EXPECT_GE(count, 2u) << key.name;
    KernelSpec spec;
    Status refused = key.parseValue(spec, "no_such_value");
    ASSERT_FALSE(refused.ok()) << key.name;
    EXPECT_NE(refused.message().find(listed), std::string::npos) << refused.message();
  }
}

/// The equality and foreign-field checks see every declared field: changing
/// any one field of a spec makes it unequal (a field left out of the table
/// would compare equal here).
TEST(SpecKeyTable, EqualityAndValidationSeeEveryField) {
  std::mt19937_64 rng(testing::testSeed("SpecKeyTable.EqualityAndValidationSeeEveryField"));
  for (size_t i = 0; i < kNumSpecKeys; ++i) {
    const KeyDeclaration &key = keyDeclaration(SpecKey(i));
    KernelSpec base, changed;
    std::string text;
    switch (key.kind) {
    case KeyValueKind::Number: { // never the default: it is added to it
      std::string defaultText;
      key.appendValue(defaultText, base);
      text = std::to_string(std::stoi(defaultText) + 1 + int(rng() % 1000));
      break;
    }
    case KeyValueKind::Text:
      text = "gfx942";
      break;
    case KeyValueKind::Enum: {
      const std::string listed = key.spellings();
      text = listed.substr(listed.rfind(", ") + 2); // the last, never the default
      break;
    }
    }
    ASSERT_TRUE(key.parseValue(changed, text).ok()) << key.name;
    EXPECT_FALSE(key.sameValue(base, changed)) << key.name;
    EXPECT_NE(base, changed) << key.name << "=" << text;
  }
}

/// The name is the op, then the keys the op has in their order, each as its
/// declaration says; pinned for a spec of every op so that the table cannot
/// change a name (names are part of bundles and cache keys).
TEST(SpecKeyTable, KernelNamesFollowTheDeclarations) {
  auto name = [](const char *text) {
    Result<KernelSpec> spec = parseSpec(text);
    EXPECT_TRUE(spec.ok()) << text;
    std::string out = std::string("mxf_") + kernelOpName(spec.value().op);
    appendKernelNameParts(out, spec.value());
    return out;
  };
  EXPECT_EQ(name("rotate_quant:K=4096,RS=64"),
            "mxf_rotate_quant_K4096_RS64_hadamard_M16_fp4_even_rne_f32_plain_gfx950");
  EXPECT_EQ(name("rotate_quant:K=4096,RS=64,rot=learned,rconv=xrt,select=mask,layers=36,M=1"),
            "mxf_rotate_quant_K4096_RS64_learned_xrt_selmask36_M1_fp4_even_rne_f32_plain_gfx950");
  EXPECT_EQ(name("rotate_quant:K=4096,RS=64,select=flag"),
            "mxf_rotate_quant_K4096_RS64_hadamard_selflag_M16_fp4_even_rne_f32_plain_gfx950");
  EXPECT_EQ(name("rotate_quant_moe:K=2048,RS=128,topk=8,E=128"),
            "mxf_rotate_quant_moe_K2048_RS128_hadamard_M16_topk8_E128_block32_stage1_emask0_fp4_"
            "even_rne_f32_a4w4_shuffle_gfx950");
  EXPECT_EQ(name("rotate_quant_gemm:K=4096,N=4096,RS=32,fmt=fp6_e2m3,wlayout=w6a16_16x128"),
            "mxf_rotate_quant_gemm_K4096_N4096_RS32_hadamard_M16_fp6_e2m3_even_rne_f32_plain_"
            "w6a16_16x128_gfx950");
  EXPECT_EQ(name("quant_weight:K=256,N=32"),
            "mxf_quant_weight_K256_N32_RS0_none_fp4_even_rne_f32_plain_plain_gfx950");
  // Negative control: a field that shows in the name changes it.
  EXPECT_NE(name("rotate_quant:K=4096,RS=64,round=sr"), name("rotate_quant:K=4096,RS=64"));
}

/// Each op's declaration (its family's op_spec.cpp) is found by its op,
/// names itself, lists each key once and requires only keys it has; a value
/// outside KernelOp has none.
TEST(SpecOpDeclarations, EveryOpIsDeclaredConsistently) {
  std::set<std::string> opNames;
  for (KernelOp op : kAllKernelOps) {
    const OpDeclaration *declaration = opDeclaration(op);
    ASSERT_NE(declaration, nullptr);
    EXPECT_EQ(declaration->op, op);
    EXPECT_TRUE(opNames.insert(declaration->name).second) << declaration->name;
    EXPECT_EQ(parseKernelOp(declaration->name), op);
    std::set<SpecKey> keys(declaration->keys.begin(), declaration->keys.end());
    EXPECT_EQ(keys.size(), declaration->keys.size()) << declaration->name << ": a key twice";
    EXPECT_TRUE(keys.count(SpecKey::K) && keys.count(SpecKey::Arch)) << declaration->name;
    for (SpecKey required : declaration->required)
      EXPECT_TRUE(keys.count(required)) << declaration->name << " requires a key it lacks";
  }
  EXPECT_EQ(opDeclaration(KernelOp(200)), nullptr);
  EXPECT_FALSE(validateSpec([] {
                 KernelSpec spec;
                 spec.op = KernelOp(200);
                 return spec;
               }())
                   .ok());
}

/// The op's own rules and defaults come from its declaration: the MoE op's
/// layout default and routing rules, the GEMM's formats.
TEST(SpecOpDeclarations, OpRulesAndDefaultsComeFromTheDeclaration) {
  Result<KernelSpec> moe = parseSpec("rotate_quant_moe:K=2048,topk=8,E=128");
  ASSERT_TRUE(moe.ok());
  EXPECT_EQ(moe.value().layout, ScaleLayout::A4W4Shuffle);
  Result<KernelSpec> dense = parseSpec("rotate_quant:K=2048");
  ASSERT_TRUE(dense.ok());
  EXPECT_EQ(dense.value().layout, ScaleLayout::Plain);
  Result<KernelSpec> badBlock = parseSpec("rotate_quant_moe:K=2048,topk=8,E=128,block=80");
  ASSERT_FALSE(badBlock.ok());
  EXPECT_EQ(badBlock.error(), "block=80: block must be one of 16, 32, 64, 128");
  Result<KernelSpec> badFmt = parseSpec("rotate_quant_gemm:K=2048,N=256,fmt=fp8_e4m3");
  ASSERT_FALSE(badFmt.ok());
  EXPECT_NE(badFmt.error().find("rotate_quant_gemm supports fmt=fp4 or fmt=fp6_e2m3"),
            std::string::npos)
      << badFmt.error();
  EXPECT_TRUE(parseSpec("rotate_quant:K=2048,fmt=fp8_e4m3").ok()); // the rule is the GEMM's
}

} // namespace
} // namespace mxf
