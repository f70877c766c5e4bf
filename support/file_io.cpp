//===- file_io.cpp - Whole-file reads and crash-safe atomic writes --------===//

#include "support/file_io.h"

#include "support/interrupt_cleanup.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <functional>
#include <signal.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace mxf {
namespace {

std::string errnoText(int error) { return std::strerror(error); }

/// Closes a descriptor on every path out of a function.
class FileDescriptor {
public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;
  int get() const { return fd_; }
  /// Closes now and reports close's own error (which can carry a deferred
  /// write error on network file systems).
  int close() {
    int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

private:
  int fd_;
};

void splitPath(const std::string &path, std::string &directory, std::string &name) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    directory = ".";
    name = path;
  } else {
    directory = slash == 0 ? "/" : path.substr(0, slash);
    name = path.substr(slash + 1);
  }
}

} // namespace

Result<ReadOnlyFile> ReadOnlyFile::open(const std::string &path) {
  using R = Result<ReadOnlyFile>;
  // stat first: open(2) itself is what blocks on a FIFO (until a writer
  // comes) or acts on a device, so those never reach it.
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return R::failure(path + ": cannot open: " + errnoText(errno));
  if (!S_ISREG(info.st_mode))
    return R::failure(path + ": not a regular file");
  // O_NONBLOCK: a FIFO put in the file's place after the stat is still not
  // waited on; it is refused by the fstat below. On a regular file the flag
  // changes nothing.
  int fd;
  do
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return R::failure(path + ": cannot open: " + errnoText(errno));
  ReadOnlyFile file;
  file.fd_ = fd;
  if (::fstat(fd, &info) != 0)
    return R::failure(path + ": cannot stat: " + errnoText(errno));
  if (!S_ISREG(info.st_mode))
    return R::failure(path + ": not a regular file");
  file.size_ = uint64_t(info.st_size);
  return file;
}

ReadOnlyFile::ReadOnlyFile(ReadOnlyFile &&other) noexcept : fd_(other.fd_), size_(other.size_) {
  other.fd_ = -1;
}

ReadOnlyFile &ReadOnlyFile::operator=(ReadOnlyFile &&other) noexcept {
  if (this != &other) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = other.fd_;
    size_ = other.size_;
    other.fd_ = -1;
  }
  return *this;
}

ReadOnlyFile::~ReadOnlyFile() {
  if (fd_ >= 0)
    ::close(fd_);
}

Result<std::vector<uint8_t>> readFileBytes(const std::string &path, uint64_t maxBytes) {
  Result<ReadOnlyFile> opened = ReadOnlyFile::open(path);
  if (!opened.ok())
    return opened.status();
  const int fd = opened.value().fd();
  const uint64_t size = opened.value().size();
  if (size > maxBytes)
    return Result<std::vector<uint8_t>>::failure(
        path + ": " + std::to_string(size) + " bytes, more than the limit of " +
        std::to_string(maxBytes));
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t got = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return Result<std::vector<uint8_t>>::failure(path + ": read failed: " + errnoText(errno));
    if (got == 0) { // shrank while we read: keep what is there
      bytes.resize(done);
      break;
    }
    done += size_t(got);
  }
  // A file with more bytes than its size says (procfs and sysfs report 0)
  // cannot be read within a known bound: refuse it rather than call it empty.
  uint8_t probe;
  ssize_t more;
  do
    more = ::read(fd, &probe, 1);
  while (more < 0 && errno == EINTR);
  if (more > 0)
    return Result<std::vector<uint8_t>>::failure(
        path + ": holds more bytes than the " + std::to_string(size) +
        " its size reports (a /proc or /sys file?); mxforge reads regular files of known size");
  return bytes;
}

namespace {
// The test seam: stages left before the failing one (-1: off).
std::atomic<int> stagesBeforeInjectedFailure{-1};
std::atomic<int> injectedWriteError{0};
} // namespace

