//===- isolated.cpp - One check in a child process, with a time limit -----===//

#include "bench/mutation/isolated.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace mxf::mutation {
namespace {

constexpr size_t kMaxDetail = 4096;

void writeAll(int fd, const void *data, size_t size) {
  const char *p = static_cast<const char *>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n <= 0)
      return;
    p += n;
    size -= size_t(n);
  }
}

/// The child's message: outcome, facts, detail length, detail.
std::string encode(const CheckResult &result) {
  std::string out;
  auto put = [&](const void *data, size_t size) {
    out.append(static_cast<const char *>(data), size);
  };
  const uint8_t outcome = uint8_t(result.verdict.outcome);
  put(&outcome, 1);
  put(&result.facts, sizeof result.facts);
  const std::string detail = result.verdict.detail.substr(0, kMaxDetail);
  const uint32_t length = uint32_t(detail.size());
  put(&length, 4);
  out += detail;
  return out;
}

bool decode(const std::string &bytes, CheckResult &result) {
  const size_t header = 1 + sizeof(RunFacts) + 4;
  if (bytes.size() < header)
    return false;
  result.verdict.outcome = Outcome(uint8_t(bytes[0]));
  std::memcpy(&result.facts, bytes.data() + 1, sizeof(RunFacts));
  uint32_t length;
  std::memcpy(&length, bytes.data() + 1 + sizeof(RunFacts), 4);
  if (bytes.size() != header + length)
    return false;
  result.verdict.detail = bytes.substr(header);
  return true;
}

} // namespace

CheckResult runIsolated(const std::function<CheckResult()> &work, double timeoutSeconds) {
  std::fflush(stdout);
  std::fflush(stderr);
  int fds[2];
  if (::pipe(fds) != 0)
    return {{Outcome::LaunchError, "pipe failed"}, {}};
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return {{Outcome::LaunchError, "fork failed"}, {}};
  }
  if (pid == 0) {
    ::close(fds[0]);
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0)
      ::dup2(null, STDOUT_FILENO);
    const std::string message = encode(work());
    writeAll(fds[1], message.data(), message.size());
    ::close(fds[1]);
    std::fflush(stdout);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string bytes;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(timeoutSeconds * 1000));
  bool timedOut = false;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timedOut = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, int(left)) <= 0)
      continue; // timeout (checked above) or EINTR
    char buffer[4096];
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n <= 0)
      break; // EOF: the child is done (or died)
    bytes.append(buffer, size_t(n));
  }
  ::close(fds[0]);
  if (timedOut)
    ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (timedOut)
    return {{Outcome::Timeout, "the check ran past " + std::to_string(int(timeoutSeconds)) + " s"},
            {}};
  CheckResult result;
  if (WIFSIGNALED(status))
    return {{Outcome::Crash, std::string("the check died of signal ") +
                                 std::to_string(WTERMSIG(status)) + " (" +
                                 strsignal(WTERMSIG(status)) + ")"},
            {}};
  if (!decode(bytes, result))
    return {{Outcome::Crash, "the check exited without a verdict (status " +
                                 std::to_string(WEXITSTATUS(status)) + ")"},
            {}};
  return result;
}

} // namespace mxf::mutation
