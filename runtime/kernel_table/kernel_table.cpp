//===- kernel_table.cpp - Compile-once kernels for engine start-up --------===//

#include "runtime/kernel_table/kernel_table.h"

#include "abi/operands.h"
#include "spec/buckets.h"
#include "support/fork_gate.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

namespace mxf {
namespace {

/// True if `name` is the kernel name of `spec` at its M or at a larger M
/// bucket (specs of one tiling class share their class's code object).
bool namesKernelOf(const KernelSpec &spec, const std::string &name) {
  for (int bucket : kMBuckets) {
    if (bucket < spec.M)
      continue;
    KernelSpec atBucket = spec;
    atBucket.M = bucket;
    if (kernelName(atBucket) == name)
      return true;
  }
  return false;
}

/// `key`'s slot in `slots`: the first asker gets it (`first`), and must
/// fulfil `promise`; every other asker, concurrent or later, gets that
/// promise's future to wait on outside the lock. Called with the lock held.
template <typename T>
std::shared_future<T> claimSlot(std::map<std::string, std::shared_future<T>> &slots,
                                const std::string &key, std::promise<T> &promise, bool &first) {
  auto found = slots.find(key);
  first = found == slots.end();
  if (!first)
    return found->second;
  std::shared_future<T> pending = promise.get_future().share();
  slots.emplace(key, pending);
  return pending;
}

} // namespace

CacheKeyInputs ToolchainIdentity::keyInputs(const std::string &canonicalSpec) const {
  CacheKeyInputs inputs;
  inputs.canonicalSpec = canonicalSpec;
  inputs.mxforgeVersion = mxforgeVersion;
  inputs.llvmVersion = llvmVersion;
  inputs.target = target;
  inputs.codeObjectVersion = codeObjectVersion;
  inputs.templateRevision = templateRevision;
  return inputs;
}

const char *kernelOriginName(KernelOrigin origin) {
  switch (origin) {
  case KernelOrigin::Bundle: return "bundle";
  case KernelOrigin::DiskCache: return "cache";
  case KernelOrigin::Compiled: return "jit";
  case KernelOrigin::Override: return "override";
  }
  return "?";
}

const char *reportedOrigin(const TableKernel &kernel) {
  if (kernel.origin != KernelOrigin::Bundle && kernel.sharedCode)
    return "shared";
  return kernelOriginName(kernel.origin);
}

KernelTable::KernelTable(KernelTableOptions options) : options_(std::move(options)) {
  if (options_.jit && !options_.strict && options_.cache.enabled)
    cache_ = std::make_unique<DiskCache>(options_.cache.directory, options_.warn);
}

KernelTable::~KernelTable() = default;

const char *lateJitPolicyName(LateJitPolicy policy) {
  switch (policy) {
  case LateJitPolicy::Allow:
    return "allow";
  case LateJitPolicy::Warn:
    return "warn";
  case LateJitPolicy::Error:
    return "error";
  }
  return "?";
}

Result<LateJitPolicy> lateJitPolicyFromEnvironment() {
  const char *value = std::getenv("MXFORGE_JIT");
  if (!value || !*value)
    return LateJitPolicy::Allow;
  for (LateJitPolicy policy : {LateJitPolicy::Allow, LateJitPolicy::Warn, LateJitPolicy::Error})
    if (std::string(value) == lateJitPolicyName(policy))
      return policy;
  return Result<LateJitPolicy>::failure(std::string("MXFORGE_JIT='") + value +
                                        "' is not one of allow, warn, error");
}

void KernelTable::setLateJitPolicy(LateJitPolicy policy, std::string setBy) {
  std::lock_guard<std::mutex> lock(mutex_);
  options_.lateJit = policy;
  options_.lateJitSetBy = std::move(setBy);
}

void KernelTable::addBundle(std::shared_ptr<const Bundle> bundle) {
  if (!bundle)
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Bundle::Kernel &kernel : bundle->kernels()) {
    // The loader checked that every manifest spec parses and is canonical.
    Result<KernelSpec> spec = parseSpec(kernel.spec);
    if (spec.ok())
      bucketsByFamily_[specFamily(spec.value())].insert(spec.value().M);
  }
  bundles_.push_back(std::move(bundle));
}

Result<KernelHandle> KernelTable::get(std::string_view specText) {
  Result<KernelSpec> spec = parseSpec(specText);
  if (!spec.ok())
    return spec.status();
  return get(spec.value());
}


