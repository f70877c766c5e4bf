//===- test_cache_key.cpp - Every input of the key changes it -------------===//

#include "runtime/cache/cache_key.h"
#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <set>

namespace mxf {
namespace {

CacheKeyInputs realisticInputs() {
  CacheKeyInputs inputs;
  inputs.canonicalSpec = "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=even,"
                         "round=rne,inter=f32,layout=plain,arch=gfx950";
  inputs.mxforgeVersion = "0.1.0";
  inputs.llvmVersion = "22.1.8";
  inputs.target = "amdgcn-amd-amdhsa--gfx950";
  inputs.codeObjectVersion = 5;
  inputs.templateRevision = 1;
  return inputs;
}

std::string randomText(std::mt19937_64 &rng) {
  std::string text(1 + rng() % 40, ' ');
  for (char &c : text)
    c = char(32 + rng() % 95);
  return text;
}

/// One way to change each field; the test changes exactly one at a time.
struct FieldChange {
  const char *field;
  std::function<void(CacheKeyInputs &, std::mt19937_64 &)> change;
};

std::vector<FieldChange> fieldChanges() {
  auto otherText = [](std::string &value, std::mt19937_64 &rng) {
    std::string before = value;
    while (value == before)
      value = randomText(rng);
  };
  auto otherInt = [](int &value, std::mt19937_64 &rng) {
    int before = value;
    while (value == before)
      value = int(rng() % 1000);
  };
  return {
      {"canonicalSpec", [=](CacheKeyInputs &in, std::mt19937_64 &rng) { otherText(in.canonicalSpec, rng); }},
      {"mxforgeVersion", [=](CacheKeyInputs &in, std::mt19937_64 &rng) { otherText(in.mxforgeVersion, rng); }},
      {"llvmVersion", [=](CacheKeyInputs &in, std::mt19937_64 &rng) { otherText(in.llvmVersion, rng); }},
      {"target", [=](CacheKeyInputs &in, std::mt19937_64 &rng) { otherText(in.target, rng); }},
      {"codeObjectVersion", [=](CacheKeyInputs &in, std::mt19937_64 &rng) { otherInt(in.codeObjectVersion, rng); }},
      {"templateRevision", [=](CacheKeyInputs &in, std::mt19937_64 &rng) { otherInt(in.templateRevision, rng); }},
  };
}

TEST(CacheKey, EqualInputsGiveEqualKeys) {
  EXPECT_EQ(cacheKey(realisticInputs()), cacheKey(realisticInputs()));
}

TEST(CacheKey, EveryFieldChangesTheKey) {
  std::mt19937_64 rng(testing::testSeed("CacheKey.EveryFieldChangesTheKey"));
  const std::vector<FieldChange> changes = fieldChanges();
  ASSERT_EQ(changes.size(), 6u) << "a field was added to CacheKeyInputs: cover it here";
  for (int round = 0; round < 200; ++round) {
    CacheKeyInputs base = realisticInputs();
    if (round > 0) { // round 0: the realistic inputs; then random ones
      base.canonicalSpec = randomText(rng);
      base.mxforgeVersion = randomText(rng);
      base.llvmVersion = randomText(rng);
      base.target = randomText(rng);
      base.codeObjectVersion = int(rng() % 1000);
      base.templateRevision = int(rng() % 1000);
    }
    const Sha256Digest baseKey = cacheKey(base);
    std::set<std::string> keys{baseKey.hex()};
    for (const FieldChange &change : changes) {
      CacheKeyInputs changed = base;
      change.change(changed, rng);
      Sha256Digest key = cacheKey(changed);
      EXPECT_NE(key, baseKey) << "changing " << change.field << " left the key unchanged";
      keys.insert(key.hex());
    }
    EXPECT_EQ(keys.size(), changes.size() + 1) << "two single-field changes collided";
  }
}

TEST(CacheKey, SwappingValuesBetweenFieldsChangesTheKey) {
  CacheKeyInputs a = realisticInputs();
  CacheKeyInputs b = a;
  std::swap(b.mxforgeVersion, b.llvmVersion);
  EXPECT_NE(cacheKey(a), cacheKey(b));
  CacheKeyInputs c = a;
  std::swap(c.codeObjectVersion, c.templateRevision);
  EXPECT_NE(cacheKey(a), cacheKey(c));
}

TEST(CacheKey, NewlinesCannotForgeAnotherField) {
  // Written naively as `name=value\n`, both would hash
  // "spec=s\nmxforge=v\nmxforge=w\n...".
  CacheKeyInputs a = realisticInputs(), b = realisticInputs();
  a.canonicalSpec = "s\nmxforge=v";
  a.mxforgeVersion = "w";
  b.canonicalSpec = "s";
  b.mxforgeVersion = "v\nmxforge=w";
  EXPECT_NE(cacheKey(a), cacheKey(b));
  // ... nor can an escape sequence pose as a newline.
  CacheKeyInputs c = realisticInputs(), d = realisticInputs();
  c.canonicalSpec = "x\\ny";
  d.canonicalSpec = "x\ny";
  EXPECT_NE(cacheKey(c), cacheKey(d));
}

TEST(CacheKey, EncodingIsPinned) {
  // Changing how keys are computed orphans every cache on every machine: do
  // it on purpose (and update this value), never by accident. The value is
  // SHA-256 of the text below, as docs/cache.md describes it (checked with
  // Python's hashlib).
  EXPECT_EQ(sha256(std::string_view("mxforge cache key v1\n"
                                    "spec=rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,"
                                    "scale=even,round=rne,inter=f32,layout=plain,arch=gfx950\n"
                                    "mxforge=0.1.0\nllvm=22.1.8\ntarget=amdgcn-amd-amdhsa--gfx950\n"
                                    "cov=5\ntemplates=1\n"))
                .hex(),
            "b44327205bfc1942cdccaa71de683791e07a16a4b8ab865514569e88e7f550b9");
  EXPECT_EQ(cacheKey(realisticInputs()).hex(),
            "b44327205bfc1942cdccaa71de683791e07a16a4b8ab865514569e88e7f550b9");
}

} // namespace
} // namespace mxf
