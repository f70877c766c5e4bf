//===- file_io.h - Whole-file reads and crash-safe atomic writes -*- C++ -*-===//
//
// POSIX only (the runtime links no LLVM). writeFileAtomically is the one way
// mxforge replaces a file another process may be reading (cache entries,
// bundles): the bytes go to a uniquely named temporary file in the same
// directory, are flushed with fsync, and the temporary is renamed over the
// destination. A reader therefore sees either the old file or the complete
// new one, never a torn write, and a failure leaves no temporary behind.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SUPPORT_FILE_IO_H
#define MXFORGE_SUPPORT_FILE_IO_H

#include "numerics/status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mxf {

/// Reads all of `path`. Fails (naming the path and the reason) when it is
/// missing, not a regular file, unreadable, or larger than `maxBytes`.
Result<std::vector<uint8_t>> readFileBytes(const std::string &path,
                                           uint64_t maxBytes = uint64_t(1) << 32);

/// Prefix of every temporary file writeFileAtomically creates: a dot (hidden
/// from `ls`), the destination's name, then this marker and a unique suffix.
/// `mxforge cache clear` and the tests look for it.
constexpr std::string_view kTempFileMarker = ".tmp-";

/// Writes `size` bytes to `path` atomically (see the file comment). The
/// temporary is `<dir>/.<name>.tmp-<pid>-<thread>-<counter>`.
Status writeFileAtomically(const std::string &path, const void *data, size_t size);
inline Status writeFileAtomically(const std::string &path, const std::vector<uint8_t> &bytes) {
  return writeFileAtomically(path, bytes.data(), bytes.size());
}

/// Creates `path` and its missing parents (mode 0777 minus umask); fine if
/// it exists as a directory.
Status createDirectories(const std::string &path);

/// True if `name` (a file name, not a path) is one of writeFileAtomically's
/// temporaries.
bool isAtomicWriteTemporary(std::string_view name);

} // namespace mxf

#endif // MXFORGE_SUPPORT_FILE_IO_H