Result<KernelHandle> KernelTable::get(const KernelSpec &spec) {
  // From claiming the slot to filling it: a fork in between would leave the
  // child a slot nobody fills (support/fork_gate.h).
  ForkGate::Scope noForkInside;
  if (Status valid = validateSpec(spec); !valid.ok())
    return valid;
  const std::string canonical = printSpec(spec);
  std::promise<Result<KernelHandle>> promise;
  std::shared_future<Result<KernelHandle>> pending;
  bool firstAsker = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.requests;
    pending = claimSlot(entries_, canonical, promise, firstAsker);
  }
  if (!firstAsker)
    return pending.get(); // waits, outside the lock, while the first asker works
  Result<KernelHandle> result = produce(spec, canonical);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!result.ok())
      ++stats_.failures;
    else if (result.value()->origin == KernelOrigin::Bundle)
      ++stats_.fromBundle;
    else if (result.value()->sharedCode)
      ++stats_.sharedCode;
    else if (result.value()->origin == KernelOrigin::DiskCache)
      ++stats_.cacheHits;
    else
      ++stats_.compiled;
    if (result.ok())
      bucketsByFamily_[specFamily(spec)].insert(spec.M);
  }
  promise.set_value(result);
  return result;
}

Result<KernelHandle> KernelTable::produce(const KernelSpec &spec, const std::string &canonical) {
  auto handle = [&](CodeObject object, KernelOrigin origin,
                    bool sharedCode = false) -> Result<KernelHandle> {
    auto kernel = std::make_shared<TableKernel>();
    kernel->spec = spec;
    kernel->object = std::move(object);
    kernel->origin = origin;
    kernel->sharedCode = sharedCode;
    return KernelHandle(std::move(kernel));
  };

  std::vector<std::shared_ptr<const Bundle>> bundles;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    bundles = bundles_;
  }
  auto fromBundleEntry = [&](const Bundle::Kernel &kernel, bool sharedCode) {
    CodeObject object;
    object.hsaco.assign(kernel.hsaco, kernel.hsaco + kernel.hsacoSize);
    object.kernel = kernel.kernel;
    object.launch = kernel.launch;
    object.spec = canonical;
    return handle(std::move(object), KernelOrigin::Bundle, sharedCode);
  };
  for (const std::shared_ptr<const Bundle> &bundle : bundles)
    if (const Bundle::Kernel *kernel = bundle->find(canonical)) {
      // The entry's kernel must be this spec's (abi/ names it, at the spec's
      // M or the larger bucket of its tiling class): a bundle re-sealed with
      // code objects and names swapped between entries is refused here,
      // never launched as the wrong kernel.
      if (!namesKernelOf(spec, kernel->kernel.name))
        return Result<KernelHandle>::failure(
            "the bundle entry for '" + canonical + "' holds kernel '" + kernel->kernel.name +
            "', not this spec's (" + kernelName(spec) +
            " or the same at a larger M bucket): the bundle is corrupted");
      if (kernel->launch.maxRows < uint32_t(spec.M))
        return Result<KernelHandle>::failure(
            "the bundle entry for '" + canonical + "' launches at most " +
            std::to_string(kernel->launch.maxRows) + " rows, fewer than its M: the bundle is "
            "corrupted");
      return fromBundleEntry(*kernel, /*sharedCode=*/false);
    }
  // The bucket in a spec only names its class: an entry of another bucket
  // of the class holds this spec's code object.
  if (const Bundle::Kernel *kernel = classEntryInBundles(spec, bundles))
    return fromBundleEntry(*kernel, /*sharedCode=*/true);

  if (options_.strict)
    return Result<KernelHandle>::failure("'" + canonical +
                                         "' is in no loaded bundle (strict mode: no JIT)");
  if (!options_.jit)
    return Result<KernelHandle>::failure(
        "'" + canonical + "' is in no loaded bundle and no compiler is linked to JIT it");

  const JitCompiler &jit = *options_.jit;
  std::string codeText = canonical;
  if (jit.codeSpec) {
    Result<KernelSpec> code = jit.codeSpec(spec);
    if (!code.ok())
      return code.status();
    codeText = printSpec(code.value());
  }
  // One compile per code spec: the first spec of a tiling class produces
  // it, later ones (and concurrent ones) share it.
  std::promise<Result<ProducedCode>> promise;
  std::shared_future<Result<ProducedCode>> pending;
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending = claimSlot(codeObjects_, codeText, promise, first);
  }
  if (!first) {
    Result<ProducedCode> shared = pending.get();
    if (!shared.ok())
      return shared.status();
    return handle(shared.value().object, shared.value().origin, /*sharedCode=*/true);
  }
  KernelOrigin origin = KernelOrigin::Compiled;
  Result<CodeObject> produced = [&]() -> Result<CodeObject> {
    std::optional<Sha256Digest> key;
    if (cache_) {
      key = cacheKey(jit.identity.keyInputs(codeText));
      CacheLoad cached = cache_->load(*key, codeText);
      if (cached.outcome == CacheLoadOutcome::Hit) {
        origin = KernelOrigin::DiskCache;
        return std::move(*cached.object);
      }
      // A rejected entry was reported by the cache; compiling replaces it.
    }
    if (!jit.compile)
      return Result<CodeObject>::failure(
          "'" + codeText + "' is in no loaded bundle" +
          (cache_ ? " and not in the disk cache (" + cache_->directory() + ")"
                  : std::string(" (the disk cache is off)")) +
          ", and this library cannot compile it (libmxforge_runtime has no JIT: load a bundle "
          "that holds it, or use libmxforge)");
    if (startupDone_.load()) {
      LateJitPolicy policy;
      std::string setBy;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ++stats_.lateCompiles;
        policy = options_.lateJit;
        setBy = options_.lateJitSetBy;
      }
      const std::string chosen = setBy == "MXFORGE_JIT"
                                     ? std::string("MXFORGE_JIT=") + lateJitPolicyName(policy)
                                     : std::string("policy ") + lateJitPolicyName(policy) +
                                           ", set by " + setBy;
      const std::string what =
          "a JIT compile of '" + codeText + "' after start-up was marked done (" + chosen + ")";
      if (policy == LateJitPolicy::Error)
        return Result<CodeObject>::failure(what + " is refused: add the spec to the bundle");
      if (policy == LateJitPolicy::Warn) {
        // Once per code spec: this code runs once per code spec anyway.
        const std::string line = what + ": a latency spike in the serving path; add the "
                                        "spec to the bundle";
        if (options_.warn)
          options_.warn(line);
        else
          printCacheWarning(line);
      }
    }
    Result<CodeObject> compiled = jit.compile(spec);
    if (compiled.ok() && cache_)
      (void)cache_->store(*key, compiled.value()); // a failure degrades (warned once)
    return compiled;
  }();
  if (produced.ok() && jit.overrideCode) {
    const std::vector<uint8_t> before = produced.value().hsaco;
    produced = jit.overrideCode(std::move(produced.value()));
    if (produced.ok() && produced.value().hsaco != before)
      origin = KernelOrigin::Override;
  }
  if (!produced.ok()) {
    promise.set_value(produced.status());
    return produced.status();
  }
  promise.set_value(ProducedCode{produced.value(), origin});
  return handle(std::move(produced.value()), origin);
}

