//===- file_io.h - Whole-file reads and crash-safe atomic writes -*- C++ -*-===//
//
// POSIX only (the runtime links no LLVM). writeFileAtomically is the one way
// mxforge replaces a file another process may be reading (cache entries,
// bundles): the bytes go to a uniquely named temporary file in the same
// directory, are flushed with fsync, and the temporary is renamed over the
// destination. A reader therefore sees either the old file or the complete
// new one, never a torn write, and a failure leaves no temporary behind.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SUPPORT_FILE_IO_H
#define MXFORGE_SUPPORT_FILE_IO_H

#include "support/status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mxf {

/// A regular file open for reading; closes its descriptor when destroyed.
/// Every reader of a user's file starts here (whole-file reads below,
/// safetensors' mapping), so that none can block or read without bound.
class ReadOnlyFile {
public:
  /// Opens `path` only if it is a regular file (symlinks followed). A FIFO,
  /// device, socket or directory is refused by stat(2) before any open(2)
  /// (opening a FIFO for reading waits for a writer forever; opening a
  /// device can have effects), and the open itself does not block, so a
  /// FIFO swapped in between is refused too. The message starts with the
  /// path: "<path>: not a regular file" (and the kind).
  static Result<ReadOnlyFile> open(const std::string &path);
  ReadOnlyFile() = default;
  ReadOnlyFile(ReadOnlyFile &&other) noexcept;
  ReadOnlyFile &operator=(ReadOnlyFile &&other) noexcept;
  ReadOnlyFile(const ReadOnlyFile &) = delete;
  ReadOnlyFile &operator=(const ReadOnlyFile &) = delete;
  ~ReadOnlyFile();

  int fd() const { return fd_; }
  /// The size fstat(2) reported when it was opened.
  uint64_t size() const { return size_; }

private:
  int fd_ = -1;
  uint64_t size_ = 0;
};

/// Reads all of `path`. Fails (naming the path and the reason) when it is
/// missing, not a regular file, unreadable, or larger than `maxBytes`.
Result<std::vector<uint8_t>> readFileBytes(const std::string &path,
                                           uint64_t maxBytes = uint64_t(1) << 32);

/// Prefix of every temporary file writeFileAtomically creates: a dot (hidden
/// from `ls`), the destination's name, then this marker and a unique suffix.
/// `mxforge cache clear` and the tests look for it.
constexpr std::string_view kTempFileMarker = ".tmp-";

/// A complete file written (and fsync'ed) to a temporary next to its
/// destination, not yet in place: commit() renames it over the destination;
/// destroying it uncommitted removes the temporary. Commands that write
/// several files stage them all before committing any
/// (support/output_files.h).
class StagedFile {
public:
  /// Writes `size` bytes to `<dir>/.<name>.tmp-<pid>-<thread>-<counter>`;
  /// a name another process holds is skipped, never reused.
  static Result<StagedFile> stage(const std::string &path, const void *data, size_t size);
  StagedFile() = default;
  StagedFile(StagedFile &&other) noexcept;
  StagedFile &operator=(StagedFile &&other) noexcept;
  StagedFile(const StagedFile &) = delete;
  StagedFile &operator=(const StagedFile &) = delete;
  ~StagedFile();

  /// rename(2) over the destination; on failure the temporary is removed and
  /// the destination is as it was.
  Status commit();
  const std::string &destination() const { return destination_; }
  const std::string &temporary() const { return temporary_; }

private:
  void discard();
  std::string destination_;
  std::string temporary_; // empty once committed or discarded
  int registration_ = -1; // interrupt_cleanup.h: removed on SIGINT/SIGTERM too
};

/// Writes all `size` bytes to `fd` (retrying short writes and EINTR); a
/// failure is "<label>: write failed: <reason>".
Status writeAllBytes(int fd, const void *data, size_t size, const std::string &label);

/// Test seam (the full-disk cases without a full disk): after
/// `stagesBefore` more successful stages, the next one's write stops
/// half-way and fails with errno `error` (e.g. ENOSPC); -1 disarms it.
void injectWriteFailureForTesting(int stagesBefore, int error);

/// Writes `size` bytes to `path` atomically (see the file comment): stage,
/// then commit.
Status writeFileAtomically(const std::string &path, const void *data, size_t size);
inline Status writeFileAtomically(const std::string &path, const std::vector<uint8_t> &bytes) {
  return writeFileAtomically(path, bytes.data(), bytes.size());
}

/// Creates `path` and its missing parents (mode 0777 minus umask); fine if
/// it exists as a directory.
Status createDirectories(const std::string &path);
/// The same, but the directories it creates get exactly `mode`, whatever the
/// umask (support/file_trust.h's private directories); existing ones, and one
/// another process created first, keep theirs.
Status createDirectoriesWithMode(const std::string &path, unsigned mode);

/// True if `name` (a file name, not a path) is exactly the pattern of
/// StagedFile's temporaries: `.<name>.tmp-<digits>-<digits>-<digits>`.
bool isAtomicWriteTemporary(std::string_view name);

/// Removes the temporaries in `directory` that an interrupted mxforge process
/// left (a SIGKILL, a power cut: what no handler sees) and that provably are
/// such leftovers: named as StagedFile names them, regular files owned by this
/// user, staged by a process id that no longer exists. A name whose process
/// still runs (or whose id was reused) is left alone. Returns the names
/// removed.
std::vector<std::string> removeStaleTemporaries(const std::string &directory);

} // namespace mxf

#endif // MXFORGE_SUPPORT_FILE_IO_H
