//===- inspect_bundle.h - mxforge inspect of AOT bundles ----------*- C++ -*-===//
//
// The bundle kind of `mxforge inspect` (inspect_command.cpp's kFileKinds):
// the header, a table of the kernels from the manifest, and with --kernels
// (or --disasm) the full report of each bundled code object. docs/bundle.md
// shows the output.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TOOLS_MXFORGE_INSPECT_BUNDLE_H
#define MXFORGE_TOOLS_MXFORGE_INSPECT_BUNDLE_H

#include "tools/mxforge/inspect_command.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace mxf::cli {

/// True if `bytes` start with the bundle magic "MXFBUNDL", or are a
/// non-empty prefix of it (a bundle cut short, which the loader then calls
/// truncated).
bool isBundle(llvm::ArrayRef<uint8_t> bytes);

/// Loads and verifies the bundle at `path` (runtime/bundle.h) and reports
/// it. A bundle that does not load is one `error: <path>: <reason>` line
/// and exit 1; so is each bundled code object that is not a valid gfx950
/// code object (the others are still reported).
int inspectBundle(llvm::StringRef path, llvm::ArrayRef<uint8_t> bytes,
                  const InspectOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err);

} // namespace mxf::cli

#endif // MXFORGE_TOOLS_MXFORGE_INSPECT_BUNDLE_H
