//===- printable.h - Text from files, safe to print ---------------*- C++ -*-===//
//
// Strings read from a file (bundle manifests, cache entries) go into messages
// and reports with every byte outside printable ASCII escaped (`\x1b`), and
// cut at 160 characters, so that a damaged or hostile file can neither flood
// a terminal nor move its cursor, and an error stays one line.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SUPPORT_PRINTABLE_H
#define MXFORGE_SUPPORT_PRINTABLE_H

#include <string>
#include <string_view>

namespace mxf {

std::string printable(std::string_view text);

/// True if `text` is well-formed UTF-8 (RFC 3629: no overlong forms,
/// surrogates or code points past U+10FFFF). JSON is UTF-8 by definition;
/// a name read from a header that is not would make files others refuse.
bool isValidUtf8(std::string_view text);

/// `text` as one file name: every byte but [A-Za-z0-9._-] becomes '_' (IR
/// dump names, extracted kernels' files).
std::string fileNameSafe(std::string_view text);

} // namespace mxf

#endif // MXFORGE_SUPPORT_PRINTABLE_H
