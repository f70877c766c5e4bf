//===- test_jit_environment.cpp - MXFORGE_DUMP_DIR, MXFORGE_KERNEL_OVERRIDE_DIR -===//
//
// The in-process JIT as an engine runs it, steered from the environment:
// dumps of every compile's stages, one folder per kernel; and overrides
// from files named after the kernel, used when they match the kernel's ABI
// and refused, naming the file and why, when they do not.
//
//===----------------------------------------------------------------------===//

#include "compiler/jit/in_process_jit.h"

#include "abi/operands.h"
#include "support/file_io.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace mxf {
namespace {

constexpr const char *kSpec = "rotate_quant:K=256,RS=32,rot=hadamard,M=4";
constexpr const char *kOtherSpec = "rotate_quant:K=256,RS=64,rot=hadamard,M=4";

/// A scratch directory, removed afterwards.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    char pattern[] = "/tmp/mxforge-jit-env-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~ScratchDir() { (void)std::system(("rm -rf " + path).c_str()); }
};

/// Sets an environment variable for one scope.
struct ScopedEnv {
  std::string name;
  ScopedEnv(const char *n, const std::string &value) : name(n) { setenv(n, value.c_str(), 1); }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

std::vector<std::string> listDir(const std::string &path) {
  std::vector<std::string> names;
  if (DIR *dir = opendir(path.c_str())) {
    while (dirent *entry = readdir(dir))
      if (entry->d_name[0] != '.')
        names.push_back(entry->d_name);
    closedir(dir);
  }
  return names;
}

/// A table with the in-process JIT as the environment sets it up, no cache.
Result<KernelHandle> produce(const char *spec) {
  KernelTableOptions options;
  options.jit = inProcessJit();
  KernelTable table(std::move(options));
  return table.get(spec);
}

void writeFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
}

TEST(JitEnvironment, DumpDirGetsEveryCompilesStagesOneFolderPerKernel) {
  ScratchDir dump;
  ScopedEnv env("MXFORGE_DUMP_DIR", dump.path);
  Result<KernelHandle> first = produce(kSpec);
  ASSERT_TRUE(first.ok()) << first.error();
  Result<KernelHandle> second = produce(kOtherSpec);
  ASSERT_TRUE(second.ok()) << second.error();
  std::vector<std::string> folders = listDir(dump.path);
  ASSERT_EQ(folders.size(), 2u);
  for (const KernelHandle &kernel : {first.value(), second.value()}) {
    const std::string folder = dump.path + "/" + kernel->object.kernel.name;
    std::vector<std::string> files = listDir(folder);
    EXPECT_GE(files.size(), 5u) << folder;
    bool input = false;
    for (const std::string &file : files)
      input |= file == "00-input.mlir";
    EXPECT_TRUE(input) << folder << " has no 00-input.mlir";
  }
}

TEST(JitEnvironment, NoDumpWithoutTheVariable) {
  ScratchDir dump;
  unsetenv("MXFORGE_DUMP_DIR");
  ASSERT_TRUE(produce(kSpec).ok());
  EXPECT_TRUE(listDir(dump.path).empty());
}

TEST(JitEnvironment, AnOverrideWithTheKernelsAbiReplacesIt) {
  Result<KernelHandle> compiled = produce(kSpec);
  ASSERT_TRUE(compiled.ok()) << compiled.error();
  ScratchDir overrides;
  // The compiled code with trailing bytes: a valid ELF that is not what the
  // compiler made, so the bytes show which one the table handed out.
  std::vector<uint8_t> edited = compiled.value()->object.hsaco;
  for (int i = 0; i < 64; ++i)
    edited.push_back(uint8_t(i));
  const std::string name = compiled.value()->object.kernel.name;
  writeFile(overrides.path + "/" + name + ".hsaco", edited);
  ScopedEnv env("MXFORGE_KERNEL_OVERRIDE_DIR", overrides.path);
  Result<KernelHandle> overridden = produce(kSpec);
  ASSERT_TRUE(overridden.ok()) << overridden.error();
  EXPECT_EQ(overridden.value()->object.hsaco, edited);
  EXPECT_EQ(overridden.value()->object.launch, compiled.value()->object.launch);
  EXPECT_EQ(overridden.value()->object.kernel, compiled.value()->object.kernel);
  // Another kernel without a file is compiled as usual.
  Result<KernelHandle> other = produce(kOtherSpec);
  ASSERT_TRUE(other.ok()) << other.error();
  EXPECT_NE(other.value()->object.hsaco.size(), edited.size());
}

