//===- fork_gate.cpp - Work that fork() must not cut in half --------------===//

#include "support/fork_gate.h"

#include <pthread.h>

#include <condition_variable>
#include <mutex>
#include <new>

namespace mxf {
namespace {

/// A writer-preferring gate: once a fork waits, new scopes wait too, so a
/// busy compile pool cannot starve the fork (glibc's rwlocks prefer readers).
struct Gate {
  std::mutex mutex;
  std::condition_variable changed;
  int scopes = 0;       // scopes held, across threads
  bool forking = false; // a fork waits for scopes to end
};

/// Storage rather than a static object: the child gets a fresh gate built in
/// place (its other threads, which may have waited on the old one, are gone),
/// and nothing is destroyed at exit, when forks may still follow.
alignas(Gate) unsigned char storage[sizeof(Gate)];
Gate *gate = nullptr;

/// Scopes this thread holds; only the outermost enters the gate.
thread_local int depth = 0;
/// Whether this thread took the gate for a fork (it does not when it forks
/// from inside a scope of its own, which would wait for itself).
thread_local bool heldForFork = false;

void beforeFork() {
  if (depth > 0)
    return;
  std::unique_lock<std::mutex> lock(gate->mutex);
  gate->forking = true;
  gate->changed.wait(lock, [] { return gate->scopes == 0; });
  lock.release(); // held across fork(): no thread is inside the gate's mutex
  heldForFork = true;
}

void afterForkInParent() {
  if (!heldForFork)
    return;
  heldForFork = false;
  gate->forking = false;
  gate->mutex.unlock();
  gate->changed.notify_all();
}

void afterForkInChild() {
  if (!heldForFork)
    return;
  heldForFork = false;
  gate = new (storage) Gate(); // the old one's waiters do not exist here
}

void initialize() {
  static std::once_flag once;
  std::call_once(once, [] {
    gate = new (storage) Gate();
    pthread_atfork(beforeFork, afterForkInParent, afterForkInChild);
  });
}

} // namespace

ForkGate::Scope::Scope() {
  initialize();
  if (depth++ > 0)
    return;
  std::unique_lock<std::mutex> lock(gate->mutex);
  gate->changed.wait(lock, [] { return !gate->forking; });
  ++gate->scopes;
}

ForkGate::Scope::~Scope() {
  if (--depth > 0)
    return;
  std::lock_guard<std::mutex> lock(gate->mutex);
  if (--gate->scopes == 0)
    gate->changed.notify_all();
}

} // namespace mxf
