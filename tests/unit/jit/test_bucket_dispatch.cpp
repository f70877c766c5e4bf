//===- test_bucket_dispatch.cpp - The smallest bucket >= M ----------------===//

#include "tests/unit/jit/jit_test_support.h"

#include "spec/buckets.h"

namespace mxf {
namespace {

using testing::FakeJit;
using testing::fakeBundle;
using testing::specOf;

std::string member(int m) {
  return "rotate_quant:K=4096,RS=64,rot=hadamard,M=" + std::to_string(m);
}

TEST(Buckets, SmallestBucketAtLeast) {
  EXPECT_EQ(smallestBucketAtLeast(1), 1);
  EXPECT_EQ(smallestBucketAtLeast(3), 4);
  EXPECT_EQ(smallestBucketAtLeast(17), 32);
  EXPECT_EQ(smallestBucketAtLeast(256), 256);
  EXPECT_FALSE(smallestBucketAtLeast(0).has_value());
  EXPECT_FALSE(smallestBucketAtLeast(257).has_value());
}

TEST(Buckets, FamilyIgnoresOnlyM) {
  EXPECT_EQ(specFamily(specOf(member(1))), specFamily(specOf(member(64))));
  EXPECT_NE(specFamily(specOf(member(1))),
            specFamily(specOf("rotate_quant:K=4096,RS=64,rot=hadamard,M=1,scale=rceil")));
  EXPECT_NE(specFamily(specOf(member(1))).find("M=*"), std::string::npos);
}

TEST(BucketDispatch, PicksTheSmallestLoadedBucketAtLeastM) {
  KernelTableOptions options;
  options.strict = true;
  KernelTable table(std::move(options));
  table.addBundle(fakeBundle({member(1), member(4), member(16)}));
  EXPECT_EQ(table.availableBuckets(specOf(member(8))), (std::vector<int>{1, 4, 16}));
  const std::pair<int, int> cases[] = {{1, 1}, {2, 4}, {3, 4}, {4, 4}, {5, 16}, {16, 16}};
  for (auto [m, bucket] : cases) {
    Result<KernelHandle> kernel = table.forRows(specOf(member(256)), m);
    ASSERT_TRUE(kernel.ok()) << "M=" << m << ": " << kernel.error();
    EXPECT_EQ(kernel.value()->spec.M, bucket) << "M=" << m;
  }
  Result<KernelHandle> tooBig = table.forRows(specOf(member(1)), 17);
  ASSERT_FALSE(tooBig.ok());
  EXPECT_EQ(tooBig.error(), "no kernel for M=17 of " + specFamily(specOf(member(1))) +
                                ": the loaded buckets are 1, 4, 16 (strict mode: no JIT)");
}

TEST(BucketDispatch, JitCompilesTheSmallestLegalBucketWhenNoneFits) {
  FakeJit fake;
  KernelTableOptions options;
  options.jit = fake.compiler();
  KernelTable table(std::move(options));
  table.addBundle(fakeBundle({member(4)}));
  Result<KernelHandle> small = table.forRows(specOf(member(1)), 2);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small.value()->spec.M, 4);
  EXPECT_EQ(small.value()->origin, KernelOrigin::Bundle);
  Result<KernelHandle> large = table.forRows(specOf(member(1)), 17);
  ASSERT_TRUE(large.ok()) << large.error();
  EXPECT_EQ(large.value()->spec.M, 32);
  EXPECT_EQ(large.value()->origin, KernelOrigin::Compiled);
  EXPECT_EQ(fake.compiles.load(), 1);
  // The compiled bucket now serves smaller M too.
  EXPECT_EQ(table.forRows(specOf(member(1)), 9).value()->spec.M, 32);
  EXPECT_EQ(table.availableBuckets(specOf(member(1))), (std::vector<int>{4, 32}));
}

TEST(BucketDispatch, MOutsideTheBucketsIsAClearError) {
  FakeJit fake;
  KernelTableOptions options;
  options.jit = fake.compiler();
  KernelTable table(std::move(options));
  Result<KernelHandle> zero = table.forRows(specOf(member(1)), 0);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().find("at least one row"), std::string::npos) << zero.error();
  Result<KernelHandle> huge = table.forRows(specOf(member(1)), 300);
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().find("exceeds the largest M bucket (256)"), std::string::npos)
      << huge.error();
  EXPECT_EQ(fake.compiles.load(), 0);
}

