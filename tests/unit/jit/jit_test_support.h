//===- jit_test_support.h - Fake JITs and bundles for kernel table tests -*- C++ -*-===//
#ifndef MXFORGE_TESTS_UNIT_JIT_JIT_TEST_SUPPORT_H
#define MXFORGE_TESTS_UNIT_JIT_JIT_TEST_SUPPORT_H

#include "abi/operands.h"
#include "runtime/kernel_table/kernel_table.h"
#include "runtime/bundle_writer.h"
#include "tests/support/scratch_directory.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>

namespace mxf::testing {

inline KernelSpec specOf(const std::string &text) {
  Result<KernelSpec> spec = parseSpec(text);
  EXPECT_TRUE(spec.ok()) << spec.error();
  return spec.ok() ? spec.value() : KernelSpec();
}

/// A code object whose bytes are derived from the canonical spec, so that
/// tests can tell which spec produced it.
inline CodeObject fakeCodeObject(const KernelSpec &spec) {
  CodeObject object;
  object.spec = printSpec(spec);
  object.hsaco.assign(object.spec.begin(), object.spec.end());
  object.hsaco.insert(object.hsaco.begin(), {0x7F, 'E', 'L', 'F'});
  object.kernel.name = kernelName(spec); // what the table checks bundle entries against
  object.kernel.target = kBundleTarget;
  object.kernel.codeObjectVersion = 5;
  object.kernel.kernargSize = 8;
  object.kernel.kernargAlign = 8;
  object.kernel.maxWorkgroupSize = 256;
  object.kernel.args = {{"x", "global_buffer", "global", 0, 8}};
  object.launch.workgroupSize = 256;
  object.launch.gridX = 1;
  object.launch.rowsPerWorkgroup = 16;
  object.launch.maxRows = uint32_t(spec.M);
  return object;
}

/// A JIT that counts its compiles, optionally sleeps in each (to widen
/// races) and fails every spec whose K is `failK`. It also records how many
/// compiles ran at once, and can make each compile wait for others to
/// overlap it: with `gatherCompiles` = n a compile returns once n compiles
/// are in flight together (or after 5 s), so a test of parallelism reads
/// `maxInFlight` instead of timing anything.
struct FakeJit {
  std::atomic<int> compiles{0};
  std::atomic<int> inFlight{0};
  std::atomic<int> maxInFlight{0};
  int sleepMs = 0;
  int failK = -1;
  int gatherCompiles = 0;

  JitCompiler compiler() {
    JitCompiler jit;
    jit.identity.mxforgeVersion = "test";
    jit.identity.llvmVersion = "22.test";
    jit.identity.target = kBundleTarget;
    jit.identity.templateRevision = 1;
    jit.compile = [this](const KernelSpec &spec) -> Result<CodeObject> {
      ++compiles;
      const int running = ++inFlight;
      for (int seen = maxInFlight.load(); running > seen;)
        if (maxInFlight.compare_exchange_weak(seen, running))
          break;
      const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (maxInFlight.load() < gatherCompiles && std::chrono::steady_clock::now() < giveUp)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (sleepMs)
        std::this_thread::sleep_for(std::chrono::milliseconds(sleepMs));
      --inFlight;
      if (spec.K == failK)
        return Result<CodeObject>::failure("[stage codegen] " + printSpec(spec) +
                                           ": injected failure");
      return fakeCodeObject(spec);
    };
    return jit;
  }
};

/// Every M one tiling class compiled as M=256, as rotate_quant's registry
/// entry says.
inline Result<KernelSpec> allBucketsOneClass(const KernelSpec &spec) {
  KernelSpec code = spec;
  code.M = 256;
  return code;
}

/// A bundle as `mxforge bundle` writes one for specs of shared classes: an
/// entry per spec, each holding its code spec's code object (named by the
/// code spec, serving the class's rows).
inline std::shared_ptr<const Bundle>
fakeClassBundle(const std::vector<std::string> &specs,
                const std::function<Result<KernelSpec>(const KernelSpec &)> &codeSpec) {
  std::vector<BundleInput> inputs;
  for (const std::string &text : specs) {
    Result<KernelSpec> code = codeSpec(specOf(text));
    EXPECT_TRUE(code.ok()) << code.error();
    CodeObject object = fakeCodeObject(code.ok() ? code.value() : specOf(text));
    inputs.push_back({printSpec(specOf(text)), object.kernel, object.launch, object.hsaco});
  }
  BundleHeaderInfo header;
  header.mxforgeVersion = "test";
  header.llvmVersion = "22.test";
  Result<std::vector<uint8_t>> bytes = encodeBundle(header, inputs);
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  Result<Bundle> bundle = Bundle::fromBytes(bytes.ok() ? bytes.value() : std::vector<uint8_t>());
  EXPECT_TRUE(bundle.ok()) << bundle.error();
  if (!bundle.ok())
    return nullptr;
  return std::make_shared<const Bundle>(std::move(bundle.value()));
}

/// A bundle of `specs`, each its own code object.
inline std::shared_ptr<const Bundle> fakeBundle(const std::vector<std::string> &specs) {
  return fakeClassBundle(specs, [](const KernelSpec &spec) { return Result<KernelSpec>(spec); });
}

/// A fresh empty directory for a cache, removed at the end of the test.
class ScratchCacheDir : public ScratchDirectory {
public:
  ScratchCacheDir() : ScratchDirectory("mxforge-jit-test") {}
  CacheLocation location() const { return {true, path(), "test"}; }
};

} // namespace mxf::testing

#endif // MXFORGE_TESTS_UNIT_JIT_JIT_TEST_SUPPORT_H
