//===- msgpack_guard.h - Shape check of a msgpack blob -----------*- C++ -*-===//
//
// llvm::msgpack::Document::readFromBlob trusts the shape of what it reads: a
// map whose keys are themselves maps or arrays reaches llvm_unreachable in
// DocNode's ordering (undefined behaviour in a release libLLVM). The metadata
// note of a damaged code object can be anything, so it passes this check
// first: one top-level object, string map keys, bounded nesting, and no
// container that claims more elements than bytes remain.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_CODEOBJ_MSGPACK_GUARD_H
#define MXFORGE_CODEOBJ_MSGPACK_GUARD_H

#include "support/status.h"

#include "llvm/ADT/StringRef.h"

namespace mxf::codeobj {

/// Deeper than any code object metadata (amdhsa.kernels[i].args[j] is 5).
constexpr unsigned kMaxMsgpackDepth = 32;

/// Success if `blob` starts with one well-formed msgpack object that
/// Document::readFromBlob can read safely (trailing bytes are ignored, as
/// readFromBlob does).
Status checkMsgpackShape(llvm::StringRef blob);

} // namespace mxf::codeobj

#endif // MXFORGE_CODEOBJ_MSGPACK_GUARD_H