TEST(JitEnvironment, OverridesThatDoNotMatchAreRefusedByName) {
  Result<KernelHandle> compiled = produce(kSpec);
  Result<KernelHandle> other = produce(kOtherSpec);
  ASSERT_TRUE(compiled.ok() && other.ok());
  const std::string name = compiled.value()->object.kernel.name;
  ScratchDir overrides;
  const std::string file = overrides.path + "/" + name + ".hsaco";
  ScopedEnv env("MXFORGE_KERNEL_OVERRIDE_DIR", overrides.path);

  writeFile(file, std::vector<uint8_t>{'n', 'o', 't', ' ', 'e', 'l', 'f', '\n'});
  Result<KernelHandle> refused = produce(kSpec);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().rfind("MXFORGE_KERNEL_OVERRIDE_DIR: '" + file +
                                      "' cannot replace kernel '" + name +
                                      "': it is not a code object: ",
                                  0),
            0u)
      << refused.error();

  // Another kernel's code object under this kernel's name.
  writeFile(file, other.value()->object.hsaco);
  refused = produce(kSpec);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("it has no kernel of that name"), std::string::npos)
      << refused.error();

  // A truncated one.
  std::vector<uint8_t> truncated(compiled.value()->object.hsaco.begin(),
                                 compiled.value()->object.hsaco.begin() + 200);
  writeFile(file, truncated);
  refused = produce(kSpec);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("it is not a code object"), std::string::npos)
      << refused.error();
}

// Issue 34: code someone else could have written is never run. An override
// directory or file not owned by this user, or writable by group or others,
// is refused with its path, owner and mode; the same file in a private
// directory is used. The owner variant needs root (chown to 65534).
TEST(JitEnvironment, OverridesOthersCouldHaveWrittenAreRefused) {
  Result<KernelHandle> compiled = produce(kSpec);
  ASSERT_TRUE(compiled.ok()) << compiled.error();
  const std::string name = compiled.value()->object.kernel.name;
  ScratchDir overrides; // mkdtemp: 0700
  const std::string file = overrides.path + "/" + name + ".hsaco";
  writeFile(file, compiled.value()->object.hsaco);
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  ScopedEnv env("MXFORGE_KERNEL_OVERRIDE_DIR", overrides.path);
  const std::string refusal =
      "MXFORGE_KERNEL_OVERRIDE_DIR: '" + file + "' cannot replace kernel '" + name + "': ";
  const std::string uid = std::to_string(::geteuid());
  ASSERT_TRUE(produce(kSpec).ok()) << "the control: a private directory and file are used";

  ASSERT_EQ(::chmod(overrides.path.c_str(), 0777), 0);
  Result<KernelHandle> refused = produce(kSpec);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), refusal + "the directory " + overrides.path +
                                 " has mode 0777 (owned by this user, uid " + uid +
                                 "): writable by group and others: an override directory must "
                                 "belong to this user and not be writable by group or others");
  ASSERT_EQ(::chmod(overrides.path.c_str(), 0700), 0);

  ASSERT_EQ(::chmod(file.c_str(), 0620), 0);
  refused = produce(kSpec);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), refusal + "it has mode 0620 (owned by this user, uid " + uid +
                                 "): writable by group: an override file must belong to this "
                                 "user and not be writable by group or others");
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);

  if (::geteuid() != 0) {
    std::printf("[ skipped  ] the owner variant: not running as root (uid %s), cannot chown "
                "the override file to another user\n",
                uid.c_str());
    return;
  }
  ASSERT_EQ(::chown(file.c_str(), 65534, 65534), 0);
  refused = produce(kSpec);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), refusal + "it is owned by uid 65534 (mode 0644), not by this user "
                                       "(uid 0): an override file must belong to this user and "
                                       "not be writable by group or others");
  ASSERT_EQ(::chown(file.c_str(), 0, 0), 0);
  ASSERT_EQ(::chown(overrides.path.c_str(), 65534, 65534), 0);
  refused = produce(kSpec);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().rfind(refusal + "the directory " + overrides.path +
                                      " is owned by uid 65534 (mode 0700)",
                                  0),
            0u)
      << refused.error();
}

} // namespace
} // namespace mxf