Status writeAllBytes(int fd, const void *data, size_t size, const std::string &label) {
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  size_t done = 0;
  while (done < size) {
    ssize_t wrote = ::write(fd, bytes + done, size - done);
    if (wrote < 0 && errno == EINTR)
      continue;
    if (wrote < 0)
      return Status::failure(label + ": write failed: " + errnoText(errno));
    done += size_t(wrote);
  }
  return Status::success();
}

void injectWriteFailureForTesting(int stagesBefore, int error) {
  injectedWriteError = error;
  stagesBeforeInjectedFailure = stagesBefore;
}

StagedFile::~StagedFile() { discard(); }

StagedFile::StagedFile(StagedFile &&other) noexcept
    : destination_(std::move(other.destination_)), temporary_(std::move(other.temporary_)),
      registration_(other.registration_) {
  other.temporary_.clear();
  other.registration_ = -1;
}

StagedFile &StagedFile::operator=(StagedFile &&other) noexcept {
  if (this != &other) {
    discard();
    destination_ = std::move(other.destination_);
    temporary_ = std::move(other.temporary_);
    registration_ = other.registration_;
    other.temporary_.clear();
    other.registration_ = -1;
  }
  return *this;
}

void StagedFile::discard() {
  if (!temporary_.empty())
    ::unlink(temporary_.c_str());
  temporary_.clear();
  unregisterTemporary(registration_);
  registration_ = -1;
}

Result<StagedFile> StagedFile::stage(const std::string &path, const void *data, size_t size) {
  using R = Result<StagedFile>;
  std::string directory, name;
  splitPath(path, directory, name);
  if (name.empty())
    return R::failure(path + ": not a file path");
  // The name is unique within this process (pid, thread, counter); another
  // process may still hold it (a reused pid, a leftover of a killed run), so
  // a taken name is retried with the next counter value, never reused.
  static std::atomic<uint64_t> counter{0};
  const std::string prefix = (directory == "/" ? "" : directory) + "/." + name +
                             std::string(kTempFileMarker) + std::to_string(::getpid()) + "-" +
                             std::to_string(std::hash<std::thread::id>()(
                                                std::this_thread::get_id()) %
                                            1000000007) +
                             "-";
  constexpr int kAttempts = 64;
  std::string temporary;
  int fd = -1, registration = -1;
  for (int attempt = 0; attempt < kAttempts && fd < 0; ++attempt) {
    temporary = prefix + std::to_string(counter.fetch_add(1));
    // Registered before it exists: a SIGINT or SIGTERM between the open and
    // the registration would otherwise leave it (interrupt_cleanup.h).
    registration = registerTemporary(temporary);
    do
      fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
      const int error = errno;
      unregisterTemporary(registration);
      errno = error;
      if (error != EEXIST)
        break;
    }
  }
  if (fd < 0)
    return R::failure(path + ": cannot create a temporary file in " + directory + ": " +
                      errnoText(errno));
  StagedFile staged;
  staged.destination_ = path;
  staged.temporary_ = temporary;       // from here on the destructor removes it
  staged.registration_ = registration; // and a SIGINT or SIGTERM does
  FileDescriptor file(fd);
  auto fail = [&](const std::string &what, int error) {
    return R::failure(path + ": " + what + ": " + errnoText(error));
  };
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  // The test seam: this stage's write stops half-way, as on a full disk.
  int before = stagesBeforeInjectedFailure.load();
  while (before >= 0 && !stagesBeforeInjectedFailure.compare_exchange_weak(before, before - 1)) {
  }
  if (before == 0) {
    if (::write(fd, bytes, size / 2) < 0)
      return fail("write failed", errno);
    return fail("write failed", injectedWriteError.load());
  }
  if (Status written = writeAllBytes(fd, bytes, size, path); !written.ok())
    return written;
  if (::fsync(fd) != 0)
    return fail("fsync failed", errno);
  if (file.close() != 0)
    return fail("close failed", errno);
  return staged;
}

