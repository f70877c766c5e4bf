//===- test_kernel_table.cpp - Compile once, bundles first, cache, strict -===//

#include "tests/unit/jit/jit_test_support.h"
#include "tests/unit/test_seed.h"

#include "support/file_io.h"

#include <random>
#include <mutex>
#include <set>
#include <thread>

namespace mxf {
namespace {

using testing::FakeJit;
using testing::fakeBundle;
using testing::ScratchCacheDir;
using testing::specOf;

const char *const kSpec = "rotate_quant:K=4096,RS=64,rot=hadamard,M=16";

TEST(KernelTable, ManyThreadsAskingAtOnceCompileOnce) {
  FakeJit fake;
  fake.sleepMs = 50; // every asker arrives while the first is compiling
  KernelTableOptions options;
  options.jit = fake.compiler();
  KernelTable table(std::move(options));
  std::vector<KernelHandle> handles(16);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < handles.size(); ++t)
    threads.emplace_back([&, t] {
      Result<KernelHandle> kernel = table.get(std::string_view(kSpec));
      ASSERT_TRUE(kernel.ok()) << kernel.error();
      handles[t] = kernel.value();
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(fake.compiles.load(), 1);
  for (const KernelHandle &handle : handles)
    EXPECT_EQ(handle.get(), handles[0].get()) << "every asker gets the same kernel";
  EXPECT_EQ(handles[0]->origin, KernelOrigin::Compiled);
  EXPECT_EQ(handles[0]->object.spec, printSpec(specOf(kSpec)));
  KernelTableStats stats = table.stats();
  EXPECT_EQ(stats.requests, 16u);
  EXPECT_EQ(stats.compiled, 1u);
}

TEST(KernelTable, SpecsOfOneCodeSpecShareOneCompile) {
  FakeJit fake;
  fake.sleepMs = 20; // the other buckets ask while the first compiles
  KernelTableOptions options;
  options.jit = fake.compiler();
  // Every M one class, as rotate_quant's registry entry says.
  options.jit->codeSpec = [](const KernelSpec &spec) -> Result<KernelSpec> {
    KernelSpec code = spec;
    code.M = 256;
    return code;
  };
  KernelTable table(std::move(options));
  const int buckets[] = {1, 2, 16, 64};
  std::vector<KernelHandle> handles(std::size(buckets));
  std::vector<std::thread> threads;
  for (size_t t = 0; t < handles.size(); ++t)
    threads.emplace_back([&, t] {
      KernelSpec spec = specOf(kSpec);
      spec.M = buckets[t];
      Result<KernelHandle> kernel = table.get(spec);
      ASSERT_TRUE(kernel.ok()) << kernel.error();
      handles[t] = kernel.value();
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(fake.compiles.load(), 1);
  size_t shared = 0;
  for (size_t t = 0; t < handles.size(); ++t) {
    EXPECT_EQ(handles[t]->spec.M, buckets[t]) << "each handle keeps the spec asked for";
    EXPECT_EQ(handles[t]->object.hsaco, handles[0]->object.hsaco);
    shared += handles[t]->sharedCode;
  }
  EXPECT_EQ(shared, handles.size() - 1);
  const KernelTableStats stats = table.stats();
  EXPECT_EQ(stats.compiled, 1u);
  EXPECT_EQ(stats.sharedCode, handles.size() - 1);
  // Another code spec compiles again.
  KernelSpec other = specOf(kSpec);
  other.K *= 2;
  ASSERT_TRUE(table.get(other).ok());
  EXPECT_EQ(fake.compiles.load(), 2);
}

TEST(KernelTable, FailuresAreRememberedAndNamed) {
  FakeJit fake;
  fake.failK = 2048;
  KernelTableOptions options;
  options.jit = fake.compiler();
  KernelTable table(std::move(options));
  for (int attempt = 0; attempt < 3; ++attempt) {
    Result<KernelHandle> kernel = table.get(std::string_view("rotate_quant:K=2048"));
    ASSERT_FALSE(kernel.ok());
    EXPECT_NE(kernel.error().find("injected failure"), std::string::npos) << kernel.error();
  }
  EXPECT_EQ(fake.compiles.load(), 1);
  EXPECT_EQ(table.stats().failures, 1u);
}

TEST(KernelTable, InvalidSpecsAreRejectedBeforeAnyCompile) {
  FakeJit fake;
  KernelTableOptions options;
  options.jit = fake.compiler();
  KernelTable table(std::move(options));
  Result<KernelHandle> parsed = table.get(std::string_view("rotate_quant:K=4096,M=3"));
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.error().find("M must be one of"), std::string::npos) << parsed.error();
  KernelSpec bad = specOf(kSpec);
  bad.K = 100;
  EXPECT_FALSE(table.get(bad).ok());
  EXPECT_EQ(fake.compiles.load(), 0);
}

TEST(KernelTable, CompileAllKeepsOrderAndIsolatesFailures) {
  FakeJit fake;
  fake.failK = 2048;
  KernelTableOptions options;
  options.jit = fake.compiler();
  KernelTable table(std::move(options));
  std::vector<KernelSpec> specs;
  for (int k : {1024, 2048, 4096, 2048, 8192})
    for (int m : {1, 8})
      specs.push_back(specOf("rotate_quant:K=" + std::to_string(k) + ",M=" + std::to_string(m)));
  std::vector<Result<KernelHandle>> results = table.compileAll(specs, 4);
  ASSERT_EQ(results.size(), specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].K == 2048) {
      EXPECT_FALSE(results[i].ok()) << i;
      continue;
    }
    ASSERT_TRUE(results[i].ok()) << results[i].error();
    EXPECT_EQ(results[i].value()->object.spec, printSpec(specs[i])) << "result " << i;
  }
  EXPECT_EQ(fake.compiles.load(), 8) << "the repeated K=2048 specs compile once each";
}

// compileAll groups specs by code class before scheduling (issue 32): 4
// classes of 8 specs, listed class by class, compile side by side on 2 or 4
// threads. Before, the threads took the specs in order and all but one of
// them waited for the thread compiling the first spec's class, so one
// compile ran at a time. The fake JIT holds each compile until as many
// compiles as the test expects overlap it (or 5 s pass): maxInFlight, not a
// clock, says whether they did.
TEST(KernelTable, CompileAllCompilesDistinctClassesSideBySide) {
  for (unsigned threads : {2u, 4u}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    FakeJit fake;
    const int classes = 4;
    fake.gatherCompiles = std::min<int>(threads, classes);
    KernelTableOptions options;
    options.jit = fake.compiler();
    options.jit->codeSpec = testing::allBucketsOneClass;
    KernelTable table(std::move(options));
    std::vector<KernelSpec> specs;
    for (int k : {1024, 2048, 4096, 8192})
      for (int m : {1, 2, 4, 8, 16, 32, 64, 128})
        specs.push_back(specOf("rotate_quant:K=" + std::to_string(k) + ",M=" + std::to_string(m)));
    std::vector<Result<KernelHandle>> results = table.compileAll(specs, threads);
    EXPECT_EQ(fake.maxInFlight.load(), std::min<int>(threads, classes))
        << "the classes were not compiled side by side";
    EXPECT_EQ(fake.compiles.load(), classes);
    ASSERT_EQ(results.size(), specs.size());
    for (size_t i = 0; i < specs.size(); ++i) {
      ASSERT_TRUE(results[i].ok()) << results[i].error();
      EXPECT_EQ(results[i].value()->spec, specs[i]) << "result " << i << " is its spec's";
      // Every spec of a class holds the class's one code object.
      EXPECT_EQ(results[i].value()->object.hsaco, results[i - i % 8].value()->object.hsaco) << i;
      EXPECT_EQ(specOf(results[i].value()->object.spec).K, specs[i].K) << "result " << i;
    }
    const KernelTableStats stats = table.stats();
    EXPECT_EQ(stats.compiled, uint64_t(classes));
    EXPECT_EQ(stats.sharedCode, specs.size() - classes);
  }
}

// The costliest classes start first (JitCompiler::compileCost), so that a
// long compile does not start last while the other threads idle; results
// stay in the order listed.
TEST(KernelTable, CompileAllStartsTheCostliestClassesFirst) {
  FakeJit fake;
  KernelTableOptions options;
  options.jit = fake.compiler();
  options.jit->codeSpec = testing::allBucketsOneClass;
  options.jit->compileCost = [](const KernelSpec &spec) { return spec.K; };
  std::mutex mutex;
  std::vector<int> compiledK;
  options.jit->compile = [&, compile = options.jit->compile](const KernelSpec &spec) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      compiledK.push_back(spec.K);
    }
    return compile(spec);
  };
  KernelTable table(std::move(options));
  std::vector<KernelSpec> specs;
  for (int k : {1024, 4096, 2048, 8192, 4096})
    for (int m : {1, 8})
      specs.push_back(specOf("rotate_quant:K=" + std::to_string(k) + ",M=" + std::to_string(m)));
  std::vector<Result<KernelHandle>> results = table.compileAll(specs, 1);
  EXPECT_EQ(compiledK, (std::vector<int>{8192, 4096, 2048, 1024}));
  ASSERT_EQ(results.size(), specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].error();
    EXPECT_EQ(results[i].value()->spec, specs[i]) << "result " << i;
  }
}