std::optional<std::string> KernelTable::codeClassOf(const KernelSpec &spec) const {
  if (!options_.jit || !options_.jit->codeSpec)
    return printSpec(spec);
  Result<KernelSpec> code = options_.jit->codeSpec(spec);
  if (!code.ok())
    return std::nullopt;
  return printSpec(code.value());
}

const Bundle::Kernel *
KernelTable::classEntryInBundles(const KernelSpec &spec,
                                 const std::vector<std::shared_ptr<const Bundle>> &bundles) const {
  if (bundles.empty() || !kernelHasRowsOperand(spec.op) || !options_.jit ||
      !options_.jit->codeSpec)
    return nullptr; // no buckets, or every spec its own class
  const std::optional<std::string> codeClass = codeClassOf(spec);
  if (!codeClass)
    return nullptr;
  for (int bucket : kMBuckets) {
    if (bucket == spec.M)
      continue;
    KernelSpec member = spec;
    member.M = bucket;
    if (codeClassOf(member) != codeClass)
      continue;
    const std::string memberText = printSpec(member);
    for (const std::shared_ptr<const Bundle> &bundle : bundles)
      if (const Bundle::Kernel *kernel = bundle->find(memberText))
        // The entry is checked as its own spec is when asked for: its
        // kernel must be the class's, and its record must serve our M.
        if (namesKernelOf(spec, kernel->kernel.name) &&
            kernel->launch.maxRows >= uint32_t(spec.M))
          return kernel;
  }
  return nullptr;
}

