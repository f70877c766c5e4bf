//===- test_host_memory.cpp - Made-up device addresses over host memory ---===//

#include "runtime/host_memory.h"

#include <gtest/gtest.h>

namespace mxf::runtime {
namespace {

TEST(HostMemory, AddressesAreAlignedSeparatedAndNeverReused) {
  HostMemory memory;
  uint64_t a = memory.allocate(1).value();
  uint64_t b = memory.allocate(300).value();
  EXPECT_GE(a, HostMemory::kBase);
  EXPECT_EQ(a % HostMemory::kAlign, 0u);
  EXPECT_EQ(b % HostMemory::kAlign, 0u);
  // Past the end of `a` there is an unmapped gap before `b`.
  EXPECT_GE(b, a + HostMemory::kAlign + HostMemory::kGap);
  ASSERT_TRUE(memory.free(a).ok());
  uint64_t c = memory.allocate(1).value();
  EXPECT_GT(c, b);
  EXPECT_LT(c, HostMemory::kLimit);
}

TEST(HostMemory, Translate) {
  HostMemory memory;
  uint64_t a = memory.allocate(100).value();
  ASSERT_NE(memory.translate(a, 100), nullptr);
  EXPECT_EQ(memory.translate(a + 10, 5), memory.translate(a, 1) + 10);
  EXPECT_EQ(memory.translate(a, 101), nullptr);
  EXPECT_EQ(memory.translate(a + 100, 1), nullptr);
  EXPECT_EQ(memory.translate(a - 1, 1), nullptr);
  EXPECT_EQ(memory.translate(0, 1), nullptr);
  EXPECT_EQ(*memory.translate(a + 99, 1), HostMemory::kPoison);
}

TEST(HostMemory, RegionsAndErrors) {
  HostMemory memory;
  uint64_t a = memory.allocate(8).value();
  uint64_t b = memory.allocate(16).value();
  std::vector<HostMemory::Region> regions = memory.regions();
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[0].address, a);
  EXPECT_EQ(regions[1].address, b);
  EXPECT_EQ(regions[1].size, 16u);
  EXPECT_FALSE(memory.free(a + 1).ok());
  EXPECT_FALSE(memory.allocate(0).ok());
  EXPECT_FALSE(memory.allocate(~uint64_t(0)).ok());
}

} // namespace
} // namespace mxf::runtime