TEST(KernelTable, BundleKernelsComeFirstAndNeverCompile) {
  FakeJit fake;
  KernelTableOptions options;
  options.jit = fake.compiler();
  KernelTable table(std::move(options));
  table.addBundle(fakeBundle({kSpec}));
  Result<KernelHandle> kernel = table.get(std::string_view(kSpec));
  ASSERT_TRUE(kernel.ok()) << kernel.error();
  EXPECT_EQ(kernel.value()->origin, KernelOrigin::Bundle);
  EXPECT_EQ(kernel.value()->object.hsaco, testing::fakeCodeObject(specOf(kSpec)).hsaco);
  EXPECT_EQ(fake.compiles.load(), 0);
  EXPECT_EQ(table.stats().fromBundle, 1u);
  // A spec the bundle lacks is JIT-compiled.
  ASSERT_TRUE(table.get(std::string_view("rotate_quant:K=1024")).ok());
  EXPECT_EQ(fake.compiles.load(), 1);
}

// A bundle re-sealed with its entries' code objects swapped (each entry a
// valid code object, under the other spec) passes the loader's checksums;
// the table refuses it because the kernel is not the spec's (issue 17).
TEST(KernelTable, ABundleEntryHoldingAnotherSpecsKernelIsRefused) {
  const std::string a = printSpec(specOf("rotate_quant:K=1024,M=4"));
  const std::string b = printSpec(specOf("rotate_quant:K=2048,M=4"));
  CodeObject objectA = testing::fakeCodeObject(specOf(a)), objectB = testing::fakeCodeObject(specOf(b));
  std::vector<BundleInput> swapped = {{a, objectB.kernel, objectB.launch, objectB.hsaco},
                                      {b, objectA.kernel, objectA.launch, objectA.hsaco}};
  BundleHeaderInfo header;
  header.mxforgeVersion = "test";
  header.llvmVersion = "22.test";
  Result<std::vector<uint8_t>> bytes = encodeBundle(header, swapped);
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  Result<Bundle> bundle = Bundle::fromBytes(bytes.value());
  ASSERT_TRUE(bundle.ok()) << bundle.error();
  FakeJit fake;
  KernelTableOptions options;
  options.jit = fake.compiler();
  options.strict = true;
  KernelTable table(std::move(options));
  table.addBundle(std::make_shared<const Bundle>(std::move(bundle.value())));
  Result<KernelHandle> kernel = table.get(std::string_view(a));
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.error(), "the bundle entry for '" + a + "' holds kernel '" +
                                objectB.kernel.name + "', not this spec's (" +
                                objectA.kernel.name +
                                " or the same at a larger M bucket): the bundle is corrupted");
  // The control: the same two entries, not swapped, load.
  KernelTableOptions plainOptions;
  plainOptions.jit = fake.compiler();
  plainOptions.strict = true;
  KernelTable plain(std::move(plainOptions));
  plain.addBundle(fakeBundle({a, b}));
  EXPECT_TRUE(plain.get(std::string_view(a)).ok());
  EXPECT_EQ(fake.compiles.load(), 0);
}

