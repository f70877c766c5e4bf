//===- file_trust.h - Files only their owner can change -----------*- C++ -*-===//
//
// The rule ssh and git apply to their directories, for the places mxforge
// takes code to run from (the kernel cache, MXFORGE_KERNEL_OVERRIDE_DIR): a
// directory or file is trusted only when the running user (geteuid) owns it
// and neither its group nor others may write it. Anyone else who can write
// there could plant a code object that we would launch as ours.
//
// Directories mxforge creates for such code are made private (0700) whatever
// the umask, so that the rule holds for what it creates itself.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SUPPORT_FILE_TRUST_H
#define MXFORGE_SUPPORT_FILE_TRUST_H

#include "support/status.h"

#include <string>
#include <sys/stat.h>

namespace mxf {

/// Why a file with this stat(2) result is not trusted, or "" when it is, as
/// a predicate that follows the path: "is owned by uid 65534 (mode 0644),
/// not by this user (uid 1000)" or "has mode 0777 (owned by this user, uid
/// 1000): writable by group and others".
std::string untrustedBecause(const struct stat &info);

/// stat(2)s `path` (following links, as opening it would) and applies the
/// rule: a failure is "<path> <why>" (or "<path>: cannot stat: ..."),
/// naming the owner and the mode.
Status checkTrusted(const std::string &path);

/// The mode of what mxforge creates for code it runs: directories 0700,
/// files 0600.
constexpr mode_t kPrivateDirectoryMode = 0700;
constexpr mode_t kPrivateFileMode = 0600;

/// Creates `path` and its missing parents with mode 0700 exactly (chmod
/// after mkdir: a umask such as 0277 would otherwise leave them unwritable).
/// Directories that exist are left as they are; fine if `path` exists as a
/// directory.
Status createPrivateDirectories(const std::string &path);

} // namespace mxf

#endif // MXFORGE_SUPPORT_FILE_TRUST_H