std::vector<Result<KernelHandle>> KernelTable::compileAll(const std::vector<KernelSpec> &specs,
                                                          unsigned threads) {
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, std::max<size_t>(specs.size(), 1));
  // One spec per code class first (the costliest classes first), the rest
  // after them: a thread reaches a spec whose class another thread may
  // still be producing only once every class has been started, so no
  // thread waits while a class waits. The rest then share their class's
  // code object (get(), one compile per code spec). Resolving a class is
  // cheap next to a compile; a spec the hook refuses is a class of its own,
  // and get() reports why.
  std::vector<size_t> order;
  order.reserve(specs.size());
  std::vector<size_t> rest;
  std::set<std::string> classes;
  for (size_t i = 0; i < specs.size(); ++i) {
    std::optional<std::string> codeClass =
        validateSpec(specs[i]).ok() ? codeClassOf(specs[i]) : std::nullopt;
    if (!codeClass || classes.insert(*codeClass).second)
      order.push_back(i);
    else
      rest.push_back(i);
  }
  if (options_.jit && options_.jit->compileCost) {
    std::vector<int> cost(specs.size(), 0);
    for (size_t i : order)
      cost[i] = options_.jit->compileCost(specs[i]);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return cost[a] > cost[b]; });
  }
  order.insert(order.end(), rest.begin(), rest.end());

  std::vector<std::optional<Result<KernelHandle>>> slots(specs.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t n = next++; n < order.size(); n = next++)
      slots[order[n]].emplace(get(specs[order[n]]));
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work(); // the calling thread is one of the workers
  for (std::thread &thread : pool)
    thread.join();
  std::vector<Result<KernelHandle>> results;
  results.reserve(specs.size());
  for (std::optional<Result<KernelHandle>> &slot : slots)
    results.push_back(std::move(*slot));
  return results;
}

std::vector<int> KernelTable::availableBuckets(const KernelSpec &family) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = bucketsByFamily_.find(specFamily(family));
  if (found == bucketsByFamily_.end())
    return {};
  return std::vector<int>(found->second.begin(), found->second.end());
}

std::optional<int> KernelTable::heldBucketServing(const KernelSpec &family, int m,
                                                  const std::vector<int> &held) const {
  if (held.empty())
    return std::nullopt;
  std::set<std::string> heldClasses; // resolved only when no held bucket fits
  KernelSpec member = family;
  for (int bucket : kMBuckets) {
    if (bucket < m)
      continue;
    if (std::find(held.begin(), held.end(), bucket) != held.end())
      return bucket;
    if (heldClasses.empty())
      for (int heldBucket : held) {
        member.M = heldBucket;
        if (std::optional<std::string> codeClass = codeClassOf(member))
          heldClasses.insert(*codeClass);
      }
    member.M = bucket;
    if (std::optional<std::string> codeClass = codeClassOf(member);
        codeClass && heldClasses.count(*codeClass))
      return bucket;
  }
  return std::nullopt;
}

Result<KernelHandle> KernelTable::forRows(const KernelSpec &family, int m) {
  if (!kernelHasRowsOperand(family.op)) {
    // No M key and no buckets (quant_weight): the spec is its one kernel,
    // which always processes its N rows.
    if (Status rows = checkLaunchRows(family, m); !rows.ok())
      return rows;
    return get(family);
  }
  KernelSpec member = family;
  member.M = kLargestMBucket; // any legal bucket: the family's own M may be unset
  if (Status valid = validateSpec(member); !valid.ok())
    return valid;
  const std::string familyText = specFamily(family);
  if (m < 1)
    return Result<KernelHandle>::failure("M=" + std::to_string(m) + " for " + familyText +
                                         ": a launch needs at least one row");
  if (m > kLargestMBucket)
    return Result<KernelHandle>::failure("M=" + std::to_string(m) + " for " + familyText +
                                         " exceeds the largest M bucket (" +
                                         std::to_string(kLargestMBucket) +
                                         "); split the batch");
  const std::vector<int> buckets = availableBuckets(family);
  if (std::optional<int> bucket = heldBucketServing(family, m, buckets)) {
    member.M = *bucket;
    return get(member);
  }
  if (options_.jit && !options_.strict) {
    member.M = *smallestBucketAtLeast(m);
    return get(member);
  }
  std::string have;
  for (int bucket : buckets)
    have += (have.empty() ? "" : ", ") + std::to_string(bucket);
  return Result<KernelHandle>::failure(
      "no kernel for M=" + std::to_string(m) + " of " + familyText + ": " +
      (buckets.empty() ? std::string("no bucket of this family is loaded")
                       : "the loaded buckets are " + have) +
      (options_.strict ? " (strict mode: no JIT)" : " (no compiler is linked)"));
}

KernelTableStats KernelTable::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

} // namespace mxf
