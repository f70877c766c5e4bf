//===- output_files.cpp - Every file a command writes, all or none --------===//

#include "support/output_files.h"

#include "support/file_io.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace mxf {
namespace {

enum class DestinationKind {
  Replace, // a new or existing regular file: staged, then renamed
  Stream,  // an existing character device or FIFO, or "-": written directly
};

struct Destination {
  DestinationKind kind = DestinationKind::Replace;
  std::string writePath; // where to stage or open: a symlink resolved
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  std::string identityPath; // the real path, for files that do not exist yet
};

std::string errnoText(int error) { return std::strerror(error); }

std::optional<std::string> realPath(const std::string &path) {
  char resolved[PATH_MAX];
  if (!::realpath(path.c_str(), resolved))
    return std::nullopt;
  return std::string(resolved);
}

/// The real path a file that does not exist yet will have: its directory
/// resolved, plus its name.
std::string futureRealPath(const std::string &path) {
  const size_t slash = path.rfind('/');
  const std::string directory = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  std::optional<std::string> resolved = realPath(directory.empty() ? "/" : directory);
  return (resolved ? *resolved : directory) + "/" + name;
}

const char *kindName(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file, character device or FIFO";
}

Result<Destination> classify(const std::string &what, const std::string &path) {
  using R = Result<Destination>;
  Destination out;
  out.writePath = path;
  if (path == "-") { // standard output, as LLVM's tools spell it
    out.kind = DestinationKind::Stream;
    return out;
  }
  struct stat link;
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno != ENOENT)
      return R::failure(what + ": " + path + ": " + errnoText(errno));
    out.identityPath = futureRealPath(path);
    return out;
  }
  struct stat target = link;
  if (S_ISLNK(link.st_mode) && ::stat(path.c_str(), &target) != 0)
    return R::failure(what + ": " + path + " is a symlink to nothing (" + errnoText(errno) +
                      "); mxforge follows symlinks to the file they name");
  out.exists = true;
  out.device = target.st_dev;
  out.inode = target.st_ino;
  if (S_ISCHR(target.st_mode) || S_ISFIFO(target.st_mode)) {
    out.kind = DestinationKind::Stream; // opened through the link as given
    return out;
  }
  if (!S_ISREG(target.st_mode))
    return R::failure(what + ": " + path + " is " + kindName(target.st_mode) +
                      "; mxforge writes regular files, character devices and FIFOs");
  if (S_ISLNK(link.st_mode)) {
    std::optional<std::string> resolved = realPath(path);
    if (!resolved)
      return R::failure(what + ": cannot resolve the symlink " + path + ": " + errnoText(errno));
    out.writePath = *resolved; // replace the file, keep the link
  }
  return out;
}

bool sameFile(const Destination &a, const Destination &b) {
  if (a.exists && b.exists)
    return a.device == b.device && a.inode == b.inode;
  return !a.exists && !b.exists && !a.identityPath.empty() && a.identityPath == b.identityPath;
}

Status writeStream(const OutputFile &output) {
  const std::string label = output.what + ": " + output.path;
  if (output.path == "-")
    return writeAllBytes(STDOUT_FILENO, output.bytes.data(), output.bytes.size(), label);
  // O_NONBLOCK so that a FIFO nobody reads is an error (ENXIO), not a hang;
  // cleared once open, so that the writes themselves wait for the reader.
  int fd;
  do
    fd = ::open(output.path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return Status::failure(label + ": cannot open: " +
                           (errno == ENXIO ? std::string("a FIFO with no reader")
                                           : errnoText(errno)));
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0)
    ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  Status written = writeAllBytes(fd, output.bytes.data(), output.bytes.size(), label);
  if (::close(fd) != 0 && written.ok())
    return Status::failure(label + ": close failed: " + errnoText(errno));
  return written;
}

Result<std::vector<Destination>> classifyAll(const std::vector<std::string> &paths,
                                             const std::vector<std::string> &whats,
                                             const std::vector<std::string> &inputs) {
  using R = Result<std::vector<Destination>>;
  std::vector<Destination> destinations;
  for (size_t i = 0; i < paths.size(); ++i) {
    Result<Destination> destination = classify(whats[i], paths[i]);
    if (!destination.ok())
      return destination.status();
    destinations.push_back(destination.value());
  }
  for (size_t i = 0; i < destinations.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      // Two outputs to one device (both to /dev/null) lose nothing.
      const bool bothStreams = destinations[i].kind == DestinationKind::Stream &&
                               destinations[j].kind == DestinationKind::Stream;
      if (!bothStreams && sameFile(destinations[i], destinations[j]))
        return R::failure(whats[i] + " (" + paths[i] + ") and " + whats[j] + " (" + paths[j] +
                          ") are the same file; one would be lost");
    }
  for (const std::string &input : inputs) {
    struct stat info;
    if (::stat(input.c_str(), &info) != 0)
      continue;
    for (size_t i = 0; i < destinations.size(); ++i)
      if (destinations[i].exists && destinations[i].device == info.st_dev &&
          destinations[i].inode == info.st_ino && S_ISREG(info.st_mode))
        return R::failure(whats[i] + " (" + paths[i] + ") is the input " + input +
                          "; writing it would destroy what the command reads");
  }
  return destinations;
}

} // namespace

bool namesStandardOutput(const std::string &path) {
  if (path == "-")
    return true;
  struct stat named, standardOutput;
  return ::stat(path.c_str(), &named) == 0 && ::fstat(STDOUT_FILENO, &standardOutput) == 0 &&
         named.st_dev == standardOutput.st_dev && named.st_ino == standardOutput.st_ino;
}

Status checkDistinctOutputs(const std::vector<std::string> &outputs,
                            const std::vector<std::string> &outputWhat,
                            const std::vector<std::string> &inputs) {
  return classifyAll(outputs, outputWhat, inputs).status();
}

Status writeOutputFiles(const std::vector<OutputFile> &outputs,
                        const std::vector<std::string> &inputs) {
  std::vector<std::string> paths, whats;
  for (const OutputFile &output : outputs) {
    paths.push_back(output.path);
    whats.push_back(output.what);
  }
  Result<std::vector<Destination>> destinations = classifyAll(paths, whats, inputs);
  if (!destinations.ok())
    return destinations.status();
  // Stage every regular file first: a failure here (a full disk, a missing
  // directory) leaves every destination as it was.
  std::vector<StagedFile> staged;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (destinations.value()[i].kind != DestinationKind::Replace)
      continue;
    Result<StagedFile> file = StagedFile::stage(destinations.value()[i].writePath,
                                                outputs[i].bytes.data(), outputs[i].bytes.size());
    if (!file.ok())
      return Status::failure(outputs[i].what + ": " + file.error());
    staged.push_back(std::move(file.value()));
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    if (destinations.value()[i].kind == DestinationKind::Stream)
      if (Status written = writeStream(outputs[i]); !written.ok())
        return written;
  // Renames within each destination's directory; only an I/O error of the
  // file system itself can stop one now.
  for (StagedFile &file : staged)
    if (Status committed = file.commit(); !committed.ok())
      return committed;
  return Status::success();
}

} // namespace mxf
