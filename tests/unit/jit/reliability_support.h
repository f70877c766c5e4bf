//===- reliability_support.h - Specs and checks shared by the reliability tests -*- C++ -*-===//
#ifndef MXFORGE_TESTS_UNIT_JIT_RELIABILITY_SUPPORT_H
#define MXFORGE_TESTS_UNIT_JIT_RELIABILITY_SUPPORT_H

#include "runtime/cache/disk_cache.h"
#include "support/file_io.h"
#include "spec/kernel_spec.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <string>
#include <vector>

namespace mxf::testing {

/// 40 distinct specs that compile quickly (small K), across RS, rotation
/// kinds, scale rules and K; each with another bucket. Every one is its own
/// code spec (a different K), so 40 specs are 40 cache entries.
inline std::vector<std::string> reliabilitySpecs() {
  std::vector<std::string> specs;
  const char *rotations[] = {"RS=0", "RS=32,rot=hadamard", "RS=64,rot=hadamard",
                             "RS=64,rot=learned", "RS=128,rot=hadamard"};
  const char *rules[] = {"even", "rceil"};
  const int ks[] = {512, 1024, 1536, 2048};
  const int buckets[] = {1, 16, 64, 256};
  for (const char *rotation : rotations)
    for (const char *rule : rules)
      for (int i = 0; i < 4; ++i)
        specs.push_back("rotate_quant:K=" + std::to_string(ks[i]) + "," + rotation + ",M=" +
                        std::to_string(buckets[i]) + ",scale=" + rule);
  return specs; // 5 x 2 x 4 = 40
}

/// Names in `dir` (no . or ..).
inline std::vector<std::string> directoryNames(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *entry = ::readdir(d)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..")
        names.push_back(name);
    }
    ::closedir(d);
  }
  return names;
}

/// The cache holds exactly `entries` verified entries and no temporaries.
inline void expectCleanCache(const std::string &dir, size_t entries) {
  for (const std::string &name : directoryNames(dir))
    EXPECT_FALSE(isAtomicWriteTemporary(name)) << "temporary left behind: " << name;
  DiskCache cache(dir);
  Result<std::vector<CacheEntryInfo>> listed = cache.list(/*verify=*/true);
  ASSERT_TRUE(listed.ok()) << listed.error();
  EXPECT_EQ(listed.value().size(), entries);
  for (const CacheEntryInfo &entry : listed.value())
    EXPECT_TRUE(entry.problem.empty()) << entry.fileName << ": " << entry.problem;
}

} // namespace mxf::testing

#endif // MXFORGE_TESTS_UNIT_JIT_RELIABILITY_SUPPORT_H