// MXFORGE_JIT's policies once start-up is marked done: warn compiles and says
// so once per code spec; error refuses; bundle kernels are never late, and
// before the mark nothing is said (issue 16).
TEST(KernelTable, LateJitCompilesWarnOrAreRefused) {
  for (LateJitPolicy policy : {LateJitPolicy::Allow, LateJitPolicy::Warn, LateJitPolicy::Error}) {
    SCOPED_TRACE(lateJitPolicyName(policy));
    FakeJit fake;
    std::vector<std::string> warnings;
    KernelTableOptions options;
    options.jit = fake.compiler();
    options.lateJit = policy;
    options.warn = [&](const std::string &line) { warnings.push_back(line); };
    KernelTable table(std::move(options));
    table.addBundle(fakeBundle({kSpec}));
    ASSERT_TRUE(table.get(std::string_view("rotate_quant:K=1024,M=1")).ok()); // during start-up
    table.markStartupDone();
    ASSERT_TRUE(table.get(std::string_view(kSpec)).ok()); // a bundle kernel: never late
    Result<KernelHandle> late = table.get(std::string_view("rotate_quant:K=2048,M=1"));
    // FakeJit has no code-spec hook: the code spec is the spec itself.
    const std::string code = printSpec(specOf("rotate_quant:K=2048,M=1"));
    const std::string what = "a JIT compile of '" + code +
                             "' after start-up was marked done (MXFORGE_JIT=" +
                             lateJitPolicyName(policy) + ")";
    if (policy == LateJitPolicy::Error) {
      ASSERT_FALSE(late.ok());
      EXPECT_EQ(late.error(), what + " is refused: add the spec to the bundle");
      EXPECT_EQ(fake.compiles.load(), 1);
    } else {
      ASSERT_TRUE(late.ok()) << late.error();
      EXPECT_EQ(fake.compiles.load(), 2);
    }
    // Asking again is served by the table: nothing new is compiled or said.
    (void)table.get(std::string_view("rotate_quant:K=2048,M=1"));
    if (policy == LateJitPolicy::Warn) {
      ASSERT_EQ(warnings.size(), 1u);
      EXPECT_EQ(warnings[0], what + ": a latency spike in the serving path; add the spec to the "
                                    "bundle");
    } else {
      EXPECT_TRUE(warnings.empty());
    }
    EXPECT_EQ(table.stats().lateCompiles, 1u);
  }
}

