//===- cache_directory.cpp - Listing, verifying and clearing a cache ------===//
//
// What `mxforge cache` does to a whole directory. None of it takes a lock:
// an entry stored meanwhile may or may not be seen, and removing an entry a
// compile is about to read only costs that compile a miss.
//
//===----------------------------------------------------------------------===//

#include "runtime/cache/disk_cache.h"

#include "runtime/cache/cache_entry.h"
#include "support/file_io.h"
#include "support/file_trust.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <ctime>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mxf {
namespace {

enum class FileKind { Entry, Temporary, Foreign };

/// Exactly 64 lowercase hex digits and ".mxfc": the names store() writes.
bool isEntryName(std::string_view name) {
  const std::string_view suffix = kCacheEntrySuffix;
  if (name.size() != 64 + suffix.size() || name.substr(64) != suffix)
    return false;
  for (char c : name.substr(0, 64))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

/// Entries and the temporaries of entries (".<entry>.tmp-<n>-<n>-<n>") are
/// ours; anything else in the directory is foreign: listed as such, never
/// deleted.
FileKind classify(const std::string &name) {
  if (isAtomicWriteTemporary(name)) {
    const size_t marker = name.rfind(kTempFileMarker);
    return isEntryName(std::string_view(name).substr(1, marker - 1)) ? FileKind::Temporary
                                                                      : FileKind::Foreign;
  }
  return isEntryName(name) ? FileKind::Entry : FileKind::Foreign;
}

/// A temporary younger than this may belong to a store in flight in another
/// process; `clear` leaves it (a store takes milliseconds).
constexpr int64_t kTemporaryGraceSeconds = 300;

/// The names in `directory` (without "." and ".."), sorted; a directory that
/// does not exist has none.
Result<std::vector<std::string>> directoryNames(const std::string &directory) {
  DIR *handle = ::opendir(directory.c_str());
  if (!handle) {
    if (errno == ENOENT)
      return std::vector<std::string>{};
    return Result<std::vector<std::string>>::failure("cannot read the cache directory " +
                                                     directory + ": " + std::strerror(errno));
  }
  std::vector<std::string> names;
  while (dirent *entry = ::readdir(handle)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..")
      names.push_back(std::move(name));
  }
  ::closedir(handle);
  std::sort(names.begin(), names.end());
  return names;
}

/// Reads and checks one entry file; `info.problem` says what is wrong.
CacheEntryInfo inspectEntry(const std::string &directory, const std::string &name) {
  CacheEntryInfo info;
  info.fileName = name;
  const std::string path = directory + "/" + name;
  struct stat status;
  // lstat: an entry name that is a symlink is reported, never followed.
  if (::lstat(path.c_str(), &status) != 0) {
    info.problem = std::string("cannot stat it: ") + std::strerror(errno);
    return info;
  }
  info.bytes = uint64_t(status.st_size);
  info.modifiedUnixSeconds = int64_t(status.st_mtime);
  if (S_ISLNK(status.st_mode)) {
    info.bytes = 0;
    info.problem = "a symlink, not an entry file";
    return info;
  }
  if (S_ISDIR(status.st_mode)) {
    info.bytes = 0;
    info.problem = "a directory, not an entry file";
    return info;
  }
  if (!S_ISREG(status.st_mode)) {
    info.problem = "not a regular file";
    return info;
  }
  const std::string stem = name.substr(0, name.size() - std::strlen(kCacheEntrySuffix));
  std::optional<Sha256Digest> key = Sha256Digest::fromHex(stem);
  if (!key) {
    info.problem = "the file name is not a cache key (64 hex digits)";
    return info;
  }
  // Decoded even when untrusted (reading runs nothing), so `ls` shows what
  // it claims to be; who may change it is the problem verify reports first.
  const std::string untrusted = untrustedBecause(status);
  Result<std::vector<uint8_t>> bytes = readFileBytes(path, kMaxCacheEntryBytes);
  Result<CodeObject> object =
      bytes.ok() ? decodeCacheEntry(bytes.value().data(), bytes.value().size(), *key,
                                    /*expectedSpec=*/"")
                 : Result<CodeObject>::failure(bytes.error());
  if (object.ok()) {
    info.spec = object.value().spec;
    info.kernel = object.value().kernel.name;
  } else {
    info.problem = object.error();
  }
  if (!untrusted.empty()) {
    info.problem = untrusted;
    info.untrusted = true;
  }
  return info;
}

/// True if this user owns `path` (not following a link): what clear and
/// removeDamaged may delete. Another user's file is theirs, wherever it is.
bool ownedByThisUser(const std::string &path) {
  struct stat status;
  return ::lstat(path.c_str(), &status) == 0 && status.st_uid == ::geteuid();
}

/// Removes a file or an empty directory; one that is gone already counts.
Status removePath(const std::string &path, bool directory) {
  int failed = directory ? ::rmdir(path.c_str()) : ::unlink(path.c_str());
  if (failed != 0 && errno != ENOENT)
    return Status::failure("cannot remove " + path + ": " + std::strerror(errno));
  return Status::success();
}

} // namespace

Result<std::vector<CacheEntryInfo>> DiskCache::list(bool verify) const {
  Result<std::vector<std::string>> names = directoryNames(directory_);
  if (!names.ok())
    return names.status();
  std::vector<CacheEntryInfo> entries;
  for (const std::string &name : names.value()) {
    if (classify(name) != FileKind::Entry)
      continue;
    // Decoded either way: `ls` shows the spec. Only verify() reports damage.
    CacheEntryInfo info = inspectEntry(directory_, name);
    if (!verify)
      info.problem.clear();
    entries.push_back(std::move(info));
  }
  return entries;
}

Result<CacheStats> DiskCache::stats() const {
  Result<std::vector<std::string>> names = directoryNames(directory_);
  if (!names.ok())
    return names.status();
  CacheStats stats;
  for (const std::string &name : names.value()) {
    switch (classify(name)) {
    case FileKind::Entry: {
      ++stats.entries;
      struct stat status;
      if (::lstat((directory_ + "/" + name).c_str(), &status) == 0 && S_ISREG(status.st_mode))
        stats.totalBytes += uint64_t(status.st_size);
      break;
    }
    case FileKind::Temporary:
      ++stats.temporaries;
      break;
    case FileKind::Foreign:
      ++stats.foreignFiles;
      break;
    }
  }
  return stats;
}

Result<uint64_t> DiskCache::clear() const {
  Result<std::vector<std::string>> names = directoryNames(directory_);
  if (!names.ok())
    return names.status();
  uint64_t removed = 0;
  const int64_t now = int64_t(::time(nullptr));
  for (const std::string &name : names.value()) {
    const FileKind kind = classify(name);
    if (kind == FileKind::Foreign)
      continue;
    const std::string path = directory_ + "/" + name;
    struct stat status;
    // A directory named like an entry is no file of ours to delete.
    if (::lstat(path.c_str(), &status) != 0 || S_ISDIR(status.st_mode) ||
        status.st_uid != ::geteuid())
      continue;
    // Another process may be writing it right now: removing it would fail
    // that store (a miss there, not a reason to lose anything, but noise).
    if (kind == FileKind::Temporary && now - int64_t(status.st_mtime) < kTemporaryGraceSeconds)
      continue;
    Status gone = removePath(path, /*directory=*/false);
    if (!gone.ok())
      return gone;
    ++removed;
  }
  return removed;
}

Result<std::vector<CacheEntryInfo>> DiskCache::removeDamaged() const {
  Result<std::vector<CacheEntryInfo>> entries = list(/*verify=*/true);
  if (!entries.ok())
    return entries;
  std::vector<CacheEntryInfo> damaged;
  for (CacheEntryInfo &info : entries.value()) {
    if (info.problem.empty())
      continue;
    const std::string path = directory_ + "/" + info.fileName;
    struct stat status;
    bool isDirectory = ::lstat(path.c_str(), &status) == 0 && S_ISDIR(status.st_mode);
    // A directory that is not empty stays (removed = false): deleting a tree
    // we did not create is the user's call.
    info.removed = ownedByThisUser(path) && removePath(path, isDirectory).ok();
    damaged.push_back(std::move(info));
  }
  return damaged;
}

} // namespace mxf
