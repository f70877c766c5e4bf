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
