//===- test_template_revision.cpp - Goldens that pin kTemplateRevision ----===//
//
// kTemplateRevision is part of every cache key, so a template change that is
// not accompanied by a bump would make mxforge load stale code objects
// compiled by the old template. This test holds SHA-256 hashes of the
// gpu-stage IR (what the templates emit, before any LLVM code generation) for
// a few representative specs, together with the revision they were made at:
//  - a hash differs and the revision is unchanged: the templates changed
//    without a bump. Bump kTemplateRevision and regenerate;
//  - the revision differs: the goldens are stale. Regenerate.
// An LLVM update that changes how MLIR prints the same IR trips it too; bump
// then as well (the LLVM version is part of the key anyway, so it costs
// nothing).
// MXFORGE_REGENERATE_GOLDEN=1 rewrites the file in the source tree.
//
//===----------------------------------------------------------------------===//

#include "compiler/compiler.h"
#include "spec/kernel_spec.h"
#include "support/sha256.h"
#include "abi/versions.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#ifndef MXFORGE_CACHE_GOLDEN_FILE
#error "CMake passes the golden file's path in MXFORGE_CACHE_GOLDEN_FILE"
#endif

namespace mxf {
namespace {

/// One spec per feature the templates branch on: no rotation, each rotation
/// kind, each RS from 32 to 256, R staged whole and in slices, bf16
/// intermediates, the shuffled scale layout, a non-default scale rule, the
/// smallest and a larger K and M.
const char *const kGoldenSpecs[] = {
    "rotate_quant:K=4096,RS=0",
    "rotate_quant:K=4096,RS=32,rot=hadamard",
    "rotate_quant:K=4096,RS=64,rot=learned,inter=bf16",
    "rotate_quant:K=4096,RS=128,rot=learned_per_block,layout=a4w4_shuffle",
    "rotate_quant:K=8192,RS=256,rot=hadamard",
    "rotate_quant:K=4096,RS=256,rot=learned,layout=a4w4_shuffle",
    "rotate_quant:K=4096,RS=64,rot=hadamard,scale=rceil,M=1",
    // AITER's ceil, fp6 with even126's signed zeros, fp8.
    "rotate_quant:K=4096,RS=64,rot=hadamard,scale=ceil",
    "rotate_quant:K=2048,RS=32,rot=hadamard,fmt=fp6_e2m3,scale=even126",
    "rotate_quant:K=2048,RS=0,fmt=fp8_e4m3,layout=a4w4_shuffle",
    // The weight kernel: rows fixed at N, both code layouts.
    "quant_weight:K=4096,N=4096,RS=64,rot=hadamard,layout=a4w4_shuffle,wlayout=preshuffle_16x16",
    "quant_weight:K=2048,N=512,RS=128,rot=learned",
    "quant_weight:K=1024,N=256,RS=64,rot=hadamard,fmt=fp6_e2m3,scale=even126,wlayout=w6a16_16x128",
    // The fused GEMM: AITER's layouts with four chains and one slice; a
    // staged learned R, several slices and two chains.
    "rotate_quant_gemm:K=4096,N=4096,RS=64,rot=hadamard,layout=a4w4_shuffle,"
    "wlayout=preshuffle_16x16",
    "rotate_quant_gemm:K=8192,N=272,RS=128,rot=learned,scale=rceil",
    "rotate_quant_gemm:K=256,N=48,RS=0",
    // One chain (K=128): the accumulator pinned before the row < m store
    // (revision 9); the W6A16 GEMM.
    "rotate_quant_gemm:K=128,N=32,RS=32,rot=hadamard",
    "rotate_quant_gemm:K=1024,N=64,RS=64,rot=hadamard,fmt=fp6_e2m3,scale=even126,"
    "wlayout=w6a16_16x128",
    // Selective rotation: the flag and the mask (revision 9).
    "rotate_quant:K=4096,RS=64,rot=hadamard,select=flag",
    "rotate_quant:K=4096,RS=128,rot=learned,select=mask,layers=48",
    // AITER's A6W6 tiles: codes and scales tiled, padding rows, K padding
    // (K % 128 = 96) and guard tiles written by the kernel.
    "rotate_quant:K=4064,RS=32,rot=hadamard,fmt=fp6_e2m3,scale=a6w6,round=rna,"
    "layout=mxfp6_c0c1_256_padk2",
};

const char *const kGoldenFile = MXFORGE_CACHE_GOLDEN_FILE;

/// Removes `loc(...)` (balanced parentheses) and `#loc` alias lines, which
/// would tie the IR to file names rather than to what the template emits.
std::string stripLocations(const std::string &text) {
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("#loc", 0) == 0)
      continue;
    std::string kept;
    for (size_t i = 0; i < line.size();) {
      if (line.compare(i, 4, "loc(") == 0 && (i == 0 || !std::isalnum(uint8_t(line[i - 1])))) {
        int depth = 0;
        size_t j = i + 3;
        for (; j < line.size(); ++j) {
          depth += line[j] == '(' ? 1 : line[j] == ')' ? -1 : 0;
          if (depth == 0)
            break;
        }
        i = j + 1;
        while (!kept.empty() && kept.back() == ' ')
          kept.pop_back();
        continue;
      }
      kept += line[i++];
    }
    out += kept + "\n";
  }
  return out;
}

