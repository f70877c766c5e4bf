//===- npy_header.cpp - The dict literal inside a .npy header -------------===//
//
// A recursive-descent reader over a string_view: every access goes through
// the view's size, and nothing is allocated in proportion to the input
// except the shape, whose length is bounded by the header's.
//
//===----------------------------------------------------------------------===//

#include "arrays/npy_header.h"

#include <cstdint>
#include <optional>
#include <string_view>

// Dimensions are read as uint64_t and stored as size_t.
static_assert(sizeof(size_t) >= sizeof(uint64_t), "mxforge needs a 64-bit size_t");

namespace mxf::arrays {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isWordChar(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/// Header text quoted for a message: printable ASCII kept, the rest escaped,
/// cut so that a megabyte of junk cannot flood the terminal.
std::string quoteForMessage(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  std::string out = "'";
  for (char c : text.substr(0, kMaxShown)) {
    unsigned char byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7F && c != '\\' && c != '\'') {
      out += c;
    } else {
      out += "\\x";
      constexpr char kHexDigits[] = "0123456789abcdef";
      out += kHexDigits[byte >> 4];
      out += kHexDigits[byte & 15];
    }
  }
  out += text.size() > kMaxShown ? "'..." : "'";
  return out;
}

class DictReader {
public:
  explicit DictReader(std::string_view text) : rest_(text) {}

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
      if (rest_.empty())
        return fail("header ends after the key '" + *key +
                    "', before its value (the header is cut short)");
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
      if (!rest_.empty() && rest_.front() == '-')
        return fail("header 'shape' has a negative dimension");
      size_t digitCount = 0;
      while (digitCount < rest_.size() && isDigit(rest_[digitCount]))
        ++digitCount;
      std::string_view digits = rest_.substr(0, digitCount);
      if (digits.empty())
        return fail("header 'shape' is not a tuple of integers at " + quoteForMessage(rest_));
      uint64_t value = 0;
      for (char digit : digits) {
        const uint64_t d = uint64_t(digit - '0');
        if (value > (UINT64_MAX - d) / 10)
          return fail("header 'shape' dimension " + quoteForMessage(digits) + " is too large");
        value = value * 10 + d;
      }
      rest_.remove_prefix(digits.size());
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
    if (end == std::string_view::npos)
      return std::nullopt;
    std::string_view body = rest_.substr(1, end - 1);
    if (body.find('\\') != std::string_view::npos)
      return std::nullopt; // no numpy header string we accept needs escapes
    rest_.remove_prefix(end + 1);
    return std::string(body);
  }

  bool consumeWord(std::string_view word) {
    if (rest_.substr(0, word.size()) != word)
      return false;
    std::string_view after = rest_.substr(word.size());
    if (!after.empty() && isWordChar(after.front()))
      return false;
    rest_ = after;
    return true;
  }

  bool consume(char c) {
    if (rest_.empty() || rest_.front() != c)
      return false;
    rest_.remove_prefix(1);
    return true;
  }
  void skipSpace() {
    size_t start = rest_.find_first_not_of(" \t\r\n");
    rest_.remove_prefix(start == std::string_view::npos ? rest_.size() : start);
  }

  std::string_view rest_;
};

} // namespace

Result<NpyHeaderDict> parseNpyHeaderDict(std::string_view text) {
  return DictReader(text).read();
}

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

} // namespace mxf::arrays
