//===- cache_command.cpp - mxforge cache: stat, ls, clear, verify ---------===//
//
// Looks after the persistent kernel cache (docs/cache.md) through the same
// DiskCache the compiler uses. The directory is --dir, else the one the
// environment names (MXFORGE_CACHE, MXFORGE_CACHE_DIR, XDG_CACHE_HOME,
// HOME). With the cache disabled, stat and ls say so and succeed (there is
// nothing to show), while clear and verify fail: they were asked to act on a
// directory and none is named.
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/commands.h"

#include "runtime/cache/disk_cache.h"
#include "tools/mxforge/cli_support.h"
#include "tools/mxforge/text_table.h"

#include <ctime>
#include <sys/stat.h>

namespace mxf::cli {
namespace {

namespace cl = llvm::cl;

cl::SubCommand cacheCommand("cache", "Show, verify or clear the persistent kernel cache "
                                     "(stat | ls | clear | verify)");

cl::opt<std::string> actionArg(cl::Positional, cl::sub(cacheCommand),
                               cl::desc("<stat|ls|clear|verify>"), cl::cat(mxforgeCategory()));
cl::opt<std::string> dirFlag("dir", cl::sub(cacheCommand), cl::value_desc("DIR"),
                             cl::desc("The cache directory (default: from MXFORGE_CACHE_DIR, "
                                      "XDG_CACHE_HOME or HOME)"),
                             cl::cat(mxforgeCategory()));
cl::opt<bool> removeFlag("remove", cl::sub(cacheCommand),
                         cl::desc("verify: delete the damaged entries"),
                         cl::cat(mxforgeCategory()));

int runSelected(llvm::raw_ostream &out, llvm::raw_ostream &err) {
  CacheOptions options;
  options.action = actionArg;
  if (dirFlag.getNumOccurrences())
    options.dir = dirFlag.getValue();
  options.remove = removeFlag;
  return runCache(options, out, err);
}

bool directoryExists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::string utcTime(int64_t unixSeconds) {
  std::time_t time = std::time_t(unixSeconds);
  std::tm parts{};
  char text[32];
  if (!::gmtime_r(&time, &parts) ||
      std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &parts) == 0)
    return "?";
  return text;
}

int runStat(const DiskCache &cache, const CacheLocation &location, llvm::raw_ostream &out,
            llvm::raw_ostream &err) {
  Result<CacheStats> stats = cache.stats();
  if (!stats.ok())
    return reportError(err, stats.error());
  out << "directory:     " << cache.directory()
      << (directoryExists(cache.directory()) ? "" : " (not created yet)") << "\n"
      << "source:        " << location.source << "\n"
      << "entries:       " << stats.value().entries << "\n"
      << "total bytes:   " << stats.value().totalBytes << "\n"
      << "temporaries:   " << stats.value().temporaries << "\n"
      << "foreign files: " << stats.value().foreignFiles << "\n";
  return kExitSuccess;
}

int runList(const DiskCache &cache, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  Result<std::vector<CacheEntryInfo>> entries = cache.list(/*verify=*/false);
  if (!entries.ok())
    return reportError(err, entries.error());
  if (entries.value().empty()) {
    out << "no entries in " << cache.directory() << "\n";
    return kExitSuccess;
  }
  TextTable table;
  table.addColumn("key", TextTable::Align::Left);
  table.addColumn("bytes");
  table.addColumn("modified (UTC)", TextTable::Align::Left);
  table.addColumn("spec", TextTable::Align::Left);
  for (const CacheEntryInfo &info : entries.value())
    table.addRow({info.fileName.substr(0, 16), std::to_string(info.bytes),
                  utcTime(info.modifiedUnixSeconds),
                  info.spec.empty() ? "? (unreadable: mxforge cache verify says why)" : info.spec});
  out << table.render();
  return kExitSuccess;
}

int runVerify(const DiskCache &cache, bool remove, llvm::raw_ostream &out,
              llvm::raw_ostream &err) {
  Result<std::vector<CacheEntryInfo>> entries = cache.list(/*verify=*/true);
  if (!entries.ok())
    return reportError(err, entries.error());
  const size_t checked = entries.value().size();
  std::vector<CacheEntryInfo> damaged;
  if (remove) {
    // Verifies again, then removes; an entry stored meanwhile is judged as
    // it is now.
    Result<std::vector<CacheEntryInfo>> removed = cache.removeDamaged();
    if (!removed.ok())
      return reportError(err, removed.error());
    damaged = std::move(removed.value());
  } else {
    for (CacheEntryInfo &info : entries.value())
      if (!info.problem.empty())
        damaged.push_back(std::move(info));
  }
  size_t removed = 0, untrusted = 0;
  for (const CacheEntryInfo &info : damaged) {
    removed += info.removed;
    untrusted += info.untrusted;
    out << (info.removed  ? "removed: "
            : remove      ? "could not remove: "
            : info.untrusted ? "untrusted: "
                             : "damaged: ")
        << info.fileName << ": " << info.problem << "\n";
  }
  // The directory is judged by the rule compiles apply (docs/cache.md): an
  // untrusted one is never read, however healthy its entries.
  Status directoryTrust = cache.checkDirectoryTrust();
  if (!directoryTrust.ok())
    out << "untrusted directory: " << directoryTrust.message() << "\n";
  out << "verified " << checked << (checked == 1 ? " entry" : " entries") << " in "
      << cache.directory() << ": " << damaged.size() - untrusted << " damaged";
  if (untrusted)
    out << ", " << untrusted << " untrusted";
  if (remove)
    out << ", " << removed << " removed";
  out << "\n";
  out.flush();
  if (damaged.size() > removed) {
    if (remove)
      return reportError(err, untrusted ? "some damaged or untrusted entries could not be "
                                          "removed (another user's files are never removed)"
                                        : "some damaged entries could not be removed");
    return reportError(err, untrusted ? "the cache holds damaged or untrusted entries; mxforge "
                                        "cache verify --remove deletes those this user owns"
                                      : "the cache holds damaged entries; mxforge cache verify "
                                        "--remove deletes them");
  }
  if (!directoryTrust.ok())
    return reportError(err, "the cache directory is not trusted, so compiles do not use it: "
                            "it must belong to this user and not be writable by group or "
                            "others (chmod go-w, or chown)");
  return kExitSuccess;
}

int runClear(const DiskCache &cache, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  Result<uint64_t> removed = cache.clear();
  if (!removed.ok())
    return reportError(err, removed.error());
  out << "removed " << removed.value() << (removed.value() == 1 ? " file" : " files")
      << " from " << cache.directory() << "\n";
  return kExitSuccess;
}

} // namespace