// Class dispatch (issue 32): the bucket in a spec only names its class. A
// bundle of buckets 1-8 of a class of 256 rows serves every m up to 256 from
// its code object, with the JIT refused after start-up (MXFORGE_JIT=error)
// and in strict mode: no compile, no late-JIT event. Before, m = 9 compiled
// bucket 16 (the same code object) and under MXFORGE_JIT=error was refused.
TEST(ClassDispatch, ABundleOfBuckets1To8ServesEveryMOfItsClass) {
  const std::vector<std::string> buckets = {member(1), member(2), member(4), member(8)};
  const CodeObject classCode = testing::fakeCodeObject(specOf(member(256)));
  for (bool strict : {false, true}) {
    SCOPED_TRACE(strict ? "strict" : "MXFORGE_JIT=error");
    FakeJit fake;
    std::vector<std::string> warnings;
    KernelTableOptions options;
    options.jit = fake.compiler();
    options.jit->codeSpec = testing::allBucketsOneClass;
    options.strict = strict;
    options.lateJit = LateJitPolicy::Error;
    options.warn = [&](const std::string &line) { warnings.push_back(line); };
    KernelTable table(std::move(options));
    table.addBundle(testing::fakeClassBundle(buckets, testing::allBucketsOneClass));
    table.markStartupDone();
    for (int m = 1; m <= kLargestMBucket; ++m) {
      Result<KernelHandle> kernel = table.forRows(specOf(member(1)), m);
      ASSERT_TRUE(kernel.ok()) << "M=" << m << ": " << kernel.error();
      EXPECT_EQ(kernel.value()->origin, KernelOrigin::Bundle) << "M=" << m;
      EXPECT_EQ(kernel.value()->spec.M, *smallestBucketAtLeast(m)) << "M=" << m;
      EXPECT_EQ(kernel.value()->object.hsaco, classCode.hsaco) << "M=" << m;
      EXPECT_GE(kernel.value()->object.launch.maxRows, uint32_t(m)) << "M=" << m;
    }
    // Asked for by its own spec, a bucket the bundle lacks is its class's entry too.
    Result<KernelHandle> direct = table.get(specOf(member(64)));
    ASSERT_TRUE(direct.ok()) << direct.error();
    EXPECT_EQ(direct.value()->origin, KernelOrigin::Bundle);
    EXPECT_TRUE(direct.value()->sharedCode);
    EXPECT_EQ(fake.compiles.load(), 0);
    const KernelTableStats stats = table.stats();
    EXPECT_EQ(stats.lateCompiles, 0u);
    EXPECT_EQ(stats.failures, 0u);
    EXPECT_EQ(stats.compiled, 0u);
    EXPECT_TRUE(warnings.empty());
  }
}

// A family whose code depends on M has classes of its own (a GEMM's M tile):
// buckets 1-16 one class of 16 rows, 32-256 another. A bundle of buckets 1-8
// serves m up to 16, never m = 17, which its code cannot launch.
TEST(ClassDispatch, ACodeObjectServesOnlyTheRowsOfItsClass) {
  auto twoClasses = [](const KernelSpec &spec) -> Result<KernelSpec> {
    KernelSpec code = spec;
    code.M = spec.M <= 16 ? 16 : 256;
    return code;
  };
  FakeJit fake;
  KernelTableOptions options;
  options.jit = fake.compiler();
  options.jit->codeSpec = twoClasses;
  options.strict = true;
  KernelTable table(std::move(options));
  table.addBundle(testing::fakeClassBundle({member(1), member(8)}, twoClasses));
  for (int m : {9, 16}) {
    Result<KernelHandle> kernel = table.forRows(specOf(member(1)), m);
    ASSERT_TRUE(kernel.ok()) << "M=" << m << ": " << kernel.error();
    EXPECT_EQ(kernel.value()->spec.M, 16);
    EXPECT_EQ(kernel.value()->object.launch.maxRows, 16u);
  }
  Result<KernelHandle> beyond = table.forRows(specOf(member(1)), 17);
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(beyond.error(), "no kernel for M=17 of " + specFamily(specOf(member(1))) +
                                ": the loaded buckets are 1, 8, 16 (strict mode: no JIT)");
  EXPECT_FALSE(table.get(specOf(member(32))).ok()) << "bucket 32 is another class";
  EXPECT_EQ(fake.compiles.load(), 0);
}

TEST(BucketDispatch, OtherFamiliesDoNotServe) {
  KernelTableOptions options;
  options.strict = true;
  KernelTable table(std::move(options));
  table.addBundle(fakeBundle({member(16)}));
  Result<KernelHandle> other =
      table.forRows(specOf("rotate_quant:K=4096,RS=64,rot=hadamard,M=1,scale=rceil"), 2);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().find("no bucket of this family is loaded"), std::string::npos)
      << other.error();
}

} // namespace
} // namespace mxf
