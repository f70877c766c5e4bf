//===- test_spec_parse.cpp - Kernel spec parsing, printing, validation ----===//
//
// Hand-written cases for spec/kernel_spec.h: canonical round trips per op,
// defaults, key order, and one test per class of rejection, each checking
// that the message names the key and the value that were given. The
// randomized properties are in test_spec_fuzz.cpp.
//
//===----------------------------------------------------------------------===//

#include "spec/kernel_spec.h"
#include "tests/support/spec_matrix.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

namespace mxf {
namespace {

const char kRotateQuant[] = "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=even,"
                            "round=rne,inter=f32,layout=plain,arch=gfx950";
const char kRotateQuantMoe[] =
    "rotate_quant_moe:K=7168,RS=128,rot=learned,rconv=xr,M=64,topk=8,E=256,block=64,stage=2,emask=1,"
    "fmt=fp8_e4m3,scale=rceil,round=sr,inter=bf16,layout=a4w4_shuffle,arch=gfx950";
const char kRotateQuantGemm[] =
    "rotate_quant_gemm:K=4096,N=14336,RS=32,rot=hadamard_butterfly,M=1,fmt=fp4,scale=floor,"
    "round=rne,inter=f32,layout=a4w4_shuffle,wlayout=preshuffle_16x16,arch=gfx950";
const char kQuantWeight[] =
    "quant_weight:K=2048,N=512,RS=256,rot=learned_per_block,rconv=xr,fmt=fp6_e2m3,scale=even126,"
    "round=rne,inter=bf16,layout=plain,wlayout=plain,arch=gfx950";

/// Parses `text`, expects a rejection and returns its message.
std::string errorOf(std::string_view text) {
  Result<KernelSpec> result = parseSpec(text);
  EXPECT_FALSE(result.ok()) << "accepted: " << std::string(text);
  if (result.ok())
    return std::string();
  EXPECT_FALSE(result.error().empty());
  EXPECT_EQ(result.error().find('\n'), std::string::npos) << "not one line: " << result.error();
  return result.error();
}

/// Expects every fragment to appear in `message`.
void expectMentions(const std::string &message, std::initializer_list<const char *> fragments) {
  for (const char *fragment : fragments)
    EXPECT_NE(message.find(fragment), std::string::npos)
        << "message '" << message << "' does not mention '" << fragment << "'";
}

KernelSpec parsedOrDie(std::string_view text) {
  Result<KernelSpec> result = parseSpec(text);
  EXPECT_TRUE(result.ok()) << std::string(text) << ": " << result.error();
  return result.ok() ? result.value() : KernelSpec();
}

std::vector<std::string> splitItems(const std::string &canonical) {
  std::vector<std::string> items;
  std::string body = canonical.substr(canonical.find(':') + 1);
  size_t pos = 0;
  while (true) {
    size_t comma = body.find(',', pos);
    items.push_back(body.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos)
      return items;
    pos = comma + 1;
  }
}

std::string joinItems(const std::string &op, const std::vector<std::string> &items) {
  std::string out = op + ":";
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? "," : "") + items[i];
  return out;
}

// --- Round trips and defaults ----------------------------------------------

TEST(SpecParse, RotateQuantCanonicalRoundTrip) {
  KernelSpec spec = parsedOrDie(kRotateQuant);
  EXPECT_EQ(spec.op, KernelOp::RotateQuant);
  EXPECT_EQ(spec.K, 4096);
  EXPECT_EQ(spec.RS, 64);
  EXPECT_EQ(spec.rot, RotationKind::Hadamard);
  EXPECT_EQ(spec.M, 16);
  EXPECT_EQ(spec.fmt, ElemFormat::E2M1);
  EXPECT_EQ(spec.scale, ScaleRule::Even);
  EXPECT_EQ(spec.round, Rounding::Rne);
  EXPECT_EQ(spec.inter, Intermediate::F32);
  EXPECT_EQ(spec.layout, ScaleLayout::Plain);
  EXPECT_EQ(spec.arch, "gfx950");
  EXPECT_EQ(printSpec(spec), kRotateQuant);
}

TEST(SpecParse, RotateQuantMoeCanonicalRoundTrip) {
  KernelSpec spec = parsedOrDie(kRotateQuantMoe);
  EXPECT_EQ(spec.op, KernelOp::RotateQuantMoe);
  EXPECT_EQ(spec.K, 7168);
  EXPECT_EQ(spec.RS, 128);
  EXPECT_EQ(spec.rot, RotationKind::Learned);
  EXPECT_EQ(spec.M, 64);
  EXPECT_EQ(spec.topk, 8);
  EXPECT_EQ(spec.E, 256);
  EXPECT_EQ(spec.block, 64);
  EXPECT_EQ(spec.stage, 2);
  EXPECT_EQ(spec.emask, 1);
  EXPECT_EQ(spec.fmt, ElemFormat::E4M3);
  EXPECT_EQ(spec.scale, ScaleRule::Rceil);
  EXPECT_EQ(spec.round, Rounding::Sr);
  EXPECT_EQ(spec.inter, Intermediate::Bf16);
  EXPECT_EQ(spec.layout, ScaleLayout::A4W4Shuffle);
  EXPECT_EQ(printSpec(spec), kRotateQuantMoe);
}

TEST(SpecParse, RotateQuantGemmCanonicalRoundTrip) {
  KernelSpec spec = parsedOrDie(kRotateQuantGemm);
  EXPECT_EQ(spec.op, KernelOp::RotateQuantGemm);
  EXPECT_EQ(spec.K, 4096);
  EXPECT_EQ(spec.N, 14336);
  EXPECT_EQ(spec.RS, 32);
  EXPECT_EQ(spec.rot, RotationKind::HadamardButterfly);
  EXPECT_EQ(spec.M, 1);
  EXPECT_EQ(spec.scale, ScaleRule::Floor);
  EXPECT_EQ(spec.layout, ScaleLayout::A4W4Shuffle);
  EXPECT_EQ(spec.wlayout, WeightLayout::Preshuffle16x16);
  EXPECT_EQ(printSpec(spec), kRotateQuantGemm);
}

TEST(SpecParse, QuantWeightCanonicalRoundTrip) {
  KernelSpec spec = parsedOrDie(kQuantWeight);
  EXPECT_EQ(spec.op, KernelOp::QuantWeight);
  EXPECT_EQ(spec.K, 2048);
  EXPECT_EQ(spec.N, 512);
  EXPECT_EQ(spec.RS, 256);
  EXPECT_EQ(spec.rot, RotationKind::LearnedPerBlock);
  EXPECT_EQ(spec.M, 16); // not a key of quant_weight: stays at the struct default
  EXPECT_EQ(spec.fmt, ElemFormat::E2M3);
  EXPECT_EQ(spec.scale, ScaleRule::Even126);
  EXPECT_EQ(spec.inter, Intermediate::Bf16);
  EXPECT_EQ(printSpec(spec), kQuantWeight);
}

TEST(SpecParse, DefaultsAreFilledAndWrittenOut) {
  EXPECT_EQ(printSpec(parsedOrDie("rotate_quant:K=4096")),
            "rotate_quant:K=4096,RS=0,rot=none,M=16,fmt=fp4,scale=even,round=rne,inter=f32,"
            "layout=plain,arch=gfx950");
  // rot defaults to hadamard once there is a rotation block.
  EXPECT_EQ(printSpec(parsedOrDie("rotate_quant:K=4096,RS=64")),
            "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=even,round=rne,inter=f32,"
            "layout=plain,arch=gfx950");
  // The MoE kernel's scales default to the gemm_a4w4 shuffle.
  EXPECT_EQ(printSpec(parsedOrDie("rotate_quant_moe:K=7168,topk=8,E=256")),
            "rotate_quant_moe:K=7168,RS=0,rot=none,M=16,topk=8,E=256,block=32,stage=1,emask=0,"
            "fmt=fp4,"
            "scale=even,round=rne,inter=f32,layout=a4w4_shuffle,arch=gfx950");
  EXPECT_EQ(printSpec(parsedOrDie("rotate_quant_gemm:K=4096,N=4096")),
            "rotate_quant_gemm:K=4096,N=4096,RS=0,rot=none,M=16,fmt=fp4,scale=even,round=rne,"
            "inter=f32,layout=plain,wlayout=plain,arch=gfx950");
  EXPECT_EQ(printSpec(parsedOrDie("quant_weight:K=4096,N=4096")),
            "quant_weight:K=4096,N=4096,RS=0,rot=none,fmt=fp4,scale=even,round=rne,inter=f32,"
            "layout=plain,wlayout=plain,arch=gfx950");
  // An explicit value beats the op's default.
  EXPECT_EQ(parsedOrDie("rotate_quant_moe:K=64,topk=1,E=1,layout=plain").layout,
            ScaleLayout::Plain);
}

TEST(SpecParse, KeyOrderDoesNotMatter) {
  for (const char *canonical : {kRotateQuant, kRotateQuantMoe, kRotateQuantGemm, kQuantWeight}) {
    std::string text = canonical;
    std::string op = text.substr(0, text.find(':'));
    std::vector<std::string> items = splitItems(text);
    KernelSpec expected = parsedOrDie(text);
    // Every rotation and the reversal of every rotation.
    for (size_t shift = 0; shift < items.size(); ++shift) {
      std::rotate(items.begin(), items.begin() + 1, items.end());
      EXPECT_EQ(parsedOrDie(joinItems(op, items)), expected) << joinItems(op, items);
      std::vector<std::string> reversed(items.rbegin(), items.rend());
      EXPECT_EQ(parsedOrDie(joinItems(op, reversed)), expected) << joinItems(op, reversed);
    }
  }
}

TEST(SpecParse, OuterWhitespaceIsTrimmed) {
  EXPECT_EQ(parsedOrDie(" \t\r\n rotate_quant:K=4096,RS=64\n\v\f "),
            parsedOrDie("rotate_quant:K=4096,RS=64"));
}

TEST(SpecParse, LeadingZerosAreDecimal) {
  // Still decimal (no octal); printing drops them.
  EXPECT_EQ(printSpec(parsedOrDie("rotate_quant:K=000004096,RS=064")),
            printSpec(parsedOrDie("rotate_quant:K=4096,RS=64")));
}

TEST(SpecParse, EveryFormatAndRuleSpelling) {
  for (const char *fmt : {"fp4", "fp6_e2m3", "fp6_e3m2", "fp8_e4m3", "fp8_e5m2"})
    for (const char *scale : {"floor", "even", "rceil", "rceil_recip", "ceil", "even126"}) {
      std::string text =
          std::string("rotate_quant:K=256,fmt=") + fmt + ",scale=" + scale + ",round=sr";
      KernelSpec spec = parsedOrDie(text);
      std::string printed = printSpec(spec);
      EXPECT_NE(printed.find(std::string("fmt=") + fmt + ","), std::string::npos) << printed;
      EXPECT_NE(printed.find(std::string("scale=") + scale + ","), std::string::npos) << printed;
    }
}

TEST(SpecParse, SpecKeysInCanonicalOrder) {
  auto keys = [](KernelOp op) {
    std::string out;
    for (std::string_view key : specKeys(op))
      out += std::string(key) + ",";
    return out;
  };
  EXPECT_EQ(keys(KernelOp::RotateQuant),
            "K,RS,rot,rconv,select,layers,M,fmt,scale,round,inter,layout,arch,");
  EXPECT_EQ(keys(KernelOp::RotateQuantMoe),
            "K,RS,rot,rconv,select,layers,M,topk,E,block,stage,emask,fmt,scale,round,inter,layout,"
            "arch,");
  EXPECT_EQ(keys(KernelOp::RotateQuantGemm),
            "K,N,RS,rot,rconv,select,layers,M,fmt,scale,round,inter,layout,wlayout,arch,");
  EXPECT_EQ(keys(KernelOp::RmsnormRotateQuant),
            "K,RS,rot,rconv,select,layers,add,M,fmt,scale,round,inter,layout,arch,");
  EXPECT_EQ(keys(KernelOp::QuantWeight), "K,N,RS,rot,rconv,fmt,scale,round,inter,layout,wlayout,arch,");
  EXPECT_EQ(requiredSpecKeys(KernelOp::RotateQuant), std::vector<std::string_view>({"K"}));
  EXPECT_EQ(requiredSpecKeys(KernelOp::RotateQuantMoe),
            std::vector<std::string_view>({"K", "topk", "E"}));
  EXPECT_EQ(requiredSpecKeys(KernelOp::RotateQuantGemm), std::vector<std::string_view>({"K", "N"}));
  EXPECT_EQ(requiredSpecKeys(KernelOp::QuantWeight), std::vector<std::string_view>({"K", "N"}));
}

TEST(SpecParse, OpNamesRoundTrip) {
  for (KernelOp op : kAllKernelOps)
    EXPECT_EQ(parseKernelOp(kernelOpName(op)), op);
  EXPECT_EQ(parseKernelOp("rotate"), std::nullopt);
  EXPECT_STREQ(kernelOpName(static_cast<KernelOp>(99)), "?");
}

// --- Syntax rejections -----------------------------------------------------

TEST(SpecParse, RconvIsWrittenForLearnedRotationsOnly) {
  // Learned: the default convention is written out, xrt round-trips.
  for (const char *rot : {"learned", "learned_per_block"}) {
    KernelSpec spec = parsedOrDie(std::string("rotate_quant:K=4096,RS=64,rot=") + rot);
    EXPECT_EQ(spec.rconv, RotationConvention::XR);
    EXPECT_NE(printSpec(spec).find(std::string("rot=") + rot + ",rconv=xr,M="), std::string::npos)
        << printSpec(spec);
    KernelSpec transposed =
        parsedOrDie(std::string("rotate_quant:K=4096,RS=64,rconv=xrt,rot=") + rot);
    EXPECT_EQ(transposed.rconv, RotationConvention::XRt);
    EXPECT_EQ(parsedOrDie(printSpec(transposed)), transposed);
    EXPECT_NE(transposed, spec);
  }
  // Every other rotation: no rconv in the text, and giving one is an error
  // that names the key and the rotation.
  KernelSpec hadamard = parsedOrDie("rotate_quant:K=4096,RS=64");
  EXPECT_EQ(printSpec(hadamard).find("rconv"), std::string::npos) << printSpec(hadamard);
  for (const char *text : {"rotate_quant:K=4096,RS=64,rconv=xrt", "rotate_quant:K=4096,rconv=xr",
                           "quant_weight:K=4096,N=64,RS=32,rot=hadamard_butterfly,rconv=xrt"}) {
    Result<KernelSpec> parsed = parseSpec(text);
    ASSERT_FALSE(parsed.ok()) << text;
    expectMentions(parsed.error(), {"rconv", "learned"});
  }
  Result<KernelSpec> badValue = parseSpec("rotate_quant:K=4096,RS=64,rot=learned,rconv=rtx");
  ASSERT_FALSE(badValue.ok());
  expectMentions(badValue.error(), {"rconv=rtx", "xr, xrt"});
  // Built in code: a convention on a rotation without a matrix is refused.
  KernelSpec built = hadamard;
  built.rconv = RotationConvention::XRt;
  Status invalid = validateSpec(built);
  ASSERT_FALSE(invalid.ok());
  expectMentions(invalid.message(), {"rconv", "learned"});
}

TEST(SpecParse, SelectIsWrittenOnlyWhenNotOff) {
  // off (the default) leaves the text as it was before the key existed, and
  // select=off given explicitly means the same spec.
  KernelSpec plain = parsedOrDie("rotate_quant:K=4096,RS=64");
  EXPECT_EQ(plain.select, RotationSelect::Off);
  EXPECT_EQ(printSpec(plain).find("select"), std::string::npos) << printSpec(plain);
  EXPECT_EQ(parsedOrDie("rotate_quant:K=4096,RS=64,select=off"), plain);
  KernelSpec flag = parsedOrDie("rotate_quant:K=4096,RS=64,select=flag");
  EXPECT_EQ(flag.select, RotationSelect::Flag);
  EXPECT_NE(printSpec(flag).find("rot=hadamard,select=flag,M=16"), std::string::npos)
      << printSpec(flag);
  EXPECT_EQ(printSpec(flag).find("layers"), std::string::npos);
  KernelSpec mask = parsedOrDie("rotate_quant:K=4096,RS=64,layers=36,select=mask");
  EXPECT_EQ(mask.layers, 36);
  EXPECT_NE(printSpec(mask).find("select=mask,layers=36,M=16"), std::string::npos)
      << printSpec(mask);
  for (const KernelSpec &spec : {flag, mask})
    EXPECT_EQ(parsedOrDie(printSpec(spec)), spec);
  EXPECT_NE(flag, plain);
}

TEST(SpecReject, SelectNeedsARotationAndMaskNeedsLayers) {
  // No rotation to switch off.
  expectMentions(errorOf("rotate_quant:K=4096,select=flag"), {"select", "RS > 0"});
  expectMentions(errorOf("rotate_quant:K=4096,RS=0,select=off"), {"select", "RS > 0"});
  // The mask's length is part of the kernel.
  expectMentions(errorOf("rotate_quant:K=4096,RS=64,select=mask"),
                 {"layers=0", "select=mask needs layers=N", "1..65536"});
  expectMentions(errorOf("rotate_quant:K=4096,RS=64,select=mask,layers=65537"), {"1..65536"});
  expectMentions(errorOf("rotate_quant:K=4096,RS=64,select=flag,layers=4"),
                 {"layers applies only to select=mask", "select=flag"});
  expectMentions(errorOf("rotate_quant:K=4096,RS=64,layers=4"), {"layers", "select=off"});
  expectMentions(errorOf("rotate_quant:K=4096,RS=64,select=always"),
                 {"select=always", "off, flag, mask"});
  // Every activation family selects; the weight pass does not (a weight is
  // quantized once, rotated or not, by quantize).
  expectMentions(errorOf("quant_weight:K=4096,N=64,RS=64,select=flag"),
                 {"key 'select'", "does not belong to quant_weight"});
  expectMentions(errorOf("rotate_quant_gemm:K=4096,N=64,RS=0,select=flag"),
                 {"select", "RS > 0"});
  expectMentions(errorOf("rotate_quant_moe:K=4096,topk=2,E=8,select=flag"),
                 {"select", "RS > 0"});
  EXPECT_EQ(parsedOrDie("rotate_quant_moe:K=4096,RS=64,topk=2,E=8,select=mask,layers=3").layers,
            3);
  // Built in code: a foreign or out-of-range field is refused by name.
  KernelSpec built = parsedOrDie("rotate_quant:K=4096");
  built.select = RotationSelect::Flag;
  expectMentions(validateSpec(built).message(), {"select", "RS > 0"});
  built = parsedOrDie("rotate_quant:K=4096,RS=64");
  built.select = static_cast<RotationSelect>(9);
  expectMentions(validateSpec(built).message(), {"select=?", "off, flag, mask"});
}

TEST(SpecReject, RnaIsAiterA6W6sAndNeedsE2M3) {
  const KernelSpec contract =
      parsedOrDie("rotate_quant:K=4096,RS=32,fmt=fp6_e2m3,scale=a6w6,round=rna");
  EXPECT_EQ(contract.round, Rounding::Rna);
  EXPECT_EQ(contract.scale, ScaleRule::A6W6);
  EXPECT_EQ(parsedOrDie(printSpec(contract)), contract);
  EXPECT_NE(printSpec(contract).find("scale=a6w6,round=rna"), std::string::npos);
  for (const char *fmt : {"fp4", "fp6_e3m2", "fp8_e4m3", "fp8_e5m2"}) {
    const std::string got = std::string("got fmt=") + fmt;
    expectMentions(errorOf(std::string("rotate_quant:K=4096,round=rna,fmt=") + fmt),
                   {"round=rna", "requires fmt=fp6_e2m3", got.c_str()});
  }
  // Weights take the contract too (both GEMM operands are A6W6's).
  EXPECT_EQ(parsedOrDie("quant_weight:K=4096,N=64,fmt=fp6_e2m3,scale=a6w6,round=rna").round,
            Rounding::Rna);
  // The scale rule alone is any format's.
  EXPECT_EQ(parsedOrDie("rotate_quant:K=4096,scale=a6w6").scale, ScaleRule::A6W6);
}

TEST(SpecReject, EmptyInput) {
  expectMentions(errorOf(""), {"empty spec"});
  expectMentions(errorOf(" \t\n"), {"empty spec"});
}

TEST(SpecReject, InputTooLong) {
  std::string text = "rotate_quant:K=4096" + std::string(kMaxSpecLength, ' ');
  expectMentions(errorOf(text), {std::to_string(text.size()).c_str(), "4096"});
  // Exactly at the limit, outer whitespace is still trimmed and accepted.
  std::string atLimit = "rotate_quant:K=4096";
  atLimit += std::string(kMaxSpecLength - atLimit.size(), ' ');
  EXPECT_TRUE(parseSpec(atLimit).ok());
}

TEST(SpecReject, MissingColonOrUnknownOp) {
  expectMentions(errorOf("rotate_quant"), {"missing ':'", "rotate_quant", "quant_weight"});
  expectMentions(errorOf("rotate_quant,K=4096"), {"missing ':'", "'rotate_quant,K=4096'"});
  expectMentions(errorOf("rotate:K=4096"),
                 {"unknown op 'rotate'", "rotate_quant, rotate_quant_moe, rotate_quant_gemm, "
                                         "quant_weight"});
  expectMentions(errorOf("Rotate_Quant:K=4096"), {"unknown op 'Rotate_Quant'"});
  expectMentions(errorOf(":K=4096"), {"empty op", "rotate_quant"});
}

TEST(SpecReject, InnerWhitespace) {
  expectMentions(errorOf("rotate_quant:K=4096, RS=64"), {"whitespace", "' RS=64'"});
  expectMentions(errorOf("rotate_quant:K= 4096"), {"whitespace", "'K= 4096'"});
  expectMentions(errorOf("rotate_quant :K=4096"), {"whitespace", "op 'rotate_quant '"});
  expectMentions(errorOf("rotate_quant:K=4096,RS=64\t,M=1"), {"whitespace", "'RS=64\\x09'"});
}

TEST(SpecReject, EmptyKeyOrValue) {
  expectMentions(errorOf("rotate_quant:=4096"), {"empty key", "'=4096'"});
  expectMentions(errorOf("rotate_quant:K=4096,RS="), {"empty value", "'RS='", "decimal"});
  expectMentions(errorOf("rotate_quant:K=4096,rot="), {"empty value", "'rot='", "none, hadamard"});
}

TEST(SpecReject, KeyWithoutEquals) {
  expectMentions(errorOf("rotate_quant:K"), {"'K'", "no '='"});
  expectMentions(errorOf("rotate_quant:K=4096,RS"), {"'RS'", "no '='"});
}

TEST(SpecReject, TrailingCommaAndEmptyItems) {
  expectMentions(errorOf("rotate_quant:K=4096,"), {"trailing comma", "'K=4096'"});
  expectMentions(errorOf("rotate_quant:K=4096,,RS=64"), {"empty item", "'K=4096'"});
  expectMentions(errorOf("rotate_quant:,K=4096"), {"empty item", "first ','"});
}

TEST(SpecReject, UnknownKey) {
  std::string message = errorOf("rotate_quant:K=4096,bogus=1");
  expectMentions(message, {"unknown key 'bogus'", "'bogus=1'",
                           "K, RS, rot, rconv, select, layers, M, fmt, scale, round, inter, "
                           "layout, arch"});
  // A key in the wrong case gets a hint.
  expectMentions(errorOf("rotate_quant:k=4096"), {"unknown key 'k'", "did you mean 'K'"});
  expectMentions(errorOf("rotate_quant:K=4096,rs=64"), {"unknown key 'rs'", "'RS'"});
}

TEST(SpecReject, DuplicateKey) {
  expectMentions(errorOf("rotate_quant:K=4096,RS=64,K=2048"),
                 {"duplicate key 'K'", "'K=4096'", "'K=2048'"});
  // Even with equal values: one spelling per spec.
  expectMentions(errorOf("rotate_quant:K=4096,K=4096"), {"duplicate key 'K'"});
}

TEST(SpecReject, KeyOfAnotherOp) {
  expectMentions(errorOf("rotate_quant:K=4096,N=128"),
                 {"key 'N'", "'N=128'", "does not belong to rotate_quant",
                  "its keys: K, RS, rot, rconv, select, layers, M, fmt, scale, round, inter, "
                  "layout, arch"});
  expectMentions(errorOf("quant_weight:K=4096,N=128,M=16"),
                 {"key 'M'", "'M=16'", "does not belong to quant_weight"});
  expectMentions(errorOf("rotate_quant_gemm:K=4096,N=128,topk=2"),
                 {"key 'topk'", "does not belong to rotate_quant_gemm"});
  expectMentions(errorOf("rotate_quant_moe:K=4096,topk=1,E=8,wlayout=plain"),
                 {"key 'wlayout'", "does not belong to rotate_quant_moe"});
}

TEST(SpecReject, MalformedNumber) {
  for (const char *value : {"-32", "+32", "0x40", "4k", "4096.0", "1e3", "4_096", "\xef\xbc\x94"}) {
    std::string text = std::string("rotate_quant:K=") + value;
    std::string message = errorOf(text);
    expectMentions(message, {"K=", "decimal number"});
  }
  expectMentions(errorOf("rotate_quant:K=4096,RS=6x4"), {"RS=6x4", "decimal number"});
  expectMentions(errorOf("rotate_quant_moe:K=4096,topk=-1,E=8"), {"topk=-1", "decimal"});
}

TEST(SpecReject, NumberTooLong) {
  expectMentions(errorOf("rotate_quant:K=1234567890"), {"K=1234567890", "10 digits", "at most 9"});
  expectMentions(errorOf("rotate_quant:K=4096,M=99999999999999999999999999999999"),
                 {"M=9999", "32 digits"});
  // Nine digits parse (and then fail the range check, not the number syntax).
  expectMentions(errorOf("rotate_quant:K=999999999"), {"K=999999999", "32..65536"});
}

TEST(SpecReject, UnknownEnumValue) {
  expectMentions(errorOf("rotate_quant:K=4096,RS=64,rot=fwht"),
                 {"rot=fwht", "none, hadamard, hadamard_butterfly, learned, learned_per_block"});
  expectMentions(errorOf("rotate_quant:K=4096,fmt=fp5"),
                 {"fmt=fp5", "fp4, fp6_e2m3, fp6_e3m2, fp8_e4m3, fp8_e5m2"});
  expectMentions(errorOf("rotate_quant:K=4096,scale=round"),
                 {"scale=round", "floor, even, rceil, rceil_recip, ceil, even126"});
  expectMentions(errorOf("rotate_quant:K=4096,round=rtz"), {"round=rtz", "rne, sr"});
  expectMentions(errorOf("rotate_quant:K=4096,inter=f16"), {"inter=f16", "f32, bf16"});
  expectMentions(errorOf("rotate_quant:K=4096,layout=shuffled"),
                 {"layout=shuffled", "plain, a4w4_shuffle"});
  expectMentions(errorOf("quant_weight:K=4096,N=16,wlayout=preshuffle"),
                 {"wlayout=preshuffle", "plain, preshuffle_16x16"});
  expectMentions(errorOf("rotate_quant:K=4096,fmt=FP4"), {"fmt=FP4"});
  // Control and high bytes are escaped so the message stays one line.
  expectMentions(errorOf(std::string("rotate_quant:K=4096,fmt=fp4\x01\xff", 29)),
                 {"fmt=fp4\\x01\\xFF"});
  expectMentions(errorOf(std::string("rotate_quant:K=4096,fmt=fp4\0", 28)), {"fmt=fp4\\x00"});
}

TEST(SpecReject, MissingRequiredKey) {
  expectMentions(errorOf("rotate_quant:RS=64"), {"missing required key 'K'", "rotate_quant"});
  expectMentions(errorOf("rotate_quant:"), {"missing required key 'K'"});
  expectMentions(errorOf("rotate_quant_gemm:K=4096"),
                 {"missing required key 'N'", "rotate_quant_gemm", "required: K, N"});
  expectMentions(errorOf("quant_weight:K=4096"), {"missing required key 'N'", "quant_weight"});
  expectMentions(errorOf("rotate_quant_moe:K=4096,E=8"),
                 {"missing required key 'topk'", "required: K, topk, E"});
  expectMentions(errorOf("rotate_quant_moe:K=4096,topk=8"), {"missing required key 'E'"});
}

// --- Rule rejections -------------------------------------------------------

TEST(SpecReject, K) {
  expectMentions(errorOf("rotate_quant:K=100"), {"K=100", "multiple of 32", "32..65536"});
  expectMentions(errorOf("rotate_quant:K=0"), {"K=0", "32..65536"});
  expectMentions(errorOf("rotate_quant:K=65568"), {"K=65568", "32..65536"});
  expectMentions(errorOf("rotate_quant:K=4128,RS=64"), {"K=4128", "multiple of RS=64"});
  expectMentions(errorOf("rotate_quant:K=96,RS=256"), {"K=96", "multiple of RS=256"});
  EXPECT_TRUE(parseSpec("rotate_quant:K=32").ok());
  EXPECT_TRUE(parseSpec("rotate_quant:K=65536,RS=256").ok());
}

TEST(SpecReject, RS) {
  expectMentions(errorOf("rotate_quant:K=4096,RS=48"),
                 {"RS=48", "RS must be one of 0, 32, 64, 128, 256"});
  expectMentions(errorOf("rotate_quant:K=4096,RS=512"), {"RS=512", "0, 32, 64, 128, 256"});
}

TEST(SpecReject, RotationNeedsBlockAndBlockNeedsRotation) {
  expectMentions(errorOf("rotate_quant:K=4096,rot=hadamard"), {"rot=hadamard", "RS=0", "rot=none"});
  expectMentions(errorOf("rotate_quant:K=4096,RS=0,rot=learned"), {"rot=learned", "RS=0"});
  expectMentions(errorOf("rotate_quant:K=4096,RS=64,rot=none"),
                 {"rot=none", "RS=64", "hadamard, hadamard_butterfly, learned, learned_per_block"});
}

TEST(SpecReject, M) {
  expectMentions(errorOf("rotate_quant:K=4096,M=3"),
                 {"M=3", "M must be one of 1, 2, 4, 8, 16, 32, 64, 128, 256"});
  expectMentions(errorOf("rotate_quant_gemm:K=4096,N=16,M=512"), {"M=512"});
  expectMentions(errorOf("rotate_quant:K=4096,M=0"), {"M=0"});
}

TEST(SpecReject, MoeShapes) {
  expectMentions(errorOf("rotate_quant_moe:K=4096,topk=1,E=0"), {"E=0", "1..1024"});
  expectMentions(errorOf("rotate_quant_moe:K=4096,topk=1,E=1025"), {"E=1025", "1..1024"});
  expectMentions(errorOf("rotate_quant_moe:K=4096,topk=9,E=8"), {"topk=9 must be <= E=8"});
  expectMentions(errorOf("rotate_quant_moe:K=4096,topk=0,E=8"), {"topk=0", "1..E", "E=8"});
  expectMentions(errorOf("rotate_quant_moe:K=4096,topk=2,E=8,block=80"),
                 {"block=80", "block must be one of 16, 32, 64, 128"});
  expectMentions(errorOf("rotate_quant_moe:K=4096,topk=2,E=8,block=8"),
                 {"block=8", "block must be one of 16, 32, 64, 128"});
  EXPECT_TRUE(parseSpec("rotate_quant_moe:K=4096,topk=127,E=1024,block=128").ok());
  // The range: block 16..128, topk up to 10 and beyond, E up to 513
  // (512 routed + a fused shared expert), K 512..16384.
  for (int block : {16, 32, 64, 128})
    for (const char *shape : {"K=512,topk=10,E=513", "K=16384,topk=1,E=8", "K=7168,topk=8,E=256"})
      EXPECT_TRUE(parseSpec("rotate_quant_moe:" + std::string(shape) +
                            ",block=" + std::to_string(block) + ",M=256")
                      .ok())
          << shape << " block=" << block;
  expectMentions(errorOf("rotate_quant_moe:K=4096,topk=2,E=8,stage=3"),
                 {"stage=3", "stage must be 1", "or 2"});
  expectMentions(errorOf("rotate_quant_moe:K=4096,topk=2,E=8,stage=0"), {"stage=0"});
  expectMentions(errorOf("rotate_quant_moe:K=4096,topk=2,E=8,emask=2"),
                 {"emask=2", "emask must be 0", "expert_mask [E]"});
  // stage and emask belong to rotate_quant_moe only.
  expectMentions(errorOf("rotate_quant:K=4096,stage=2"), {"stage"});
  expectMentions(errorOf("rotate_quant:K=4096,emask=1"), {"emask"});
  expectMentions(errorOf("rotate_quant_moe:K=4096,topk=128,E=1024"), {"topk=128", "<= 127"});
}

TEST(SpecReject, N) {
  expectMentions(errorOf("rotate_quant_gemm:K=4096,N=20"),
                 {"N=20", "multiple of 16", "16..1048576"});
  expectMentions(errorOf("quant_weight:K=4096,N=0"), {"N=0", "16..1048576"});
  expectMentions(errorOf("quant_weight:K=4096,N=1048592"), {"N=1048592", "16..1048576"});
  EXPECT_TRUE(parseSpec("quant_weight:K=4096,N=1048576").ok());
  EXPECT_TRUE(parseSpec("rotate_quant_gemm:K=4096,N=16").ok());
}

TEST(SpecReject, FormatPerOp) {
  for (const char *fmt : {"fp4", "fp6_e2m3", "fp6_e3m2", "fp8_e4m3", "fp8_e5m2"}) {
    EXPECT_TRUE(parseSpec(std::string("rotate_quant:K=4096,fmt=") + fmt).ok()) << fmt;
    EXPECT_TRUE(parseSpec(std::string("rotate_quant_moe:K=4096,topk=1,E=2,fmt=") + fmt).ok());
  }
  EXPECT_TRUE(parseSpec("rotate_quant_gemm:K=4096,N=16,fmt=fp6_e2m3").ok()); // W6A16
  for (const char *fmt : {"fp6_e3m2", "fp8_e4m3", "fp8_e5m2"}) {
    const std::string key = std::string("fmt=") + fmt;
    expectMentions(errorOf("rotate_quant_gemm:K=4096,N=16," + key),
                   {key.c_str(), "rotate_quant_gemm supports fmt=fp4 or fmt=fp6_e2m3", "W6A16"});
  }
  expectMentions(errorOf("quant_weight:K=4096,N=16,fmt=fp8_e4m3"),
                 {"fmt=fp8_e4m3", "quant_weight", "fp4", "fp6_e2m3"});
  expectMentions(errorOf("quant_weight:K=4096,N=16,fmt=fp6_e3m2"), {"fmt=fp6_e3m2"});
  EXPECT_TRUE(parseSpec("quant_weight:K=4096,N=16,fmt=fp6_e2m3").ok());
}

TEST(SpecReject, PreshuffleNeedsFp4AndK64) {
  expectMentions(errorOf("quant_weight:K=4096,N=16,fmt=fp6_e2m3,wlayout=preshuffle_16x16"),
                 {"wlayout=preshuffle_16x16", "fmt=fp4", "fp6_e2m3"});
  expectMentions(errorOf("quant_weight:K=96,N=16,wlayout=preshuffle_16x16"),
                 {"wlayout=preshuffle_16x16", "multiple of 64", "K=96"});
  EXPECT_TRUE(parseSpec("quant_weight:K=128,N=16,wlayout=preshuffle_16x16").ok());
}

TEST(SpecReject, W6A16NeedsFp6E2M3K128AndQuantWeight) {
  expectMentions(errorOf("quant_weight:K=4096,N=16,wlayout=w6a16_16x128"),
                 {"wlayout=w6a16_16x128", "requires fmt=fp6_e2m3", "got fmt=fp4"});
  expectMentions(errorOf("quant_weight:K=192,N=16,fmt=fp6_e2m3,wlayout=w6a16_16x128"),
                 {"wlayout=w6a16_16x128", "multiple of 128", "K=192"});
  expectMentions(errorOf("rotate_quant_gemm:K=4096,N=16,M=1,wlayout=w6a16_16x128"),
                 {"wlayout=w6a16_16x128", "requires fmt=fp6_e2m3", "got fmt=fp4"});
  EXPECT_TRUE(
      parseSpec("rotate_quant_gemm:K=4096,N=16,M=1,fmt=fp6_e2m3,wlayout=w6a16_16x128").ok());
  // wlayout is not a key of rotate_quant at all.
  expectMentions(errorOf("rotate_quant:K=4096,wlayout=w6a16_16x128"), {"wlayout"});
  Result<KernelSpec> ok = parseSpec("quant_weight:K=128,N=16,fmt=fp6_e2m3,wlayout=w6a16_16x128");
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(ok.value().wlayout, WeightLayout::W6A16Tile16x128);
  EXPECT_EQ(parsedOrDie(printSpec(ok.value())), ok.value());
  EXPECT_NE(printSpec(ok.value()).find("wlayout=w6a16_16x128"), std::string::npos);
}

TEST(SpecReject, A6W6TilesNeedFp6AndRotateQuant) {
  expectMentions(errorOf("rotate_quant:K=4096,RS=32,layout=mxfp6_c0c1_256_padk2"),
                 {"layout=mxfp6_c0c1_256_padk2", "fp6_e2m3 or fp6_e3m2", "got fmt=fp4"});
  expectMentions(errorOf("rotate_quant:K=4096,fmt=fp8_e4m3,layout=mxfp6_c0c1_256_padk2"),
                 {"layout=mxfp6_c0c1_256_padk2", "got fmt=fp8_e4m3"});
  expectMentions(errorOf("quant_weight:K=4096,N=16,fmt=fp6_e2m3,layout=mxfp6_c0c1_256_padk2"),
                 {"layout=mxfp6_c0c1_256_padk2", "rotate_quant only", "not quant_weight"});
  expectMentions(
      errorOf("rotate_quant_moe:K=4096,topk=2,E=8,fmt=fp6_e2m3,layout=mxfp6_c0c1_256_padk2"),
      {"layout=mxfp6_c0c1_256_padk2", "not rotate_quant_moe"});
  expectMentions(
      errorOf("rotate_quant_gemm:K=4096,N=16,M=1,fmt=fp6_e2m3,layout=mxfp6_c0c1_256_padk2"),
      {"layout=mxfp6_c0c1_256_padk2", "not rotate_quant_gemm"});
  for (const char *text :
       {"rotate_quant:K=4064,RS=32,fmt=fp6_e2m3,scale=a6w6,round=rna,layout=mxfp6_c0c1_256_padk2",
        "rotate_quant:K=96,fmt=fp6_e3m2,layout=mxfp6_c0c1_256_padk2"}) {
    Result<KernelSpec> ok = parseSpec(text);
    ASSERT_TRUE(ok.ok()) << ok.error();
    EXPECT_EQ(ok.value().layout, ScaleLayout::A6W6Tiles);
    EXPECT_EQ(parsedOrDie(printSpec(ok.value())), ok.value());
    EXPECT_NE(printSpec(ok.value()).find("layout=mxfp6_c0c1_256_padk2"), std::string::npos);
  }
}

TEST(SpecReject, Arch) {
  expectMentions(errorOf("rotate_quant:K=4096,arch=gfx942"), {"arch=gfx942", "gfx950"});
  expectMentions(errorOf("rotate_quant:K=4096,arch=GFX950"), {"arch=GFX950"});
}

// --- validateSpec on specs built in code -----------------------------------

TEST(SpecValidate, BuiltSpecsRoundTrip) {
  KernelSpec gemm;
  gemm.op = KernelOp::RotateQuantGemm;
  gemm.K = 8192;
  gemm.N = 1024;
  gemm.RS = 128;
  gemm.rot = RotationKind::Learned;
  gemm.M = 256;
  gemm.wlayout = WeightLayout::Preshuffle16x16;
  ASSERT_TRUE(validateSpec(gemm).ok()) << validateSpec(gemm).message();
  EXPECT_EQ(parsedOrDie(printSpec(gemm)), gemm);

  KernelSpec moe;
  moe.op = KernelOp::RotateQuantMoe;
  moe.K = 2048;
  moe.topk = 2;
  moe.E = 64;
  moe.fmt = ElemFormat::E5M2;
  moe.round = Rounding::Sr;
  ASSERT_TRUE(validateSpec(moe).ok()) << validateSpec(moe).message();
  // Built in code, layout is whatever was set (plain here); printing writes
  // it out, so the round trip keeps it even though the parser's default
  // differs.
  EXPECT_EQ(parsedOrDie(printSpec(moe)), moe);
}

TEST(SpecValidate, DefaultConstructedIsInvalidUntilKIsSet) {
  KernelSpec spec;
  expectMentions(validateSpec(spec).message(), {"K=0"});
  spec.K = 4096;
  EXPECT_TRUE(validateSpec(spec).ok());
}

TEST(SpecValidate, ForeignFieldsMustKeepDefaults) {
  KernelSpec spec;
  spec.K = 4096;
  spec.N = 128;
  expectMentions(validateSpec(spec).message(),
                 {"N=128", "does not belong to rotate_quant", "default 0"});
  spec.N = 0;
  spec.wlayout = WeightLayout::Preshuffle16x16;
  expectMentions(validateSpec(spec).message(), {"wlayout=preshuffle_16x16", "does not belong"});

  KernelSpec weight;
  weight.op = KernelOp::QuantWeight;
  weight.K = 4096;
  weight.N = 4096;
  ASSERT_TRUE(validateSpec(weight).ok());
  weight.M = 32;
  expectMentions(validateSpec(weight).message(), {"M=32", "does not belong to quant_weight"});
  weight.M = 16;
  weight.topk = 2;
  expectMentions(validateSpec(weight).message(), {"topk=2", "does not belong"});
}

TEST(SpecValidate, OutOfRangeEnumsAndOddValues) {
  KernelSpec spec;
  spec.K = 4096;
  spec.fmt = static_cast<ElemFormat>(17);
  expectMentions(validateSpec(spec).message(), {"fmt", "17", "fp4"});
  EXPECT_NE(printSpec(spec).find("fmt=?"), std::string::npos);
  EXPECT_FALSE(parseSpec(printSpec(spec)).ok());
  spec.fmt = ElemFormat::E2M1;
  spec.scale = static_cast<ScaleRule>(200);
  expectMentions(validateSpec(spec).message(), {"scale", "200"});
  spec.scale = ScaleRule::Even;
  spec.op = static_cast<KernelOp>(9);
  expectMentions(validateSpec(spec).message(), {"op", "9", "rotate_quant"});
  spec.op = KernelOp::RotateQuant;
  spec.K = -4096;
  expectMentions(validateSpec(spec).message(), {"K=-4096", "32..65536"});
  spec.K = 4096;
  spec.arch = std::string("gfx\0950", 7);
  expectMentions(validateSpec(spec).message(), {"arch=gfx\\x00950", "gfx950"});
  spec.arch = "";
  expectMentions(validateSpec(spec).message(), {"arch=", "gfx950"});
}

// printSpecShort: tables print it instead of 150-character canonical texts.
// It must mean the same spec (parseSpec gives it back) and leave nothing out
// that matters, over every spec of the test matrices.
TEST(SpecShort, ParsesBackToTheSameSpecAndDropsOnlyDefaults) {
  std::vector<KernelSpec> specs;
  for (auto matrix : {testing::rotateQuantSpecMatrix, testing::quantWeightSpecMatrix,
                      testing::rotateQuantMoeSpecMatrix, testing::rotateQuantGemmSpecMatrix})
    for (const KernelSpec &spec : matrix())
      specs.push_back(spec);
  ASSERT_GT(specs.size(), 500u);
  for (const KernelSpec &spec : specs) {
    const std::string text = printSpecShort(spec);
    Result<KernelSpec> back = parseSpec(text);
    ASSERT_TRUE(back.ok()) << text << ": " << back.error();
    EXPECT_EQ(back.value(), spec) << text << " is not " << printSpec(spec);
    EXPECT_LE(text.size(), printSpec(spec).size());
  }
  Result<KernelSpec> decode = parseSpec("rotate_quant:K=4096,RS=64,M=1,scale=even,rot=hadamard");
  ASSERT_TRUE(decode.ok());
  EXPECT_EQ(printSpecShort(decode.value()), "rotate_quant:K=4096,RS=64,M=1");
  Result<KernelSpec> moe = parseSpec("rotate_quant_moe:K=2048,topk=8,E=128,layout=a4w4_shuffle");
  ASSERT_TRUE(moe.ok());
  EXPECT_EQ(printSpecShort(moe.value()), "rotate_quant_moe:K=2048,topk=8,E=128");
}

} // namespace
} // namespace mxf
