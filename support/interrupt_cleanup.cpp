//===- interrupt_cleanup.cpp - Temporaries removed on SIGINT and SIGTERM --===//

#include "support/interrupt_cleanup.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <iterator>

namespace mxf {
namespace {

/// One registered path. A slot is claimed (Free -> Writing), filled, then
/// published (Live); the handler reads only Live slots. Fixed storage: the
/// handler may not allocate, and untouched slots cost no memory.
enum SlotState : int { Free = 0, Writing = 1, Live = 2 };
constexpr size_t kPathBytes = 4096;
struct Slot {
  std::atomic<int> state{Free};
  char path[kPathBytes];
};
Slot slots[kMaxRegisteredTemporaries];

/// The handlers ours replaced (LLVM's, which prints nothing for these and
/// dies, or the default), by signal number.
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction previousActions[std::size(kSignals)];

void removeAndDie(int signal) {
  for (Slot &slot : slots)
    if (slot.state.load(std::memory_order_acquire) == Live)
      ::unlink(slot.path);
  // The handler we replaced gets the signal next (it ends the process, as
  // the default action does): delivered when this handler returns.
  for (size_t i = 0; i < std::size(kSignals); ++i)
    if (kSignals[i] == signal)
      ::sigaction(signal, &previousActions[i], nullptr);
  ::raise(signal);
}

} // namespace

int registerTemporary(const std::string &path) {
  if (path.size() >= kPathBytes)
    return -1;
  for (int i = 0; i < kMaxRegisteredTemporaries; ++i) {
    int expected = Free;
    if (!slots[i].state.compare_exchange_strong(expected, Writing, std::memory_order_acquire))
      continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].state.store(Live, std::memory_order_release);
    return i;
  }
  return -1;
}

void unregisterTemporary(int registration) {
  if (registration >= 0 && registration < kMaxRegisteredTemporaries)
    slots[registration].state.store(Free, std::memory_order_release);
}

void removeTemporariesOnSignals() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = removeAndDie;
  sigemptyset(&action.sa_mask);
  // Each handler blocks the others: one cleanup, then the first signal's death.
  for (int signal : kSignals)
    sigaddset(&action.sa_mask, signal);
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    // A signal the parent ignores (nohup, a shell's background job) stays
    // ignored: the user asked for it to not end us.
    if (::sigaction(kSignals[i], nullptr, &previousActions[i]) != 0 ||
        previousActions[i].sa_handler == SIG_IGN)
      continue;
    ::sigaction(kSignals[i], &action, nullptr);
  }
}

} // namespace mxf
