//===- directory_lock.h - One writer per output folder -------*- C++ -*-===//
//
// Two `mxforge quantize` runs into one folder both passed the "exists?"
// check before either renamed its shards into place, both exited 0, and 3 of
// 30 rounds left a checkpoint mixing shards of both (issue 34). A writer of a
// multi-file output holds this lock on the folder from its first check to
// its last rename: a second writer fails at once with a message naming the
// folder, and after the first has finished it sees the first one's outputs
// (and needs --force to replace them).
//
// flock(2) on the directory itself: nothing is created in the user's folder,
// and the kernel drops the lock when the process dies, however it dies.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SUPPORT_DIRECTORY_LOCK_H
#define MXFORGE_SUPPORT_DIRECTORY_LOCK_H

#include "support/status.h"

#include <string>

namespace mxf {

class DirectoryLock {
public:
  /// Locks `directory` (which must exist) exclusively, without waiting; a
  /// folder another process holds is an error naming it and `purpose`.
  static Result<DirectoryLock> tryLock(const std::string &directory, const std::string &purpose);
  DirectoryLock() = default;
  DirectoryLock(DirectoryLock &&other) noexcept;
  DirectoryLock &operator=(DirectoryLock &&other) noexcept;
  DirectoryLock(const DirectoryLock &) = delete;
  DirectoryLock &operator=(const DirectoryLock &) = delete;
  ~DirectoryLock();

  bool held() const { return fd_ >= 0; }

private:
  int fd_ = -1;
};

} // namespace mxf

#endif // MXFORGE_SUPPORT_DIRECTORY_LOCK_H
