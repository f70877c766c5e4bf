//===- kernel_table.h - Compile-once kernels for engine start-up --*- C++ -*-===//
//
// What an engine holds at start-up: one KernelTable per process. `get(spec)`
// returns the spec's code object, looking in this order:
//   1. the table itself (every spec is produced once per process, even when
//      many threads ask at the same moment: the others wait for the first);
//   2. the bundles added with addBundle (AOT, runtime/bundle.h);
//   3. the disk cache (runtime/cache/disk_cache.h), when a JIT is attached;
//   4. the JIT, whose result then goes into the disk cache.
// In strict mode steps 3 and 4 are off: a spec missing from the bundles is
// an error that names it. Without a JIT (a runtime-only engine) the same.
//
// The table itself is plain C++ (no MLIR): the JIT is a function given in
// the options; compiler/jit/in_process_jit.h makes the real one.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_KERNEL_TABLE_KERNEL_TABLE_H
#define MXFORGE_RUNTIME_KERNEL_TABLE_KERNEL_TABLE_H

#include "runtime/cache/cache_key.h"
#include "runtime/cache/disk_cache.h"
#include "abi/code_object.h"
#include "support/status.h"
#include "runtime/bundle.h"
#include "spec/kernel_spec.h"

#include <functional>
#include <future>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mxf {

/// Everything besides the spec that decides what a compile produces; with
/// the canonical spec it makes the cache key.
struct ToolchainIdentity {
  std::string mxforgeVersion;
  std::string llvmVersion;
  std::string target;
  int codeObjectVersion = 5;
  int templateRevision = 0;

  CacheKeyInputs keyInputs(const std::string &canonicalSpec) const;
};

/// A compiler the table may call: compiles one validated spec.
struct JitCompiler {
  /// Null: a reader of the disk cache that compiles nothing (the runtime-only
  /// library); a spec missing from bundles and cache is then an error.
  std::function<Result<CodeObject>(const KernelSpec &)> compile;
  /// The spec the code of a spec is compiled for (its tiling class,
  /// templates/registry.h); specs with one code spec share one compile and
  /// one cache entry. Null: every spec is its own code spec.
  std::function<Result<KernelSpec>(const KernelSpec &)> codeSpec;
  /// Applied to every code object compiled or read from the cache before
  /// the table hands it out, never to what is stored in the cache
  /// (MXFORGE_KERNEL_OVERRIDE_DIR). Null: none.
  std::function<Result<CodeObject>(CodeObject)> overrideCode;
  /// A rough relative cost of compiling a spec's code, for scheduling only:
  /// compileAll starts the costliest classes first, so that a long compile
  /// does not start last while the other threads idle. Null: every class
  /// alike, started in the order listed.
  std::function<int(const KernelSpec &)> compileCost;
  ToolchainIdentity identity;
};

/// Where a kernel of the table came from.
/// Where a kernel's code object came from: a loaded bundle, the disk cache,
/// the JIT, or the JIT's output replaced by MXFORGE_KERNEL_OVERRIDE_DIR.
enum class KernelOrigin { Bundle, DiskCache, Compiled, Override };
const char *kernelOriginName(KernelOrigin origin); // "bundle", "cache", "jit", "override"

/// One kernel of the table; immutable and shared (handles stay valid for as
/// long as anyone holds them, independent of the table).
struct TableKernel {
  KernelSpec spec;
  CodeObject object; // hsaco, KernelInfo, canonical spec text
  KernelOrigin origin = KernelOrigin::Compiled;
  /// The code object came from another spec of its tiling class (compiled
  /// or loaded from the cache by this table, or a bundle entry of another
  /// bucket of the class).
  bool sharedCode = false;
};

/// What happened for this kernel, as listings report it (mxf_context_get_kernel,
/// mxforge.kernels(), CompileResult.origin): "bundle" (an entry of a loaded
/// bundle, its own or its class's), "shared" (the code object another spec of
/// its tiling class got from the cache, the JIT or an override), else
/// "cache", "jit" or "override" for the code object this spec itself got.
const char *reportedOrigin(const TableKernel &kernel);

using KernelHandle = std::shared_ptr<const TableKernel>;

/// What a JIT compile after markStartupDone() does (MXFORGE_JIT): a compile
/// in the serving path is a latency spike that engines want to hear about
/// (warn) or forbid (error). Bundle kernels and cache hits are never late.
enum class LateJitPolicy { Allow, Warn, Error };
const char *lateJitPolicyName(LateJitPolicy policy); // "allow", "warn", "error"
/// MXFORGE_JIT's value (unset or empty: allow); an unknown value is an error
/// naming it and the three choices.
Result<LateJitPolicy> lateJitPolicyFromEnvironment();

struct KernelTableOptions {
  /// Absent: bundles only (what a runtime without the compiler has).
  std::optional<JitCompiler> jit;
  /// Only bundle kernels, never the cache or the JIT (AOT deployments that
  /// must not compile at start-up).
  bool strict = false;
  /// The disk cache used with the JIT; usually cacheLocationFromEnvironment().
  CacheLocation cache;
  /// Receives warnings (damaged cache entries, an unwritable cache, late
  /// JIT compiles). Null: stderr, as DiskCache's default.
  CacheWarningHandler warn;
  LateJitPolicy lateJit = LateJitPolicy::Allow;
  /// Who chose lateJit, for the late-JIT message ("MXFORGE_JIT", or the
  /// call that changed it): naming MXFORGE_JIT=warn for a policy an engine
  /// set through the C API sent users to a variable they never set.
  std::string lateJitSetBy = "MXFORGE_JIT";
};

