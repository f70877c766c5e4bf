//===- cache_test_support.h - Fixtures of the cache tests ---------*- C++ -*-===//
//
// Fake code objects (random bytes with a valid KernelInfo: the cache never
// looks inside the ELF), a fresh temporary directory per test, a warning
// recorder and small file helpers.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_UNIT_CACHE_CACHE_TEST_SUPPORT_H
#define MXFORGE_TESTS_UNIT_CACHE_CACHE_TEST_SUPPORT_H

#include "runtime/cache/cache_key.h"
#include "runtime/cache/disk_cache.h"
#include "support/file_io.h"
#include "tests/support/scratch_directory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <dirent.h>
#include <mutex>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace mxf::cachetest {

inline KernelArgInfo argInfo(const char *name, const char *kind, uint32_t offset,
                             uint32_t size) {
  KernelArgInfo arg;
  arg.name = name;
  arg.valueKind = kind;
  arg.addressSpace = std::string(kind) == "global_buffer" ? "global" : "";
  arg.offset = offset;
  arg.size = size;
  return arg;
}

/// A code object whose bytes and names depend on `index` and `rng`.
inline CodeObject fakeCodeObject(int index, std::mt19937_64 &rng, size_t hsacoBytes = 7000) {
  CodeObject object;
  object.spec = "rotate_quant:K=" + std::to_string(32 * (index + 1)) +
                ",RS=0,rot=none,M=16,fmt=fp4,scale=even,round=rne,inter=f32,layout=plain,"
                "arch=gfx950";
  object.kernel.name = "mxf_fake_kernel_" + std::to_string(index);
  object.kernel.target = "amdgcn-amd-amdhsa--gfx950";
  object.kernel.codeObjectVersion = 5;
  object.kernel.kernargSize = 28;
  object.kernel.kernargAlign = 8;
  object.kernel.vgprCount = 39;
  object.kernel.sgprCount = 20;
  object.kernel.maxWorkgroupSize = 256;
  object.kernel.args = {argInfo("x", "global_buffer", 0, 8), argInfo("q", "global_buffer", 8, 8),
                        argInfo("s", "global_buffer", 16, 8), argInfo("rows", "by_value", 24, 4)};
  object.launch.workgroupSize = 256;
  object.launch.gridX = uint32_t(index + 1);
  object.launch.rowsPerWorkgroup = 16;
  object.launch.maxRows = 256;
  object.hsaco.resize(hsacoBytes);
  for (uint8_t &byte : object.hsaco)
    byte = uint8_t(rng());
  const uint8_t elf[4] = {0x7f, 'E', 'L', 'F'};
  std::copy(elf, elf + 4, object.hsaco.begin());
  return object;
}

/// The key of a fake object: its spec and the real field values.
inline Sha256Digest fakeKey(const CodeObject &object) {
  CacheKeyInputs inputs;
  inputs.canonicalSpec = object.spec;
  inputs.mxforgeVersion = "0.1.0";
  inputs.llvmVersion = "22.1.8";
  inputs.target = "amdgcn-amd-amdhsa--gfx950";
  inputs.templateRevision = 1;
  return cacheKey(inputs);
}

inline bool sameObject(const CodeObject &a, const CodeObject &b) {
  if (a.kernel.args.size() != b.kernel.args.size())
    return false;
  for (size_t i = 0; i < a.kernel.args.size(); ++i) {
    const KernelArgInfo &x = a.kernel.args[i], &y = b.kernel.args[i];
    if (x.name != y.name || x.valueKind != y.valueKind || x.addressSpace != y.addressSpace ||
        x.offset != y.offset || x.size != y.size)
      return false;
  }
  const KernelInfo &x = a.kernel, &y = b.kernel;
  return a.hsaco == b.hsaco && a.spec == b.spec && a.launch == b.launch && x.name == y.name && x.target == y.target &&
         x.codeObjectVersion == y.codeObjectVersion && x.kernargSize == y.kernargSize &&
         x.kernargAlign == y.kernargAlign && x.vgprCount == y.vgprCount &&
         x.agprCount == y.agprCount && x.sgprCount == y.sgprCount &&
         x.vgprSpillCount == y.vgprSpillCount && x.sgprSpillCount == y.sgprSpillCount &&
         x.ldsBytes == y.ldsBytes && x.scratchBytes == y.scratchBytes &&
         x.maxWorkgroupSize == y.maxWorkgroupSize && x.wavefrontSize == y.wavefrontSize;
}

/// Collects warnings instead of printing them; safe to call from threads.
class WarningLog {
public:
  CacheWarningHandler handler() {
    return [this](const std::string &line) {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.push_back(line);
    };
  }
  std::vector<std::string> lines() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }
  size_t count() const { return lines().size(); }

private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

inline std::vector<std::string> namesIn(const std::string &directory) {
  std::vector<std::string> names;
  if (DIR *d = ::opendir(directory.c_str())) {
    while (dirent *entry = ::readdir(d))
      if (std::string(entry->d_name) != "." && std::string(entry->d_name) != "..")
        names.push_back(entry->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline void writeBytes(const std::string &path, const std::vector<uint8_t> &bytes) {
  ASSERT_TRUE(writeFileAtomically(path, bytes).ok()) << path;
}
inline void writeText(const std::string &path, const std::string &text) {
  writeBytes(path, std::vector<uint8_t>(text.begin(), text.end()));
}
inline std::vector<uint8_t> readBytes(const std::string &path) {
  Result<std::vector<uint8_t>> bytes = readFileBytes(path);
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  return bytes.ok() ? bytes.value() : std::vector<uint8_t>{};
}
inline bool pathExists(const std::string &path) {
  struct stat info;
  return ::lstat(path.c_str(), &info) == 0;
}

/// A fresh directory under /tmp per test, removed afterwards.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(scratch_.ok());
    root_ = scratch_.path();
  }
  testing::ScratchDirectory scratch_{"mxforge-cache-test"};
  std::string root_;
};

inline bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

} // namespace mxf::cachetest

#endif // MXFORGE_TESTS_UNIT_CACHE_CACHE_TEST_SUPPORT_H
