//===- inspect_command.h - mxforge inspect, callable from tests ---*- C++ -*-===//
//
// `mxforge inspect FILE...` reports gfx950 code objects and mxforge bundles
// (docs/inspect.md, docs/bundle.md). Declared here rather than in
// commands.h so that its tests can call it with plain options.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TOOLS_MXFORGE_INSPECT_COMMAND_H
#define MXFORGE_TOOLS_MXFORGE_INSPECT_COMMAND_H

#include "support/status.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxf::cli {

/// What `mxforge inspect` was asked to do.
struct InspectOptions {
  std::vector<std::string> files;
  /// --disasm: each kernel's disassembly too (for a bundle, implies kernels).
  bool disassembly = false;
  /// --kernels: for a bundle, the full report of every code object it holds,
  /// as for a code object file, after the bundle's table.
  bool kernels = false;
};

/// Reports every file in turn; returns an ExitCode (cli_support.h): 1 if any
/// file was unreadable or damaged, 2 if none was given.
int runInspect(const InspectOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err);

/// The report of one code object: "<title>: code object vN, target T, K
/// kernels", then each kernel (with its disassembly if asked). Fails, saying
/// why, if `hsaco` is not a valid gfx950 code object; prints nothing then.
/// The bundle report (inspect_bundle.cpp) prints each bundled object so.
Status printCodeObject(llvm::StringRef title, llvm::ArrayRef<uint8_t> hsaco, bool disassembly,
                       llvm::raw_ostream &out);

} // namespace mxf::cli

#endif // MXFORGE_TOOLS_MXFORGE_INSPECT_COMMAND_H