Subcommand cacheSubcommand() { return {&cacheCommand, runSelected}; }

int runCache(const CacheOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  const std::string &action = options.action;
  if (action.empty())
    return reportError(err, "mxforge cache needs an action: stat, ls, clear or verify", kExitUsage);
  if (action != "stat" && action != "ls" && action != "clear" && action != "verify")
    return reportError(err, "unknown cache action '" + action +
                                "'; use stat, ls, clear or verify",
                       kExitUsage);
  if (options.remove && action != "verify")
    return reportError(err, "--remove goes with mxforge cache verify", kExitUsage);
  if (options.dir && options.dir->empty())
    return reportError(err, "--dir needs a directory name", kExitUsage);

  CacheLocation location;
  if (options.dir) {
    location.enabled = true;
    location.directory = *options.dir;
    location.source = "--dir";
  } else {
    location = cacheLocationFromEnvironment();
  }
  if (!location.enabled) {
    if (action == "stat" || action == "ls") {
      out << "cache: disabled (" << location.source << ")\n";
      return kExitSuccess;
    }
    return reportError(err, "the cache is disabled (" + location.source +
                                "), so there is no directory to " + action +
                                "; name one with --dir DIR");
  }

  // The CLI reports problems itself; a DiskCache that only lists never warns.
  DiskCache cache(location.directory, [](const std::string &) {});
  int status;
  if (action == "stat")
    status = runStat(cache, location, out, err);
  else if (action == "ls")
    status = runList(cache, out, err);
  else if (action == "verify")
    status = runVerify(cache, options.remove, out, err);
  else
    status = runClear(cache, out, err);
  out.flush();
  return status;
}

} // namespace mxf::cli