TEST(KernelTable, TheLateJitPolicyComesFromMxforgeJit) {
  ::setenv("MXFORGE_JIT", "warn", 1);
  Result<LateJitPolicy> warn = lateJitPolicyFromEnvironment();
  ::setenv("MXFORGE_JIT", "sometimes", 1);
  Result<LateJitPolicy> bad = lateJitPolicyFromEnvironment();
  ::unsetenv("MXFORGE_JIT");
  Result<LateJitPolicy> unset = lateJitPolicyFromEnvironment();
  ASSERT_TRUE(warn.ok() && unset.ok());
  EXPECT_EQ(warn.value(), LateJitPolicy::Warn);
  EXPECT_EQ(unset.value(), LateJitPolicy::Allow);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "MXFORGE_JIT='sometimes' is not one of allow, warn, error");
}

TEST(KernelTable, StrictModeAndNoCompilerNameTheMissingSpec) {
  FakeJit fake;
  KernelTableOptions strictOptions;
  strictOptions.jit = fake.compiler();
  strictOptions.strict = true;
  KernelTable strict(std::move(strictOptions));
  strict.addBundle(fakeBundle({kSpec}));
  EXPECT_TRUE(strict.get(std::string_view(kSpec)).ok());
  Result<KernelHandle> missing = strict.get(std::string_view("rotate_quant:K=1024"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), "'" + printSpec(specOf("rotate_quant:K=1024")) +
                                 "' is in no loaded bundle (strict mode: no JIT)");
  EXPECT_EQ(fake.compiles.load(), 0);

  KernelTable runtimeOnly(KernelTableOptions{});
  Result<KernelHandle> noJit = runtimeOnly.get(std::string_view(kSpec));
  ASSERT_FALSE(noJit.ok());
  EXPECT_NE(noJit.error().find("no compiler is linked"), std::string::npos) << noJit.error();
}