Status StagedFile::commit() {
  if (temporary_.empty())
    return Status::failure(destination_ + ": nothing staged to put in place");
  if (::rename(temporary_.c_str(), destination_.c_str()) != 0) {
    const int error = errno;
    discard();
    return Status::failure(destination_ + ": cannot rename the temporary file into place: " +
                           errnoText(error));
  }
  temporary_.clear();
  unregisterTemporary(registration_);
  registration_ = -1;
  return Status::success();
}

Status writeFileAtomically(const std::string &path, const void *data, size_t size) {
  Result<StagedFile> staged = StagedFile::stage(path, data, size);
  if (!staged.ok())
    return staged.status();
  return staged.value().commit();
}

namespace {

/// createDirectories and createDirectoriesWithMode: `exactMode` < 0 leaves
/// the umask's mode.
Status createDirectoryChain(const std::string &path, int exactMode) {
  if (path.empty())
    return Status::failure("an empty directory path");
  struct stat info;
  if (::stat(path.c_str(), &info) == 0)
    return S_ISDIR(info.st_mode) ? Status::success()
                                 : Status::failure(path + ": exists and is not a directory");
  size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    Status parent = createDirectoryChain(path.substr(0, slash), exactMode);
    if (!parent.ok())
      return parent;
  }
  const mode_t mode = exactMode < 0 ? 0777 : mode_t(exactMode);
  if (::mkdir(path.c_str(), mode) != 0) {
    if (errno != EEXIST)
      return Status::failure(path + ": cannot create the directory: " + errnoText(errno));
    // Another process made it first: its mode is that process's business
    // (a user of exact modes checks it before use).
  } else if (exactMode >= 0 && ::chmod(path.c_str(), mode) != 0) {
    char octal[16]; // "%04o" of an unsigned: up to 11 digits
    std::snprintf(octal, sizeof octal, "%04o", unsigned(mode));
    return Status::failure(path + ": cannot set mode " + octal + ": " + errnoText(errno));
  }
  if (::stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return Status::failure(path + ": exists and is not a directory");
  return Status::success();
}

} // namespace

Status createDirectories(const std::string &path) { return createDirectoryChain(path, -1); }

Status createDirectoriesWithMode(const std::string &path, unsigned mode) {
  return createDirectoryChain(path, int(mode));
}

bool isAtomicWriteTemporary(std::string_view name) {
  // Exactly "." + a name + ".tmp-" + three dash-separated decimal numbers:
  // a user's ".vimrc.tmp-1" is not ours.
  if (name.size() < 2 || name[0] != '.')
    return false;
  const size_t marker = name.rfind(kTempFileMarker);
  if (marker == std::string_view::npos || marker < 2)
    return false;
  std::string_view suffix = name.substr(marker + kTempFileMarker.size());
  for (int field = 0; field < 3; ++field) {
    size_t digits = 0;
    while (digits < suffix.size() && suffix[digits] >= '0' && suffix[digits] <= '9')
      ++digits;
    if (digits == 0)
      return false;
    suffix.remove_prefix(digits);
    if (field < 2) {
      if (suffix.empty() || suffix.front() != '-')
        return false;
      suffix.remove_prefix(1);
    }
  }
  return suffix.empty();
}

std::vector<std::string> removeStaleTemporaries(const std::string &directory) {
  std::vector<std::string> removed;
  DIR *dir = ::opendir(directory.c_str());
  if (!dir)
    return removed;
  while (const dirent *entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (!isAtomicWriteTemporary(name))
      continue;
    // The first number after the marker is the staging process's id.
    const size_t at = name.rfind(kTempFileMarker) + kTempFileMarker.size();
    const long long pid = std::strtoll(name.c_str() + at, nullptr, 10);
    if (pid <= 0 || pid > INT32_MAX)
      continue;
    if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH)
      continue; // alive, or not ours to ask about: perhaps still writing
    const std::string path = (directory == "/" ? "" : directory) + "/" + name;
    struct stat info;
    if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != ::geteuid())
      continue;
    if (::unlink(path.c_str()) == 0)
      removed.push_back(name);
  }
  ::closedir(dir);
  return removed;
}

} // namespace mxf
