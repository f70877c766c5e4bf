//===- cli_support.h - What every mxforge subcommand shares -------*- C++ -*-===//
//
// Exit codes, the option category that --help shows, error reporting and the
// parsing of flag values (kept here rather than in llvm::cl parsers so that
// every message has the same `error: ` form; see main.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TOOLS_MXFORGE_CLI_SUPPORT_H
#define MXFORGE_TOOLS_MXFORGE_CLI_SUPPORT_H

#include "abi/operands.h"
#include "support/status.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxf::cli {

/// 0: success. 1: the command ran and failed (invalid spec, unreadable or
/// mismatched input, a failed check). 2: the command line itself is wrong
/// (unknown subcommand or option, missing or malformed flag value).
enum ExitCode : int { kExitSuccess = 0, kExitFailure = 1, kExitUsage = 2 };

/// The category of all mxforge options; --help hides every other option
/// (libLLVM registers hundreds).
llvm::cl::OptionCategory &mxforgeCategory();

/// Prints "error: <message>" on `err` and returns `code`.
int reportError(llvm::raw_ostream &err, const llvm::Twine &message, int code = kExitFailure);

/// A decimal (or 0x-prefixed hex) unsigned 64-bit value of flag `flag`.
Result<uint64_t> parseU64Flag(llvm::StringRef flag, llvm::StringRef value);
/// A decimal int value of flag `flag`.
Result<int> parseIntFlag(llvm::StringRef flag, llvm::StringRef value);

/// One NAME=FILE value of --in / --out.
struct NamedFile {
  std::string name;
  std::string path;
};

/// NAME=FILE values of a repeatable flag; names are lowercase and unique.
Result<std::vector<NamedFile>> parseNamedFiles(llvm::StringRef flag,
                                               const std::vector<std::string> &values);

/// NAME=VALUE values of --value (an op's by-value values, eps=1e-5): names
/// unique, values decimal numbers; which names the op takes is the
/// launch's check (checkLaunchValues).
Result<LaunchValues> parseValueFlags(const std::vector<std::string> &values);

} // namespace mxf::cli

#endif // MXFORGE_TOOLS_MXFORGE_CLI_SUPPORT_H