std::string canonical(const char *text) {
  Result<KernelSpec> spec = parseSpec(text);
  EXPECT_TRUE(spec.ok()) << text << ": " << spec.error();
  return spec.ok() ? printSpec(spec.value()) : std::string(text);
}

std::string gpuStageText(const std::string &canonicalSpec) {
  Result<KernelSpec> spec = parseSpec(canonicalSpec);
  if (!spec.ok())
    return "<invalid spec: " + spec.error() + ">";
  std::string text;
  CompileOptions options;
  options.stopAfter = "gpu";
  options.stageText = &text;
  Result<CodeObject> compiled = compileSpec(spec.value(), options);
  EXPECT_TRUE(compiled.ok()) << canonicalSpec << ": " << compiled.error();
  return stripLocations(text);
}

/// spec -> sha256 of its gpu-stage text, computed once for all tests.
const std::map<std::string, std::string> &currentHashes() {
  static const std::map<std::string, std::string> hashes = [] {
    std::map<std::string, std::string> result;
    for (const char *text : kGoldenSpecs) {
      std::string spec = canonical(text);
      result[spec] = sha256(gpuStageText(spec)).hex();
    }
    return result;
  }();
  return hashes;
}

struct GoldenFile {
  std::set<int> revisions;
  std::map<std::string, std::string> hashes; // canonical spec -> sha256
  std::vector<std::string> malformed;
};

GoldenFile readGoldenFile() {
  GoldenFile golden;
  std::ifstream in(kGoldenFile);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream fields(line);
    std::string revision, spec, hash, extra;
    fields >> revision >> spec >> hash;
    if (hash.size() != 64 || (fields >> extra) ||
        revision.find_first_not_of("0123456789") != std::string::npos || revision.empty()) {
      golden.malformed.push_back(line);
      continue;
    }
    golden.revisions.insert(std::stoi(revision));
    golden.hashes[spec] = hash;
  }
  return golden;
}

void writeGoldenFile() {
  std::ofstream out(kGoldenFile, std::ios::trunc);
  out << "# Golden SHA-256 hashes of the gpu-stage IR (compileSpec, stopAfter=\"gpu\") of\n"
         "# representative specs, for tests/unit/cache/test_template_revision.cpp.\n"
         "# Lines: <kTemplateRevision> <canonical spec> <sha256 of the IR text>.\n"
         "#\n"
         "# When the test fails because a hash changed, the templates now emit different\n"
         "# code: bump kTemplateRevision in abi/versions.h (so that cached\n"
         "# code objects of the old templates are no longer used), rebuild, then rewrite\n"
         "# this file with\n"
         "#   MXFORGE_REGENERATE_GOLDEN=1 <build>/tests/unit/cache/cache_golden_tests\n"
         "# and commit both. Do the same when the test says the goldens are stale.\n";
  for (const auto &[spec, hash] : currentHashes())
    out << kTemplateRevision << " " << spec << " " << hash << "\n";
  out.close();
  ASSERT_TRUE(out) << "cannot write " << kGoldenFile;
}

