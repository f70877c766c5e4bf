//===- scratch_directory.h - A fresh directory per test -----------*- C++ -*-===//
//
// POSIX only (usable by the tests of pure-C++ libraries as well as by those
// that link LLVM): a new directory under /tmp, removed with everything in it
// when the object goes away.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_SUPPORT_SCRATCH_DIRECTORY_H
#define MXFORGE_TESTS_SUPPORT_SCRATCH_DIRECTORY_H

#include <cstdlib>
#include <string>

namespace mxf::testing {

class ScratchDirectory {
public:
  explicit ScratchDirectory(const std::string &prefix = "mxforge-test") {
    std::string pattern = "/tmp/" + prefix + "-XXXXXX";
    if (::mkdtemp(pattern.data()))
      path_ = pattern;
  }
  ~ScratchDirectory() {
    if (!path_.empty())
      (void)std::system(("rm -rf '" + path_ + "'").c_str());
  }
  ScratchDirectory(const ScratchDirectory &) = delete;
  ScratchDirectory &operator=(const ScratchDirectory &) = delete;

  /// Empty if the directory could not be created (tests should check ok()).
  const std::string &path() const { return path_; }
  bool ok() const { return !path_.empty(); }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

} // namespace mxf::testing

#endif // MXFORGE_TESTS_SUPPORT_SCRATCH_DIRECTORY_H
