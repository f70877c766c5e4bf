//===- disk_cache.cpp - Loading and storing entries -----------------------===//
//
// load() and store(), the two operations a compile goes through; what the
// CLI does to a whole directory is in cache_directory.cpp.
//
//===----------------------------------------------------------------------===//

#include "runtime/cache/disk_cache.h"

#include "runtime/cache/cache_entry.h"
#include "support/file_io.h"
#include "support/file_trust.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace mxf {
namespace {


/// readFileBytes names the path at the start of its messages; the warning
/// names it already.
std::string withoutPathPrefix(const std::string &message, const std::string &path) {
  const std::string prefix = path + ": ";
  return message.compare(0, prefix.size(), prefix) == 0 ? message.substr(prefix.size())
                                                         : message;
}

/// The warning for an entry that cannot be used: one per key.
std::string damagedWarning(const std::string &path, const std::string &problem) {
  return "cache entry " + path + " is damaged (" + problem + "); recompiling and replacing it";
}

std::string stuckDirectoryWarning(const std::string &path) {
  return "cache entry " + path +
         " is a directory that is not empty, so it cannot be replaced; this kernel is "
         "compiled without the cache until the directory is removed";
}

} // namespace

void printCacheWarning(const std::string &line) {
  std::string text = "mxforge: warning: " + line + "\n";
  std::fputs(text.c_str(), stderr);
}

DiskCache::DiskCache(std::string directory, CacheWarningHandler warn)
    : directory_(std::move(directory)), warn_(warn ? std::move(warn) : printCacheWarning) {}

std::string DiskCache::entryPath(const Sha256Digest &key) const {
  return directory_ + "/" + key.hex() + kCacheEntrySuffix;
}

void DiskCache::warnOnce(const std::string &what, const std::string &message) {
  {
    std::lock_guard<std::mutex> lock(warnedMutex_);
    if (!warned_.insert(what).second)
      return;
  }
  // Outside the lock: a handler may be slow, or log through something that
  // calls back into this cache.
  warn_(message);
}

Status DiskCache::checkDirectoryTrust() const {
  struct stat info;
  // Missing (or a path through a regular file): nothing to trust or to
  // distrust yet; loads miss and the first store creates it private.
  if (::stat(directory_.c_str(), &info) != 0 && (errno == ENOENT || errno == ENOTDIR))
    return Status::success();
  return checkTrusted(directory_);
}

void DiskCache::distrust(const std::string &reason) {
  std::string message;
  {
    std::lock_guard<std::mutex> lock(warnedMutex_);
    if (distrustReason_.empty())
      distrustReason_ = reason;
    message = "cache directory " + directory_ + " is not trusted (" + distrustReason_ +
              "); compiling without the cache (the directory and its entries must belong to "
              "this user and not be writable by group or others)";
  }
  trusted_.store(false);
  // Keys are 64 hex digits, so this tag cannot be one.
  warnOnce("<untrusted>", message);
}

