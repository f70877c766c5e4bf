//===- test_support.h - Small helpers of the compiler tests -------*- C++ -*-===//
//
// GoogleTest only (no gmock: Debian's libgtest-dev does not bring it).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_UNIT_COMPILER_TEST_SUPPORT_H
#define MXFORGE_TESTS_UNIT_COMPILER_TEST_SUPPORT_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <system_error>
#include <vector>

/// EXPECT that `text` contains `part`, printing both when not.
#define EXPECT_CONTAINS(text, part)                                                            \
  EXPECT_NE(std::string(text).find(part), std::string::npos)                                   \
      << "expected to find: " << (part) << "\nin:\n"                                           \
      << (text)

namespace mxf::test {

/// The names in `dir`, sorted.
inline std::vector<std::string> listDirectory(const std::string &dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    names.push_back(llvm::sys::path::filename(it->path()).str());
  std::sort(names.begin(), names.end());
  return names;
}

/// A fresh directory under the system temp dir, removed at scope exit.
class ScratchDir {
public:
  ScratchDir() { EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("mxforge-test", path_)); }
  ~ScratchDir() { llvm::sys::fs::remove_directories(path_); }
  std::string path() const { return std::string(path_); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> p(path_);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }

private:
  llvm::SmallString<128> path_;
};

} // namespace mxf::test

#endif // MXFORGE_TESTS_UNIT_COMPILER_TEST_SUPPORT_H
