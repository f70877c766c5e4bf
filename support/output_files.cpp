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
  Replace,    // a new or existing regular file: staged, then renamed
  Stream,     // an existing character device or FIFO: opened and written
  Descriptor, // "-" or a path to one of our descriptors: written through it
};

struct Destination {
  DestinationKind kind = DestinationKind::Replace;
  std::string writePath; // where to stage or open: a symlink resolved
  int descriptor = -1;   // Descriptor: ours, left open
  bool noFollow = false; // ExistingLink::Refuse: open with O_NOFOLLOW
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

bool allDigits(const std::string &text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

/// The process whose descriptor directory `directory` (a real path) is:
/// /proc/<pid>/fd or /proc/<pid>/task/<tid>/fd.
std::optional<pid_t> descriptorDirectoryOwner(const std::string &directory) {
  const std::string proc = "/proc/";
  if (directory.compare(0, proc.size(), proc) != 0)
    return std::nullopt;
  const size_t pidEnd = directory.find('/', proc.size());
  if (pidEnd == std::string::npos)
    return std::nullopt;
  const std::string pid = directory.substr(proc.size(), pidEnd - proc.size());
  const std::string rest = directory.substr(pidEnd);
  const std::string task = "/task/";
  const bool threadDirectory = rest.compare(0, task.size(), task) == 0 &&
                               rest.size() > task.size() + 3 &&
                               rest.compare(rest.size() - 3, 3, "/fd") == 0 &&
                               allDigits(rest.substr(task.size(), rest.size() - task.size() - 3));
  if (!allDigits(pid) || !(rest == "/fd" || threadDirectory))
    return std::nullopt;
  return pid_t(std::stol(pid));
}

/// A descriptor link a path reaches: /dev/stdout -> /proc/self/fd/1,
/// /dev/fd/N, /proc/self/fd/N. procfs's links name an open file, not a
/// path: following one to a path and renaming over it replaces the file a
/// shell redirected (`>> log`) instead of writing to the descriptor.
struct DescriptorLink {
  pid_t owner;
  int descriptor;
  std::string path; // the link itself, to open a foreign process's
};

std::optional<DescriptorLink> descriptorLinkBehind(const std::string &path) {
  std::string current = path;
  constexpr int kMaxLinks = 40; // as the kernel's ELOOP limit
  for (int hop = 0; hop < kMaxLinks; ++hop) {
    struct stat info;
    if (::lstat(current.c_str(), &info) != 0 || !S_ISLNK(info.st_mode))
      return std::nullopt;
    const size_t slash = current.rfind('/');
    const std::string directory = slash == std::string::npos ? "."
                                  : slash == 0               ? "/"
                                                             : current.substr(0, slash);
    const std::string name = slash == std::string::npos ? current : current.substr(slash + 1);
    if (std::optional<std::string> real = realPath(directory))
      if (std::optional<pid_t> owner = descriptorDirectoryOwner(*real); owner && allDigits(name))
        return DescriptorLink{*owner, std::atoi(name.c_str()), current};
    char target[PATH_MAX];
    const ssize_t length = ::readlink(current.c_str(), target, sizeof target - 1);
    if (length < 0)
      return std::nullopt;
    const std::string next(target, size_t(length));
    current = !next.empty() && next.front() == '/' ? next : directory + "/" + next;
  }
  return std::nullopt;
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

/// Our descriptor `fd` as a destination, if it can take bytes.
Result<Destination> descriptorDestination(const std::string &what, const std::string &path,
                                          int fd) {
  using R = Result<Destination>;
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return R::failure(what + ": " + path + ": descriptor " + std::to_string(fd) + ": " +
                      errnoText(errno));
  if (S_ISDIR(info.st_mode) || S_ISBLK(info.st_mode))
    return R::failure(what + ": " + path + " is " + kindName(info.st_mode) +
                      "; mxforge writes regular files, character devices and FIFOs");
  Destination out;
  out.kind = DestinationKind::Descriptor;
  out.writePath = path;
  out.descriptor = fd;
  out.exists = true;
  out.device = info.st_dev;
  out.inode = info.st_ino;
  return out;
}

Result<Destination> classify(const std::string &what, const std::string &path,
                             ExistingLink links) {
  using R = Result<Destination>;
  Destination out;
  out.writePath = path;
  if (path == "-") // standard output, as LLVM's tools spell it
    return descriptorDestination(what, path, STDOUT_FILENO);
  if (links == ExistingLink::Follow)
    if (std::optional<DescriptorLink> link = descriptorLinkBehind(path)) {
      if (link->owner == ::getpid())
        return descriptorDestination(what, path, link->descriptor);
      // Another process's descriptor: opened through its link (which
      // reopens that file) and written, never renamed over.
      struct stat target;
      if (::stat(path.c_str(), &target) != 0)
        return R::failure(what + ": " + path + ": " + errnoText(errno));
      out.kind = DestinationKind::Stream;
      out.writePath = link->path;
      out.exists = true;
      out.device = target.st_dev;
      out.inode = target.st_ino;
      return out;
    }
  struct stat link;
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno != ENOENT)
      return R::failure(what + ": " + path + ": " + errnoText(errno));
    out.identityPath = futureRealPath(path);
    return out;
  }
  if (S_ISLNK(link.st_mode) && links == ExistingLink::Refuse)
    return R::failure(what + ": " + path + " is a symlink; mxforge does not follow links "
                                           "inside a folder it writes into (remove the link)");
  out.noFollow = links == ExistingLink::Refuse;
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

Status writeStream(const OutputFile &output, const Destination &destination) {
  const std::string label = output.what + ": " + output.path;
  if (destination.kind == DestinationKind::Descriptor) // at its offset, in its mode
    return writeAllBytes(destination.descriptor, output.bytes.data(), output.bytes.size(), label);
  // O_NONBLOCK so that a FIFO nobody reads is an error (ENXIO), not a hang;
  // cleared once open, so that the writes themselves wait for the reader.
  // A regular file (behind another process's descriptor link) is truncated
  // and written in place.
  const int flags = O_WRONLY | O_NONBLOCK | O_CLOEXEC | (destination.noFollow ? O_NOFOLLOW : 0);
  int fd;
  do
    fd = ::open(destination.writePath.c_str(), flags);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return Status::failure(label + ": cannot open: " +
                           (errno == ENXIO ? std::string("a FIFO with no reader")
                                           : errnoText(errno)));
  const int openFlags = ::fcntl(fd, F_GETFL);
  if (openFlags >= 0)
    ::fcntl(fd, F_SETFL, openFlags & ~O_NONBLOCK);
  struct stat info;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && ::ftruncate(fd, 0) != 0) {
    const int error = errno;
    ::close(fd);
    return Status::failure(label + ": cannot truncate: " + errnoText(error));
  }
  Status written = writeAllBytes(fd, output.bytes.data(), output.bytes.size(), label);
  if (::close(fd) != 0 && written.ok())
    return Status::failure(label + ": close failed: " + errnoText(errno));
  return written;
}

bool isStream(const Destination &destination) {
  return destination.kind != DestinationKind::Replace;
}

Result<std::vector<Destination>> classifyAll(const std::vector<std::string> &paths,
                                             const std::vector<std::string> &whats,
                                             const std::vector<ExistingLink> &links,
                                             const std::vector<std::string> &inputs) {
  using R = Result<std::vector<Destination>>;
  std::vector<Destination> destinations;
  for (size_t i = 0; i < paths.size(); ++i) {
    Result<Destination> destination = classify(whats[i], paths[i], links[i]);
    if (!destination.ok())
      return destination.status();
    destinations.push_back(destination.value());
  }
  for (size_t i = 0; i < destinations.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      // Two outputs to one device (both to /dev/null) lose nothing.
      const bool bothStreams = isStream(destinations[i]) && isStream(destinations[j]);
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
  return classifyAll(outputs, outputWhat,
                     std::vector<ExistingLink>(outputs.size(), ExistingLink::Follow), inputs)
      .status();
}

Status writeOutputFiles(const std::vector<OutputFile> &outputs,
                        const std::vector<std::string> &inputs) {
  std::vector<std::string> paths, whats;
  std::vector<ExistingLink> links;
  for (const OutputFile &output : outputs) {
    paths.push_back(output.path);
    whats.push_back(output.what);
    links.push_back(output.links);
  }
  Result<std::vector<Destination>> destinations = classifyAll(paths, whats, links, inputs);
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
    if (isStream(destinations.value()[i]))
      if (Status written = writeStream(outputs[i], destinations.value()[i]); !written.ok())
        return written;
  // Renames within each destination's directory; only an I/O error of the
  // file system itself can stop one now.
  for (StagedFile &file : staged)
    if (Status committed = file.commit(); !committed.ok())
      return committed;
  return Status::success();
}

} // namespace mxf
