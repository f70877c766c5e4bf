//===- test_process_reliability.cpp - 8 processes, one cache --------------===//
//
// Eight `mxforge bundle` processes (what 8 tensor-parallel ranks starting
// together do) compile the same 40 specs into one initially empty cache
// directory at the same moment, three rounds. Every process must exit 0
// without a warning, every bundle must be byte-identical (the code objects
// and the manifest), and no temporary file may be left.
//
//===----------------------------------------------------------------------===//

#include "tests/unit/jit/jit_test_support.h"
#include "tests/unit/jit/reliability_support.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace mxf {
namespace {

struct Child {
  pid_t pid = -1;
  std::string stderrPath;
};

Child spawnBundle(const std::string &specFile, const std::string &output,
                  const std::string &cacheDir, const std::string &stderrPath) {
  std::vector<std::string> args = {MXFORGE_TOOL_PATH, "bundle", "--specs", specFile,
                                   "--threads", "1", "-o", output};
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e)
    if (std::string(*e).rfind("MXFORGE_CACHE", 0) != 0)
      env.push_back(*e);
  env.push_back("MXFORGE_CACHE_DIR=" + cacheDir);
  std::vector<char *> envp;
  for (std::string &entry : env)
    envp.push_back(entry.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  Child child;
  child.stderrPath = stderrPath;
  int error = posix_spawn(&child.pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(error, 0) << "posix_spawn " << argv[0];
  if (error)
    child.pid = -1;
  return child;
}

std::string fileText(const std::string &path) {
  Result<std::vector<uint8_t>> bytes = readFileBytes(path);
  return bytes.ok() ? std::string(bytes.value().begin(), bytes.value().end()) : "";
}

TEST(JitReliability, EightProcessesCompileTheSameSpecsIntoOneCache) {
  testing::ScratchCacheDir work; // holds the spec list, the bundles and the cache
  const std::string cacheDir = work.path() + "/cache";
  const std::string specFile = work.path() + "/specs.txt";
  std::string list;
  for (const std::string &spec : testing::reliabilitySpecs())
    list += spec + "\n";
  ASSERT_TRUE(writeFileAtomically(specFile, list.data(), list.size()).ok());

  constexpr int kProcesses = 8;
  std::vector<uint8_t> reference;
  for (int round = 0; round < 3; ++round) {
    std::vector<Child> children;
    for (int p = 0; p < kProcesses; ++p)
      children.push_back(spawnBundle(specFile,
                                     work.path() + "/out" + std::to_string(p) + ".mxfb", cacheDir,
                                     work.path() + "/err" + std::to_string(p) + ".txt"));
    for (int p = 0; p < kProcesses; ++p) {
      ASSERT_GT(children[p].pid, 0);
      int status = 0;
      ASSERT_EQ(::waitpid(children[p].pid, &status, 0), children[p].pid);
      const std::string errors = fileText(children[p].stderrPath);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
          << "round " << round << ", process " << p << ": " << errors;
      EXPECT_EQ(errors, "") << "round " << round << ", process " << p << " warned";
    }
    for (int p = 0; p < kProcesses; ++p) {
      Result<std::vector<uint8_t>> bundle =
          readFileBytes(work.path() + "/out" + std::to_string(p) + ".mxfb");
      ASSERT_TRUE(bundle.ok()) << bundle.error();
      if (reference.empty())
        reference = bundle.value();
      EXPECT_EQ(bundle.value(), reference) << "round " << round << ", process " << p;
    }
    testing::expectCleanCache(cacheDir, testing::reliabilitySpecs().size());
  }
  Result<Bundle> loaded = Bundle::fromBytes(reference);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded.value().size(), testing::reliabilitySpecs().size());
}

} // namespace
} // namespace mxf