bool regenerating() {
  const char *flag = std::getenv("MXFORGE_REGENERATE_GOLDEN");
  return flag && std::string(flag) == "1";
}

TEST(TemplateRevision, GpuStageTextIsDeterministicAndPortable) {
  const std::regex address("0x[0-9a-fA-F]{8,}");
  for (const char *text : kGoldenSpecs) {
    std::string spec = canonical(text);
    SCOPED_TRACE(spec);
    std::string first = gpuStageText(spec), second = gpuStageText(spec);
    EXPECT_EQ(first, second) << "the same spec gave different gpu-stage text";
    EXPECT_NE(first.find("gpu.func"), std::string::npos) << first.substr(0, 500);
    // File names, not op names: `llvm.mlir.poison` is fine, `x.mlir":3` is not.
    for (const char *bad :
         {"loc(", "/tmp", "/work", "/home", "/usr", "/proc", ".cpp", ".mlir\"", ".mlir:"})
      EXPECT_EQ(first.find(bad), std::string::npos) << "the IR holds '" << bad << "'";
    EXPECT_FALSE(std::regex_search(first, address)) << "the IR holds something like an address";
  }
  // stripLocations leaves location-free text alone and removes locations.
  EXPECT_EQ(stripLocations("%0 = arith.addi %a, %b : i32 loc(fused[\"f.mlir\":1:2, "
                           "callsite(\"x\"(\"g\":3:4))])\n#loc = loc(\"f.mlir\":0:0)\n"),
            "%0 = arith.addi %a, %b : i32\n");
}

TEST(TemplateRevision, DifferentSpecsHashDifferently) {
  // Negative control: the hash reflects the spec, so a golden cannot pass
  // by hashing something constant (an empty text, an error message).
  std::set<std::string> distinct;
  for (const auto &[spec, hash] : currentHashes())
    distinct.insert(hash);
  EXPECT_EQ(distinct.size(), std::size(kGoldenSpecs));
  EXPECT_EQ(currentHashes().size(), std::size(kGoldenSpecs));
  EXPECT_FALSE(distinct.count(sha256(std::string_view("")).hex()));
}

TEST(TemplateRevision, GoldenHashesMatch) {
  if (regenerating()) {
    writeGoldenFile();
    std::printf("[ golden   ] rewrote %s at template revision %d\n", kGoldenFile,
                kTemplateRevision);
    return;
  }
  const std::string regenerate = "regenerate with `MXFORGE_REGENERATE_GOLDEN=1 " +
                                 std::string(::testing::internal::GetArgvs()[0]) + "`";
  GoldenFile golden = readGoldenFile();
  ASSERT_FALSE(golden.hashes.empty()) << kGoldenFile << " is missing or empty: " << regenerate;
  EXPECT_TRUE(golden.malformed.empty())
      << kGoldenFile << ": malformed line '" << golden.malformed.front() << "'";
  std::string revisions;
  for (int revision : golden.revisions)
    revisions += (revisions.empty() ? "" : ", ") + std::to_string(revision);
  ASSERT_EQ(golden.revisions, std::set<int>{kTemplateRevision})
      << "goldens stale: " << kGoldenFile << " was made at template revision " << revisions
      << ", kTemplateRevision is " << kTemplateRevision << "; " << regenerate;
  for (const auto &[spec, hash] : currentHashes()) {
    auto found = golden.hashes.find(spec);
    if (found == golden.hashes.end()) {
      ADD_FAILURE() << "goldens stale: " << kGoldenFile << " has no hash for " << spec << "; "
                    << regenerate;
      continue;
    }
    EXPECT_EQ(found->second, hash)
        << "template output changed for " << spec
        << ": bump kTemplateRevision in abi/versions.h and " << regenerate;
  }
  for (const auto &[spec, hash] : golden.hashes)
    EXPECT_TRUE(currentHashes().count(spec))
        << "goldens stale: " << kGoldenFile << " holds " << spec
        << ", which the test no longer compiles; " << regenerate;
}

} // namespace
} // namespace mxf
