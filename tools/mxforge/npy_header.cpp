//===- npy_header.cpp - The dict literal inside a .npy header -------------===//
//
// A recursive-descent reader over a StringRef: every access is bounds-checked
// through StringRef, and nothing is allocated in proportion to the input
// except the shape, whose length is bounded by the header's.
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/npy_header.h"

#include "llvm/ADT/StringExtras.h"

#include <cstdint>
#include <optional>

// Dimensions are read as uint64_t and stored as size_t.
static_assert(sizeof(size_t) >= sizeof(uint64_t), "mxforge needs a 64-bit size_t");

namespace mxf::cli {
namespace {

/// Header text quoted for a message: printable ASCII kept, the rest escaped,
/// cut so that a megabyte of junk cannot flood the terminal.
std::string quoteForMessage(llvm::StringRef text) {
  constexpr size_t kMaxShown = 40;
  std::string out = "'";
  for (char c : text.take_front(kMaxShown)) {
    unsigned char byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7F && c != '\\' && c != '\'') {
      out += c;
    } else {
      out += "\\x";
      out += llvm::hexdigit(byte >> 4, /*LowerCase=*/true);
      out += llvm::hexdigit(byte & 15, /*LowerCase=*/true);
    }
  }
  out += text.size() > kMaxShown ? "'..." : "'";
  return out;
}

class DictReader {
public:
  explicit DictReader(llvm::StringRef text) : rest_(text) {}

  Result<NpyHeaderDict> read() {
    skipSpace();
    if (!consume('{'))
      return fail("header is not a dict (expected '{' at " + quoteForMessage(rest_) + ")");
    NpyHeaderDict dict;
    bool seenDescr = false, seenFortran = false, seenShape = false;
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::optional<std::string> key = readString();
      if (!key)
        return fail("header dict: expected a quoted key or '}' at " + quoteForMessage(rest_));
      skipSpace();
      if (!consume(':'))
        return fail("header dict: expected ':' after key '" + *key + "'");
      skipSpace();
      Status valueStatus = Status::success();
      if (*key == "descr") {
        valueStatus = readKeyOnce(seenDescr, *key, [&] { return readDescr(dict); });
      } else if (*key == "fortran_order") {
        valueStatus = readKeyOnce(seenFortran, *key, [&] { return readFortran(dict); });
      } else if (*key == "shape") {
        valueStatus = readKeyOnce(seenShape, *key, [&] { return readShape(dict); });
      } else {
        return fail("header dict has unexpected key " + quoteForMessage(*key) +
                    " (a .npy header holds exactly descr, fortran_order and shape)");
      }
      if (!valueStatus.ok())
        return valueStatus;
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return fail("header dict: expected ',' or '}' at " + quoteForMessage(rest_));
    }
    skipSpace();
    if (!rest_.empty())
      return fail("header has trailing text after the dict: " + quoteForMessage(rest_));
    if (!seenDescr)
      return fail("header dict has no 'descr' key");
    if (!seenFortran)
      return fail("header dict has no 'fortran_order' key");
    if (!seenShape)
      return fail("header dict has no 'shape' key");
    return dict;
  }

private:
  static Status fail(std::string message) { return Status::failure(std::move(message)); }

  template <typename ReadFn> Status readKeyOnce(bool &seen, const std::string &key, ReadFn fn) {
    if (seen)
      return fail("header dict repeats the key '" + key + "'");
    seen = true;
    return fn();
  }

  Status readDescr(NpyHeaderDict &dict) {
    std::optional<std::string> value = readString();
    if (!value)
      return fail("header 'descr' is not a string (structured dtypes are not supported) at " +
                  quoteForMessage(rest_));
    dict.descr = std::move(*value);
    return Status::success();
  }

  Status readFortran(NpyHeaderDict &dict) {
    if (consumeWord("True")) {
      dict.fortranOrder = true;
      return Status::success();
    }
    if (consumeWord("False")) {
      dict.fortranOrder = false;
      return Status::success();
    }
    return fail("header 'fortran_order' is not True or False at " + quoteForMessage(rest_));
  }

  Status readShape(NpyHeaderDict &dict) {
    if (!consume('('))
      return fail("header 'shape' is not a tuple at " + quoteForMessage(rest_));
    size_t count = 0;
    bool trailingComma = false;
    while (true) {
      skipSpace();
      if (consume(')'))
        break;
      if (rest_.starts_with("-"))
        return fail("header 'shape' has a negative dimension");
      llvm::StringRef digits = rest_.take_while(llvm::isDigit);
      if (digits.empty())
        return fail("header 'shape' is not a tuple of integers at " + quoteForMessage(rest_));
      uint64_t value = 0;
      if (digits.getAsInteger(10, value)) // true on overflow
        return fail("header 'shape' dimension " + quoteForMessage(digits) + " is too large");
      rest_ = rest_.drop_front(digits.size());
      consume('L'); // numpy under Python 2 wrote long integers as 3L
      dict.shape.push_back(static_cast<size_t>(value));
      ++count;
      skipSpace();
      trailingComma = consume(',');
      if (!trailingComma) {
        skipSpace();
        if (consume(')'))
          break;
        return fail("header 'shape': expected ',' or ')' at " + quoteForMessage(rest_));
      }
    }
    // In Python (3) is the integer 3, not a tuple; numpy rejects it too.
    if (count == 1 && !trailingComma)
      return fail("header 'shape' (" + std::to_string(dict.shape[0]) +
                  ") is an integer, not a tuple (a 1-d shape is written (n,))");
    return Status::success();
  }

  std::optional<std::string> readString() {
    if (rest_.empty() || (rest_.front() != '\'' && rest_.front() != '"'))
      return std::nullopt;
    char quote = rest_.front();
    size_t end = rest_.find(quote, 1);
    if (end == llvm::StringRef::npos)
      return std::nullopt;
    llvm::StringRef body = rest_.slice(1, end);
    if (body.contains('\\'))
      return std::nullopt; // no numpy header string we accept needs escapes
    rest_ = rest_.drop_front(end + 1);
    return body.str();
  }

  bool consumeWord(llvm::StringRef word) {
    if (!rest_.starts_with(word))
      return false;
    llvm::StringRef after = rest_.drop_front(word.size());
    if (!after.empty() && (llvm::isAlnum(after.front()) || after.front() == '_'))
      return false;
    rest_ = after;
    return true;
  }

  bool consume(char c) { return rest_.consume_front(llvm::StringRef(&c, 1)); }
  void skipSpace() { rest_ = rest_.ltrim(" \t\r\n"); }

  llvm::StringRef rest_;
};

} // namespace

Result<NpyHeaderDict> parseNpyHeaderDict(llvm::StringRef text) { return DictReader(text).read(); }

std::string formatNpyHeaderDict(const NpyHeaderDict &dict) {
  std::string out = "{'descr': '" + dict.descr + "', 'fortran_order': ";
  out += dict.fortranOrder ? "True" : "False";
  out += ", 'shape': (";
  for (size_t i = 0; i < dict.shape.size(); ++i) {
    if (i)
      out += ", ";
    out += std::to_string(dict.shape[i]);
  }
  if (dict.shape.size() == 1)
    out += ',';
  out += "), }";
  return out;
}

} // namespace mxf::cli
