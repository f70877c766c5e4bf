//===- cli_support.cpp - What every mxforge subcommand shares -------------===//

#include "tools/mxforge/cli_support.h"

#include <cerrno>
#include <cstdlib>

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace mxf::cli {

llvm::cl::OptionCategory &mxforgeCategory() {
  static llvm::cl::OptionCategory category("mxforge options");
  return category;
}

int reportError(llvm::raw_ostream &err, const llvm::Twine &message, int code) {
  err << "error: " << message << "\n";
  err.flush();
  return code;
}

Result<uint64_t> parseU64Flag(llvm::StringRef flag, llvm::StringRef value) {
  uint64_t parsed = 0;
  // Decimal, or hex after 0x; not getAsInteger's radix 0, which would read
  // a leading 0 as octal.
  llvm::StringRef digits = value;
  const unsigned radix = digits.consume_front_insensitive("0x") ? 16 : 10;
  if (digits.empty() || digits.getAsInteger(radix, parsed))
    return Result<uint64_t>::failure("--" + flag.str() + " '" + value.str() +
                                     "' is not an unsigned 64-bit integer");
  return parsed;
}

Result<int> parseIntFlag(llvm::StringRef flag, llvm::StringRef value) {
  int parsed = 0;
  if (value.getAsInteger(10, parsed)) {
    // Digits that do not fit are a range problem, not a spelling one.
    long long wide = 0;
    llvm::StringRef digits = value;
    digits.consume_front("-");
    const bool allDigits = !digits.empty() && digits.find_first_not_of("0123456789") ==
                                                  llvm::StringRef::npos;
    if (allDigits && (value.getAsInteger(10, wide) || wide > INT32_MAX || wide < INT32_MIN))
      return Result<int>::failure("--" + flag.str() + " '" + value.str() +
                                  "' is out of range (at most 2147483647)");
    return Result<int>::failure("--" + flag.str() + " '" + value.str() +
                                "' is not a decimal integer");
  }
  return parsed;
}

Result<LaunchValues> parseValueFlags(const std::vector<std::string> &values) {
  LaunchValues parsed;
  for (const std::string &text : values) {
    const size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0)
      return Result<LaunchValues>::failure("--value '" + text + "' is not NAME=VALUE (eps=1e-6)");
    const std::string name = text.substr(0, equals), number = text.substr(equals + 1);
    char *end = nullptr;
    errno = 0;
    const double value = std::strtod(number.c_str(), &end);
    if (number.empty() || *end != '\0' || errno == ERANGE)
      return Result<LaunchValues>::failure("--value " + name + ": '" + number +
                                           "' is not a decimal number");
    if (!parsed.emplace(name, value).second)
      return Result<LaunchValues>::failure("--value " + name + " is given twice");
  }
  return parsed;
}

/// NAME=FILE values of a repeatable flag; names are unique.
Result<std::vector<NamedFile>> parseNamedFiles(llvm::StringRef flag,
                                               const std::vector<std::string> &values) {
  std::vector<NamedFile> files;
  for (const std::string &value : values) {
    auto [name, path] = llvm::StringRef(value).split('=');
    auto isNameChar = [](char c) { return llvm::isLower(c) || llvm::isDigit(c) || c == '_'; };
    if (name.empty() || path.empty() || !llvm::all_of(name, isNameChar))
      return Result<std::vector<NamedFile>>::failure(
          "--" + flag.str() + " '" + value +
          "': expected NAME=FILE with a lowercase array name, "
          "e.g. --" +
          flag.str() + " x=x.npy");
    for (const NamedFile &earlier : files)
      if (earlier.name == name)
        return Result<std::vector<NamedFile>>::failure("--" + flag.str() + " names array '" +
                                                       name.str() + "' twice");
    files.push_back({name.str(), path.str()});
  }
  return files;
}


} // namespace mxf::cli
