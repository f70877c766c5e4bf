//===- buckets.h - M buckets and kernel families ------------------*- C++ -*-===//
//
// A kernel is compiled for an M bucket and serves any 1 <= M <= bucket at
// launch. Specs that differ only in M form a family; bucket dispatch picks
// one member of a family for an actual M (runtime/kernel_table/kernel_table.h).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SPEC_BUCKETS_H
#define MXFORGE_SPEC_BUCKETS_H

#include "spec/kernel_spec.h"

#include <optional>
#include <string>

namespace mxf {

/// Every M bucket a spec may name, ascending.
constexpr int kMBuckets[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
constexpr int kLargestMBucket = 256;

/// The smallest bucket >= m; nullopt when m < 1 or m > kLargestMBucket.
std::optional<int> smallestBucketAtLeast(int m);

/// The family of `spec`: its canonical text with M written as `M=*`, e.g.
/// rotate_quant:K=4096,RS=64,rot=hadamard,M=*,... (for indexes and errors).
std::string specFamily(const KernelSpec &spec);

} // namespace mxf

#endif // MXFORGE_SPEC_BUCKETS_H
