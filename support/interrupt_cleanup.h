//===- interrupt_cleanup.h - Temporaries removed on SIGINT and SIGTERM -*- C++ -*-===//
//
// A command that stages large outputs (mxforge quantize stages every shard of
// a checkpoint before it renames any into place) leaves hidden full-size
// temporaries behind when Ctrl-C or SIGTERM ends it half-way: 18 of 25
// interrupted sharded runs left 285 MB (issue 34). StagedFile registers each
// temporary here while it exists; a command-line program calls
// removeTemporariesOnSignals() once, and a signal then unlinks every
// registered temporary before the process dies of that signal as it would
// have (exit status and the parent's view unchanged).
//
// The library never installs handlers itself: an engine (Python) owns its
// process's signals. Registration is always on and cheap; the handler uses
// only async-signal-safe calls (unlink, sigaction, raise) over a fixed table.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SUPPORT_INTERRUPT_CLEANUP_H
#define MXFORGE_SUPPORT_INTERRUPT_CLEANUP_H

#include <string>

namespace mxf {

/// Registers `path` for removal on a signal; returns the registration, or -1
/// when the table (kMaxRegisteredTemporaries paths of up to 4095 bytes) is
/// full or the path too long: such a temporary is only removed as before,
/// by its owner.
int registerTemporary(const std::string &path);
/// Ends a registration (the temporary was renamed into place or removed).
void unregisterTemporary(int registration);

constexpr int kMaxRegisteredTemporaries = 1024;

/// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove every
/// registered temporary, then re-raise the signal with its default action.
/// For command-line programs; call once, early in main.
void removeTemporariesOnSignals();

} // namespace mxf

#endif // MXFORGE_SUPPORT_INTERRUPT_CLEANUP_H