TEST(KernelTable, DiskCacheServesTheNextTableAndHealsDamage) {
  ScratchCacheDir dir;
  FakeJit first;
  {
    KernelTableOptions options;
    options.jit = first.compiler();
    options.cache = dir.location();
    KernelTable table(std::move(options));
    ASSERT_TRUE(table.get(std::string_view(kSpec)).ok());
  }
  EXPECT_EQ(first.compiles.load(), 1);

  // A second table, as a second process would have: a cache hit.
  FakeJit second;
  std::vector<std::string> warnings;
  KernelTableOptions options;
  options.jit = second.compiler();
  options.cache = dir.location();
  options.warn = [&](const std::string &line) { warnings.push_back(line); };
  {
    KernelTable table(options);
    Result<KernelHandle> kernel = table.get(std::string_view(kSpec));
    ASSERT_TRUE(kernel.ok()) << kernel.error();
    EXPECT_EQ(kernel.value()->origin, KernelOrigin::DiskCache);
    EXPECT_EQ(kernel.value()->object.hsaco, testing::fakeCodeObject(specOf(kSpec)).hsaco);
  }
  EXPECT_EQ(second.compiles.load(), 0);
  EXPECT_TRUE(warnings.empty());

  // Damage the entry: the next table reports it once, recompiles, replaces it.
  DiskCache cache(dir.path());
  Result<std::vector<CacheEntryInfo>> entries = cache.list(false);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries.value().size(), 1u);
  const std::string path = dir.path() + "/" + entries.value()[0].fileName;
  Result<std::vector<uint8_t>> bytes = readFileBytes(path);
  ASSERT_TRUE(bytes.ok());
  std::mt19937_64 rng(testing::testSeed("KernelTable.DiskCacheServesTheNextTableAndHealsDamage"));
  bytes.value()[rng() % bytes.value().size()] ^= uint8_t(1 + rng() % 255);
  ASSERT_TRUE(writeFileAtomically(path, bytes.value()).ok());
  {
    KernelTable table(options);
    Result<KernelHandle> kernel = table.get(std::string_view(kSpec));
    ASSERT_TRUE(kernel.ok()) << kernel.error();
    EXPECT_EQ(kernel.value()->origin, KernelOrigin::Compiled);
    EXPECT_EQ(kernel.value()->object.hsaco, testing::fakeCodeObject(specOf(kSpec)).hsaco);
  }
  EXPECT_EQ(second.compiles.load(), 1);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(path), std::string::npos) << warnings[0];
  {
    KernelTable table(options);
    Result<KernelHandle> kernel = table.get(std::string_view(kSpec));
    ASSERT_TRUE(kernel.ok());
    EXPECT_EQ(kernel.value()->origin, KernelOrigin::DiskCache) << "the entry was replaced";
  }
}

