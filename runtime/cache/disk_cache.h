//===- disk_cache.h - The persistent kernel cache ------------------*- C++ -*-===//
//
// A directory of entry files, `<dir>/<64-hex key>.mxfc` (cache_entry.h), that
// any number of threads and processes share without locks:
//  - store() writes with writeFileAtomically (support/file_io.h): a reader
//    sees no entry or a complete one, never a torn file; two writers of the
//    same key both succeed and the second rename wins (same bytes anyway);
//  - load() verifies the header and checksum every time; a truncated,
//    corrupted, foreign or mismatched entry is reported once through the
//    warning handler, never returned, and the caller recompiles and stores,
//    which replaces it;
//  - a directory that cannot be written (read-only, full, not a directory)
//    makes store() fail; the first such failure is reported once per
//    DiskCache and later stores are skipped: compiling continues uncached;
//  - it trusts only its owner, as ssh and git do (support/file_trust.h):
//    the directory and every entry read must belong to the running user and
//    not be writable by group or others. Otherwise the whole cache is off
//    for this DiskCache (one warning naming the path, owner and mode): no
//    load hits, nothing is stored, nothing of anyone else is removed. What
//    store() creates is private: directories 0700, entries 0600.
// Plain C++ (no LLVM, no MLIR): the CLI's `mxforge cache` uses it directly.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_CACHE_DISK_CACHE_H
#define MXFORGE_RUNTIME_CACHE_DISK_CACHE_H

#include "abi/code_object.h"
#include "support/status.h"
#include "support/sha256.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mxf {

/// Where the cache lives, from the environment:
///  MXFORGE_CACHE=0 (or "off", "false", "no", any case) disables it;
///  else MXFORGE_CACHE_DIR, else $XDG_CACHE_HOME/mxforge, else
///  $HOME/.cache/mxforge; with none of them set, disabled. An empty value
///  counts as unset, and a relative XDG_CACHE_HOME is ignored (XDG spec).
struct CacheLocation {
  bool enabled = false;
  std::string directory;
  /// Why: "MXFORGE_CACHE_DIR", "XDG_CACHE_HOME", "HOME", "MXFORGE_CACHE=0",
  /// "no MXFORGE_CACHE_DIR, XDG_CACHE_HOME or HOME".
  std::string source;
};
/// `getenv` is a parameter so that tests need not touch the real
/// environment; the default reads it.
CacheLocation cacheLocationFromEnvironment(
    const std::function<const char *(const char *)> &getenv = nullptr);

/// Receives each warning (one line, no trailing newline). The default
/// prints `mxforge: warning: <line>` on stderr.
using CacheWarningHandler = std::function<void(const std::string &)>;
/// That default: one write of the whole line, so that warnings of concurrent
/// threads do not interleave (the kernel table's late-JIT warnings use it
/// too).
void printCacheWarning(const std::string &line);

/// File name suffix of entries.
constexpr const char *kCacheEntrySuffix = ".mxfc";

enum class CacheLoadOutcome {
  Hit,      // a verified entry
  Miss,     // no entry for the key
  Rejected, // an entry was there but failed verification (reported)
};

struct CacheLoad {
  CacheLoadOutcome outcome = CacheLoadOutcome::Miss;
  std::optional<CodeObject> object; // set exactly for Hit
  std::string problem;              // for Rejected: why
};

/// One entry as `mxforge cache ls|verify` shows it.
struct CacheEntryInfo {
  std::string fileName;
  uint64_t bytes = 0;
  int64_t modifiedUnixSeconds = 0;
  std::string spec;   // from the payload when it decodes, else empty
  std::string kernel; // the kernel name, likewise
  /// Empty when the entry verifies (header, checksum, key = file name), or
  /// when list() was asked not to verify.
  std::string problem;
  /// Set by removeDamaged() for the damaged entries it removed.
  bool removed = false;
  /// `problem` is about who may change the entry (another owner, or group
  /// or others may write it), not its bytes.
  bool untrusted = false;
};

struct CacheStats {
  uint64_t entries = 0;    // `*.mxfc` names, as list() counts them
  uint64_t totalBytes = 0; // of the entries that are regular files
  uint64_t temporaries = 0; // leftovers of interrupted writes
  uint64_t foreignFiles = 0; // anything else in the directory
};

class DiskCache {
public:
  explicit DiskCache(std::string directory, CacheWarningHandler warn = nullptr);

  const std::string &directory() const { return directory_; }
  std::string entryPath(const Sha256Digest &key) const;

  /// Looks `key` up; `canonicalSpec` must match the entry's own spec.
  /// A rejected entry is reported (once per key per DiskCache) and, when it
  /// is an empty directory in the entry's place, removed so that the next
  /// store can replace it. Never fails otherwise: an unreadable entry is a
  /// Rejected, a missing one a Miss.
  CacheLoad load(const Sha256Digest &key, const std::string &canonicalSpec);

  /// Writes the entry atomically, creating the directory if needed. After
  /// the first failure (reported once) stores are skipped and return that
  /// failure: see the file comment. The one failure that concerns a single
  /// key, a non-empty directory in the entry's place, fails that store only
  /// (reported once per key) and leaves the cache writable.
  Status store(const Sha256Digest &key, const CodeObject &object);

  /// False once a store has failed.
  bool writable() const { return writable_.load(); }
  /// False once the directory or an entry was found untrusted (see the file
  /// comment): loads miss and stores fail from then on.
  bool trusted() const { return trusted_.load(); }

  /// The directory against the owner rule: fine when it does not exist yet
  /// (the first store creates it 0700); else "<dir> is owned by uid N ..."
  /// or "<dir> has mode 0777 ...: writable by group and others".
  Status checkDirectoryTrust() const;

  /// Every entry (`*.mxfc`, temporaries excluded), sorted by file name.
  /// Each is read so that `spec` and `kernel` are filled when it decodes;
  /// `problem` is filled only when `verify`. Fails only when the directory
  /// cannot be read (a missing one lists as empty).
  Result<std::vector<CacheEntryInfo>> list(bool verify) const;
  Result<CacheStats> stats() const;
  /// Removes every entry and every leftover temporary that this user owns;
  /// other files are left alone. Returns how many files were removed.
  Result<uint64_t> clear() const;
  /// Removes the entries that fail verification (an empty directory in an
  /// entry's place too; a non-empty one stays, and so does a file of
  /// another owner); returns them all, with `removed` set for those that
  /// are gone.
  Result<std::vector<CacheEntryInfo>> removeDamaged() const;

private:
  void warnOnce(const std::string &what, const std::string &message);
  /// Reports the first failed store and turns the later ones off.
  Status disableStores(const std::string &reason);
  /// Turns the cache off for good (loads miss, stores fail) and warns once.
  void distrust(const std::string &reason);

  std::string directory_;
  CacheWarningHandler warn_;
  std::atomic<bool> writable_{true};
  std::atomic<bool> trusted_{true};
  std::mutex warnedMutex_;
  std::set<std::string> warned_;
  std::string storeFailure_; // guarded by warnedMutex_
  std::string distrustReason_; // guarded by warnedMutex_
};

} // namespace mxf

#endif // MXFORGE_RUNTIME_CACHE_DISK_CACHE_H