CacheLoad DiskCache::load(const Sha256Digest &key, const std::string &canonicalSpec) {
  const std::string path = entryPath(key);
  CacheLoad result;
  // An untrusted cache is never read: whoever else can write it could have
  // planted an entry, digest and all.
  if (!trusted_.load())
    return result;
  if (Status directory = checkDirectoryTrust(); !directory.ok()) {
    distrust(directory.message());
    return result;
  }
  auto reject = [&](std::string problem, const std::string &warning) {
    warnOnce(key.hex(), warning);
    result.outcome = CacheLoadOutcome::Rejected;
    result.problem = std::move(problem);
    return result;
  };
  auto rejectDamaged = [&](std::string problem) {
    std::string warning = damagedWarning(path, problem);
    return reject(std::move(problem), warning);
  };

  // stat first: open(2) on a FIFO someone left in the entry's place would
  // block, and a directory needs handling of its own.
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    // ENOTDIR: the cache directory's path runs through a regular file. The
    // store will report that once; a load is just a miss.
    if (errno == ENOENT || errno == ENOTDIR)
      return result;
    return rejectDamaged(std::string("cannot stat it: ") + std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode)) {
    if (::rmdir(path.c_str()) == 0 || errno == ENOENT)
      return rejectDamaged("an empty directory was in its place; removed it");
    const std::string problem = "a directory that is not empty is in its place";
    return reject(problem, stuckDirectoryWarning(path));
  }
  if (!S_ISREG(info.st_mode))
    return rejectDamaged("not a regular file");
  if (std::string why = untrustedBecause(info); !why.empty()) {
    // Not ours to replace or delete: the whole cache goes off instead.
    distrust("cache entry " + path + " " + why);
    result.outcome = CacheLoadOutcome::Rejected;
    result.problem = why;
    return result;
  }

  Result<std::vector<uint8_t>> bytes = readFileBytes(path, kMaxCacheEntryBytes);
  if (!bytes.ok()) {
    // clear() or another process may have removed it since the stat.
    if (::stat(path.c_str(), &info) != 0 && errno == ENOENT)
      return result;
    return rejectDamaged(withoutPathPrefix(bytes.error(), path));
  }
  Result<CodeObject> object =
      decodeCacheEntry(bytes.value().data(), bytes.value().size(), key, canonicalSpec);
  if (!object.ok())
    return rejectDamaged(object.error());
  result.outcome = CacheLoadOutcome::Hit;
  result.object = std::move(object.value());
  return result;
}

Status DiskCache::disableStores(const std::string &reason) {
  std::string message;
  {
    std::lock_guard<std::mutex> lock(warnedMutex_);
    if (storeFailure_.empty())
      storeFailure_ = "cache directory " + directory_ + " is not writable (" + reason +
                      "); compiling without the cache";
    message = storeFailure_;
  }
  writable_.store(false);
  // Keys are 64 hex digits, so this tag cannot be one.
  warnOnce("<directory>", message);
  return Status::failure(message);
}

Status DiskCache::store(const Sha256Digest &key, const CodeObject &object) {
  if (!trusted_.load()) {
    std::lock_guard<std::mutex> lock(warnedMutex_);
    return Status::failure("cache directory " + directory_ + " is not trusted (" +
                           distrustReason_ + ")");
  }
  if (!writable_.load()) {
    std::lock_guard<std::mutex> lock(warnedMutex_);
    return Status::failure(storeFailure_);
  }
  Status directory = createPrivateDirectories(directory_);
  if (!directory.ok())
    return disableStores(directory.message());
  // It may have been there before, made by someone else.
  if (Status trust = checkDirectoryTrust(); !trust.ok()) {
    distrust(trust.message());
    return trust;
  }

  // rename(2) cannot replace a directory. An empty one (load() normally
  // removed it already) goes; a non-empty one blocks this key only, and is
  // no reason to give up on the whole directory.
  const std::string path = entryPath(key);
  struct stat info;
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode) && ::rmdir(path.c_str()) != 0 &&
      errno != ENOENT) {
    warnOnce(key.hex(), stuckDirectoryWarning(path));
    return Status::failure("cache entry " + path + " is a directory that is not empty");
  }

  // Staged, made 0600 (whatever the umask), then renamed into place.
  const std::vector<uint8_t> bytes = encodeCacheEntry(key, object);
  Status written = [&]() -> Status {
    Result<StagedFile> staged = StagedFile::stage(path, bytes.data(), bytes.size());
    if (!staged.ok())
      return staged.status();
    if (::chmod(staged.value().temporary().c_str(), kPrivateFileMode) != 0)
      return Status::failure(path + ": cannot set mode 0600: " + std::strerror(errno));
    return staged.value().commit();
  }();
  if (written.ok())
    return Status::success();
  // Only a directory that cannot be written at all turns stores off. Any
  // other failure (a full disk, a temporary removed by a concurrent `cache
  // clear`) is this entry's: one miss, one warning, and the next store tries.
  if (::access(directory_.c_str(), W_OK | X_OK) != 0)
    return disableStores(written.message());
  const std::string warning = "could not store cache entry " + path + " (" +
                              withoutPathPrefix(written.message(), path) +
                              "); this kernel stays uncached";
  warnOnce(key.hex(), warning);
  return Status::failure(warning);
}

} // namespace mxf
