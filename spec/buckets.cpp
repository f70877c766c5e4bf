//===- buckets.cpp - M buckets and kernel families ------------------------===//

#include "spec/buckets.h"

namespace mxf {

std::optional<int> smallestBucketAtLeast(int m) {
  for (int bucket : kMBuckets)
    if (m >= 1 && bucket >= m)
      return bucket;
  return std::nullopt;
}

std::string specFamily(const KernelSpec &spec) {
  // Print with a sentinel M and replace it: the printer owns the key order.
  KernelSpec probe = spec;
  probe.M = 987654321;
  std::string text = printSpec(probe);
  const std::string sentinel = "M=987654321";
  size_t at = text.find(sentinel);
  if (at != std::string::npos)
    text.replace(at, sentinel.size(), "M=*");
  return text;
}

} // namespace mxf
