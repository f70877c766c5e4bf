//===- object_pool.h - Costly compile state, kept warm between compiles -*- C++ -*-===//
//
// Internal to compiler/. A compile needs an MLIRContext with the pipeline's
// dialects loaded and an AMDGPU TargetMachine. Both are costly to make (the
// TargetMachine's register caches fill during the first code generation),
// and neither may be used by two threads at once. A pool lends each compile
// an object of its own and takes it back afterwards: concurrent compiles
// never share one, and a later compile, on whichever thread, starts from a
// warm one. A pool rather than one object per thread, because
// KernelTable::compileAll runs on threads that end with the call; what they
// warmed up stays for the next call.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_COMPILER_OBJECT_POOL_H
#define MXFORGE_COMPILER_OBJECT_POOL_H

#include <algorithm>
#include <iterator>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace mxf::compiler {

template <typename T>
class ObjectPool {
public:
  /// Takes an idle object that `usable` accepts, or returns null. Idle
  /// objects that `usable` rejects stay in the pool.
  template <typename Predicate>
  std::unique_ptr<T> take(Predicate usable) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = idle_.rbegin(); it != idle_.rend(); ++it)
      if (usable(**it)) {
        std::unique_ptr<T> object = std::move(*it);
        idle_.erase(std::next(it).base());
        return object;
      }
    return nullptr;
  }

  /// Returns `object` to the pool. The pool keeps at most as many idle
  /// objects as the machine has hardware threads (more compiles than that at
  /// once gain nothing); any beyond are destroyed, outside the lock.
  void give(std::unique_ptr<T> object) {
    if (!object)
      return;
    std::unique_ptr<T> surplus;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (idle_.size() < maxIdle())
        idle_.push_back(std::move(object));
      else
        surplus = std::move(object);
    }
  }

  /// Destroys the idle objects that `stale` selects (outside the lock).
  template <typename Predicate>
  void discard(Predicate stale) {
    std::vector<std::unique_ptr<T>> dropped;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (std::unique_ptr<T> &object : idle_)
        if (stale(*object))
          dropped.push_back(std::move(object));
      idle_.erase(std::remove(idle_.begin(), idle_.end(), nullptr), idle_.end());
    }
  }

private:
  static size_t maxIdle() { return std::max(2u, std::thread::hardware_concurrency()); }

  std::mutex mutex_;
  std::vector<std::unique_ptr<T>> idle_;
};

} // namespace mxf::compiler

#endif // MXFORGE_COMPILER_OBJECT_POOL_H