// What listings report for each kernel after a warm start (issue 31): a
// cache hit said "jit", and so did every spec that shared it.
TEST(KernelTable, OriginsSayWhatHappened) {
  ScratchCacheDir dir;
  auto oneClassPerK = [](const KernelSpec &spec) -> Result<KernelSpec> {
    KernelSpec code = spec;
    code.M = 256;
    return code;
  };
  // The in-process JIT compiles a class's code spec; the fake must too, or
  // the cache would refuse its entries as another spec's.
  auto byClass = [oneClassPerK](JitCompiler jit) {
    auto compile = jit.compile;
    jit.compile = [compile, oneClassPerK](const KernelSpec &spec) {
      return compile(oneClassPerK(spec).value());
    };
    jit.codeSpec = oneClassPerK;
    return jit;
  };
  KernelSpec bucket1 = specOf(kSpec), bucket16 = specOf(kSpec);
  bucket1.M = 1;
  bucket16.M = 16;
  FakeJit cold;
  {
    KernelTableOptions options;
    options.jit = byClass(cold.compiler());
    options.cache = dir.location();
    KernelTable table(std::move(options));
    Result<KernelHandle> compiled = table.get(bucket1), shared = table.get(bucket16);
    ASSERT_TRUE(compiled.ok() && shared.ok());
    EXPECT_STREQ(reportedOrigin(*compiled.value()), "jit");
    EXPECT_STREQ(reportedOrigin(*shared.value()), "shared");
    EXPECT_EQ(shared.value()->origin, KernelOrigin::Compiled);
  }
  FakeJit warm;
  KernelTableOptions options;
  options.jit = byClass(warm.compiler());
  options.cache = dir.location();
  {
    KernelTable table(options);
    Result<KernelHandle> hit = table.get(bucket16), shared = table.get(bucket1);
    ASSERT_TRUE(hit.ok() && shared.ok());
    EXPECT_STREQ(reportedOrigin(*hit.value()), "cache");
    EXPECT_STREQ(reportedOrigin(*shared.value()), "shared");
    EXPECT_EQ(shared.value()->origin, KernelOrigin::DiskCache) << "a shared cache hit is no JIT";
  }
  EXPECT_EQ(warm.compiles.load(), 0);
  // Code an override replaced reports "override", and so does its source.
  options.cache = CacheLocation{};
  options.jit->overrideCode = [](CodeObject produced) -> Result<CodeObject> {
    produced.hsaco.push_back(0x42);
    return produced;
  };
  KernelTable overridden(options);
  Result<KernelHandle> replaced = overridden.get(bucket1);
  ASSERT_TRUE(replaced.ok());
  EXPECT_STREQ(reportedOrigin(*replaced.value()), "override");
  Result<KernelHandle> sharesIt = overridden.get(bucket16);
  ASSERT_TRUE(sharesIt.ok());
  EXPECT_EQ(sharesIt.value()->origin, KernelOrigin::Override);
  EXPECT_STREQ(reportedOrigin(*sharesIt.value()), "shared");
  // A bundle entry is "bundle", its own or its class's.
  KernelTableOptions bundled;
  bundled.jit = FakeJit().compiler();
  KernelTable fromBundle(std::move(bundled));
  fromBundle.addBundle(fakeBundle({kSpec}));
  Result<KernelHandle> entry = fromBundle.get(std::string_view(kSpec));
  ASSERT_TRUE(entry.ok());
  EXPECT_STREQ(reportedOrigin(*entry.value()), "bundle");
}

TEST(KernelTable, TheLateJitMessageNamesWhoChoseThePolicy) {
  FakeJit fake;
  std::vector<std::string> warnings;
  KernelTableOptions options;
  options.jit = fake.compiler();
  options.warn = [&](const std::string &line) { warnings.push_back(line); };
  KernelTable table(std::move(options));
  table.setLateJitPolicy(LateJitPolicy::Warn); // as mxf_context_set_late_jit does
  table.markStartupDone();
  ASSERT_TRUE(table.get(std::string_view(kSpec)).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("(policy warn, set by mxf_context_set_late_jit)"), std::string::npos)
      << warnings[0];
  EXPECT_EQ(warnings[0].find("MXFORGE_JIT"), std::string::npos)
      << "the user never set MXFORGE_JIT: " << warnings[0];
}

TEST(KernelTable, StrictModeNeverTouchesTheCache) {
  ScratchCacheDir dir;
  FakeJit fake;
  KernelTableOptions options;
  options.jit = fake.compiler();
  options.cache = dir.location();
  options.strict = true;
  KernelTable table(std::move(options));
  EXPECT_EQ(table.diskCache(), nullptr);
  EXPECT_FALSE(table.get(std::string_view(kSpec)).ok());
}

} // namespace
} // namespace mxf
