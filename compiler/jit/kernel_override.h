//===- kernel_override.h - MXFORGE_KERNEL_OVERRIDE_DIR ------------*- C++ -*-===//
//
// A hand-edited code object in place of the one mxforge made, as Triton's
// TRITON_KERNEL_OVERRIDE does: `<dir>/<kernel name>.hsaco`. The override must
// be gfx950 code with the same kernel name, the same kernel arguments
// (names, kinds, offsets, sizes, kernarg segment) and the same embedded
// launch record as the kernel it replaces; otherwise it is refused with a
// message naming the file and the difference, and nothing is launched.
// Both the directory and the file must belong to the running user and not be
// writable by group or others (support/file_trust.h): code someone else could
// have put there is refused, naming the path, its owner and its mode.
// The kernel it replaces is still produced first (compiled, or read from the
// disk cache): that is what the override is checked against. Overrides
// never reach the cache or a bundle.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_COMPILER_JIT_KERNEL_OVERRIDE_H
#define MXFORGE_COMPILER_JIT_KERNEL_OVERRIDE_H

#include "abi/code_object.h"
#include "support/status.h"

#include <string>

namespace mxf {

/// The override file of `produced` in `directory`, if there is one: its code
/// object (checked as above) with `produced`'s launch record and spec.
/// Without a file, `produced` unchanged. `warn` receives one line per
/// kernel that was overridden.
Result<CodeObject> applyKernelOverride(const std::string &directory, CodeObject produced,
                                       void (*warn)(const std::string &line));

} // namespace mxf

#endif // MXFORGE_COMPILER_JIT_KERNEL_OVERRIDE_H
