//===- file_io.cpp - Whole-file reads and crash-safe atomic writes --------===//

#include "support/file_io.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <functional>
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

Result<std::vector<uint8_t>> readFileBytes(const std::string &path, uint64_t maxBytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
  // forever; it is refused below as not a regular file, and on a regular
  // file the flag changes nothing.
  int fd;
  do
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return Result<std::vector<uint8_t>>::failure(path + ": cannot open: " + errnoText(errno));
  FileDescriptor file(fd);
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return Result<std::vector<uint8_t>>::failure(path + ": cannot stat: " + errnoText(errno));
  if (!S_ISREG(info.st_mode))
    return Result<std::vector<uint8_t>>::failure(path + ": not a regular file");
  if (uint64_t(info.st_size) > maxBytes)
    return Result<std::vector<uint8_t>>::failure(
        path + ": " + std::to_string(info.st_size) + " bytes, more than the limit of " +
        std::to_string(maxBytes));
  std::vector<uint8_t> bytes(size_t(info.st_size));
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
  return bytes;
}

Status writeFileAtomically(const std::string &path, const void *data, size_t size) {
  std::string directory, name;
  splitPath(path, directory, name);
  if (name.empty())
    return Status::failure(path + ": not a file path");
  static std::atomic<uint64_t> counter{0};
  std::string temporary = (directory == "/" ? "" : directory) + "/." + name +
                          std::string(kTempFileMarker) + std::to_string(::getpid()) + "-" +
                          std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id()) %
                                         1000000007) +
                          "-" + std::to_string(counter.fetch_add(1));
  int fd;
  do
    fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return Status::failure(path + ": cannot create a temporary file in " + directory + ": " +
                           errnoText(errno));
  FileDescriptor file(fd);
  auto fail = [&](const std::string &what, int error) {
    ::unlink(temporary.c_str());
    return Status::failure(path + ": " + what + ": " + errnoText(error));
  };
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  size_t done = 0;
  while (done < size) {
    ssize_t wrote = ::write(fd, bytes + done, size - done);
    if (wrote < 0 && errno == EINTR)
      continue;
    if (wrote < 0)
      return fail("write failed", errno);
    done += size_t(wrote);
  }
  if (::fsync(fd) != 0)
    return fail("fsync failed", errno);
  if (file.close() != 0)
    return fail("close failed", errno);
  if (::rename(temporary.c_str(), path.c_str()) != 0)
    return fail("cannot rename the temporary file into place", errno);
  return Status::success();
}

Status createDirectories(const std::string &path) {
  if (path.empty())
    return Status::failure("an empty directory path");
  struct stat info;
  if (::stat(path.c_str(), &info) == 0)
    return S_ISDIR(info.st_mode) ? Status::success()
                                 : Status::failure(path + ": exists and is not a directory");
  size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    Status parent = createDirectories(path.substr(0, slash));
    if (!parent.ok())
      return parent;
  }
  if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST)
    return Status::failure(path + ": cannot create the directory: " + errnoText(errno));
  if (::stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return Status::failure(path + ": exists and is not a directory");
  return Status::success();
}

bool isAtomicWriteTemporary(std::string_view name) {
  return !name.empty() && name[0] == '.' && name.find(kTempFileMarker) != std::string_view::npos;
}

} // namespace mxf
