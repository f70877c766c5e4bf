//===- fork_gate.h - Work that fork() must not cut in half -----*- C++ -*-===//
//
// A process that forks while another of its threads compiles gets a child in
// which that compile never ends: the child has only the forking thread, so a
// lock the compiling thread held (lld's, LLVM's, the kernel table's) stays
// locked forever, and a kernel-table slot that thread had claimed is never
// filled. Engines fork (Python's multiprocessing, worker pools), so this is
// not hypothetical: 2 of 120 forks during compiles deadlocked in lld's mutex.
//
// The gate makes fork() wait for such work instead. Work that must not be cut
// in half (a compile from claiming its table slot to filling it) holds a
// ForkGate::Scope; a pthread_atfork handler takes the gate exclusively before
// the fork, so that no thread is inside a scope when the process is copied,
// and releases it in the parent and in the child. The child then has no held
// lock and no half-filled slot: it can compile as any process can. A fork
// waits at most for the compiles already running (tens of milliseconds);
// scopes opened meanwhile wait for the fork.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SUPPORT_FORK_GATE_H
#define MXFORGE_SUPPORT_FORK_GATE_H

namespace mxf {

class ForkGate {
public:
  /// Holds the gate (shared) for its lifetime. Nested scopes on one thread
  /// hold it once: a compile inside a table lookup is one piece of work.
  class Scope {
  public:
    Scope();
    ~Scope();
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;
  };
};

} // namespace mxf

#endif // MXFORGE_SUPPORT_FORK_GATE_H
