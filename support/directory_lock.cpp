//===- directory_lock.cpp - One writer per output folder ------------------===//

#include "support/directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mxf {

Result<DirectoryLock> DirectoryLock::tryLock(const std::string &directory,
                                             const std::string &purpose) {
  using R = Result<DirectoryLock>;
  DirectoryLock lock;
  lock.fd_ = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock.fd_ < 0)
    return R::failure(directory + ": cannot open the folder to lock it for " + purpose + ": " +
                      std::strerror(errno));
  int result;
  do
    result = ::flock(lock.fd_, LOCK_EX | LOCK_NB);
  while (result != 0 && errno == EINTR);
  if (result != 0) {
    if (errno == EWOULDBLOCK)
      return R::failure(directory + " is being written by another mxforge process (" + purpose +
                        "); wait for it to finish, or write elsewhere");
    return R::failure(directory + ": cannot lock the folder for " + purpose + ": " +
                      std::strerror(errno));
  }
  return lock;
}

DirectoryLock::DirectoryLock(DirectoryLock &&other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

DirectoryLock &DirectoryLock::operator=(DirectoryLock &&other) noexcept {
  if (this != &other) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0)
    ::close(fd_); // closing the last descriptor releases the flock
}

} // namespace mxf