/// Counters for logs and tests.
struct KernelTableStats {
  uint64_t requests = 0;   // get() calls, including those served from the table
  uint64_t fromBundle = 0; // kernels taken from a bundle (their own entry or their class's)
  uint64_t cacheHits = 0;  // kernels loaded from the disk cache
  uint64_t compiled = 0;   // kernels the JIT compiled
  uint64_t sharedCode = 0; // specs served by another spec's compile or cache load (one tiling class)
  uint64_t failures = 0;   // specs that ended in an error
  uint64_t lateCompiles = 0; // JIT compiles asked for after markStartupDone()
};

class KernelTable {
public:
  explicit KernelTable(KernelTableOptions options);
  ~KernelTable();
  KernelTable(const KernelTable &) = delete;
  KernelTable &operator=(const KernelTable &) = delete;

  /// Makes a bundle's kernels available. Bundles added earlier win when two
  /// hold the same spec. Thread-safe.
  void addBundle(std::shared_ptr<const Bundle> bundle);

  /// The kernel of `spec` (see the file comment). Thread-safe; a spec is
  /// produced at most once per table, and a failure is remembered too (a
  /// compile is deterministic, so asking again would fail again).
  Result<KernelHandle> get(const KernelSpec &spec);
  /// Parses `specText` first (a parse error is returned as is).
  Result<KernelHandle> get(std::string_view specText);

  /// get() for every spec on `threads` threads (0: one per core); one
  /// result per spec, in order. A failing spec does not stop the others.
  /// Specs are grouped by code class first: each thread produces a class no
  /// other thread is producing while any class waits, and the other specs
  /// of a class then share its code object (docs/jit.md).
  std::vector<Result<KernelHandle>> compileAll(const std::vector<KernelSpec> &specs,
                                               unsigned threads);

  /// Class dispatch: the kernel of `family` (any member; its M is ignored)
  /// for an actual row count `m`: the smallest bucket >= m whose code the
  /// table or a bundle already holds, its own or its tiling class's (one
  /// code object serves every m of its class, so a bundle of buckets 1-8 of
  /// a class of 256 rows serves m = 9 without compiling); when there is
  /// none and a JIT may run, the smallest legal bucket >= m is produced.
  /// m < 1, m above the largest bucket (256), or no bucket in strict mode
  /// are errors naming the family and the buckets there are. An op without
  /// buckets (quant_weight) has one kernel, for m = N only (checkLaunchRows).
  Result<KernelHandle> forRows(const KernelSpec &family, int m);

  /// The buckets of `family` available without compiling, ascending.
  std::vector<int> availableBuckets(const KernelSpec &family) const;

  KernelTableStats stats() const;
  /// The disk cache in use, or null (strict, no JIT, or disabled).
  const DiskCache *diskCache() const { return cache_.get(); }

  /// The engine's start-up is over: from now on a JIT compile follows
  /// options.lateJit (a warning once per code spec, or a refusal).
  void markStartupDone() { startupDone_.store(true); }
  void setLateJitPolicy(LateJitPolicy policy, std::string setBy = "mxf_context_set_late_jit");

private:
  Result<KernelHandle> produce(const KernelSpec &spec, const std::string &canonical);
  /// The canonical code spec of `spec` (its tiling class); the spec itself
  /// without a code-spec hook; nullopt when the hook refuses the spec.
  std::optional<std::string> codeClassOf(const KernelSpec &spec) const;
  /// A bundle entry of another bucket of `spec`'s class that serves M rows.
  const Bundle::Kernel *
  classEntryInBundles(const KernelSpec &spec,
                      const std::vector<std::shared_ptr<const Bundle>> &bundles) const;
  /// The smallest bucket >= m held, itself or through its class (forRows).
  std::optional<int> heldBucketServing(const KernelSpec &family, int m,
                                       const std::vector<int> &held) const;

  KernelTableOptions options_;
  std::unique_ptr<DiskCache> cache_;

  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<const Bundle>> bundles_;
  std::map<std::string, std::shared_future<Result<KernelHandle>>> entries_;
  /// JIT results by code spec: the one compile (or cache load) that every
  /// spec of a tiling class shares.
  /// A class's code object and how it was produced (a spec that shares it
  /// reports the same origin's source, never "jit" for a cache hit).
  struct ProducedCode {
    CodeObject object;
    KernelOrigin origin = KernelOrigin::Compiled;
  };
  std::map<std::string, std::shared_future<Result<ProducedCode>>> codeObjects_;
  std::map<std::string, std::set<int>> bucketsByFamily_;
  KernelTableStats stats_;
  std::atomic<bool> startupDone_{false};
};

} // namespace mxf

#endif // MXFORGE_RUNTIME_KERNEL_TABLE_KERNEL_TABLE_H
