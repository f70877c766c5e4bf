//===- json.cpp - The JSON that safetensors headers need ------------------===//

#include "support/json.h"

#include <cstdio>
#include <unordered_set>

namespace mxf::json {
namespace {

class Parser {
public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<Value> parseDocument() {
    Value value;
    skipSpace();
    if (!parseValue(value, 0))
      return Result<Value>::failure(error_);
    skipSpace();
    if (pos_ != text_.size())
      return Result<Value>::failure(at("unexpected text after the JSON value"));
    return value;
  }

private:
  std::string at(const std::string &what) const {
    return what + " at byte " + std::to_string(pos_);
  }
  bool fail(const std::string &what) {
    if (error_.empty())
      error_ = at(what);
    return false;
  }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return fail("invalid literal");
    pos_ += word.size();
    return true;
  }

  bool parseValue(Value &out, int depth) {
    if (depth > kMaxJsonDepth)
      return fail("JSON nested deeper than " + std::to_string(kMaxJsonDepth));
    if (pos_ >= text_.size())
      return fail("unexpected end of JSON");
    switch (text_[pos_]) {
    case '{':
      return parseObject(out, depth);
    case '[':
      return parseArray(out, depth);
    case '"':
      out.kind = Value::Kind::String;
      return parseString(out.text);
    case 't':
      out.kind = Value::Kind::Bool;
      out.boolean = true;
      return literal("true");
    case 'f':
      out.kind = Value::Kind::Bool;
      return literal("false");
    case 'n':
      out.kind = Value::Kind::Null;
      return literal("null");
    default:
      return parseNumber(out);
    }
  }

  /// Whether `key` is already a member of `object`. A safetensors header is
  /// one object with a member per tensor (hundreds of thousands), so past a
  /// few members the keys go into a hash set: comparing each new key with
  /// every earlier one made such a header quadratic (200,000 keys: 150 s).
  static bool isDuplicateKey(const Value &object, const std::string &key,
                             std::unordered_set<std::string> &keys) {
    constexpr size_t kLinearScanMembers = 8;
    if (object.members.size() < kLinearScanMembers)
      return object.find(key) != nullptr;
    if (keys.empty())
      for (const auto &member : object.members)
        keys.insert(member.first);
    return !keys.insert(key).second;
  }

  bool parseObject(Value &out, int depth) {
    out.kind = Value::Kind::Object;
    ++pos_; // '{'
    skipSpace();
    if (consume('}'))
      return true;
    std::unordered_set<std::string> keys; // see isDuplicateKey
    for (;;) {
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"')
        return fail("expected a string key");
      std::string key;
      if (!parseString(key))
        return false;
      if (isDuplicateKey(out, key, keys))
        return fail("duplicate key \"" + key + "\"");
      skipSpace();
      if (!consume(':'))
        return fail("expected ':'");
      skipSpace();
      Value member;
      if (!parseValue(member, depth + 1))
        return false;
      out.members.emplace_back(std::move(key), std::move(member));
      skipSpace();
      if (consume('}'))
        return true;
      if (!consume(','))
        return fail("expected ',' or '}'");
    }
  }

  bool parseArray(Value &out, int depth) {
    out.kind = Value::Kind::Array;
    ++pos_; // '['
    skipSpace();
    if (consume(']'))
      return true;
    for (;;) {
      skipSpace();
      Value item;
      if (!parseValue(item, depth + 1))
        return false;
      out.items.push_back(std::move(item));
      skipSpace();
      if (consume(']'))
        return true;
      if (!consume(','))
        return fail("expected ',' or ']'");
    }
  }

  bool hex4(uint32_t &out) {
    if (pos_ + 4 > text_.size())
      return fail("truncated \\u escape");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      int digit = (c >= '0' && c <= '9') ? c - '0'
                  : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                  : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                           : -1;
      if (digit < 0)
        return fail("invalid \\u escape");
      out = out * 16 + uint32_t(digit);
    }
    return true;
  }

  static void appendUtf8(std::string &s, uint32_t cp) {
    if (cp < 0x80) {
      s += char(cp);
    } else if (cp < 0x800) {
      s += char(0xC0 | (cp >> 6));
      s += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += char(0xE0 | (cp >> 12));
      s += char(0x80 | ((cp >> 6) & 0x3F));
      s += char(0x80 | (cp & 0x3F));
    } else {
      s += char(0xF0 | (cp >> 18));
      s += char(0x80 | ((cp >> 12) & 0x3F));
      s += char(0x80 | ((cp >> 6) & 0x3F));
      s += char(0x80 | (cp & 0x3F));
    }
  }

  bool parseString(std::string &out) {
    ++pos_; // '"'
    for (;;) {
      if (pos_ >= text_.size())
        return fail("unterminated string");
      const unsigned char c = static_cast<unsigned char>(text_[pos_++]);
      if (c == '"')
        return true;
      if (c < 0x20)
        return fail("control character in a string");
      if (c != '\\') {
        out += char(c);
        continue;
      }
      if (pos_ >= text_.size())
        return fail("unterminated escape");
      const char e = text_[pos_++];
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        uint32_t cp;
        if (!hex4(cp))
          return false;
        if (cp >= 0xD800 && cp < 0xDC00) { // a high surrogate needs its low half
          uint32_t low;
          if (!consume('\\') || !consume('u') || !hex4(low) || low < 0xDC00 || low >= 0xE000)
            return fail("unpaired UTF-16 surrogate in \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp < 0xE000) {
          return fail("unpaired UTF-16 surrogate in \\u escape");
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        return fail("invalid escape");
      }
    }
  }

  bool parseNumber(Value &out) {
    const size_t start = pos_;
    auto digits = [&]() {
      size_t first = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9')
        ++pos_;
      return pos_ - first;
    };
    consume('-');
    if (pos_ < text_.size() && text_[pos_] == '0')
      ++pos_;
    else if (digits() == 0)
      return fail("invalid value");
    if (consume('.') && digits() == 0)
      return fail("digits expected after '.'");
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (!consume('+'))
        consume('-');
      if (digits() == 0)
        return fail("digits expected in the exponent");
    }
    out.kind = Value::Kind::Number;
    out.text = std::string(text_.substr(start, pos_ - start));
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

} // namespace

const Value *Value::find(std::string_view key) const {
  for (const auto &[name, value] : members)
    if (name == key)
      return &value;
  return nullptr;
}

std::optional<uint64_t> Value::unsignedValue() const {
  if (kind != Kind::Number || text.empty())
    return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    const uint64_t digit = uint64_t(c - '0');
    if (v > (UINT64_MAX - digit) / 10)
      return std::nullopt;
    v = v * 10 + digit;
  }
  return v;
}

const char *kindName(Value::Kind kind) {
  switch (kind) {
  case Value::Kind::Null: return "null";
  case Value::Kind::Bool: return "a boolean";
  case Value::Kind::Number: return "a number";
  case Value::Kind::String: return "a string";
  case Value::Kind::Array: return "an array";
  case Value::Kind::Object: return "an object";
  }
  return "?";
}

Result<Value> parse(std::string_view text) { return Parser(text).parseDocument(); }

std::string serialize(const Value &value) {
  switch (value.kind) {
  case Value::Kind::Null: return "null";
  case Value::Kind::Bool: return value.boolean ? "true" : "false";
  case Value::Kind::Number: return value.text;
  case Value::Kind::String: return quote(value.text);
  case Value::Kind::Array: {
    std::string out = "[";
    for (size_t i = 0; i < value.items.size(); ++i)
      out += (i ? "," : "") + serialize(value.items[i]);
    return out + "]";
  }
  case Value::Kind::Object: {
    std::string out = "{";
    for (size_t i = 0; i < value.members.size(); ++i)
      out += (i ? "," : "") + quote(value.members[i].first) + ":" +
             serialize(value.members[i].second);
    return out + "}";
  }
  }
  return "null";
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

} // namespace mxf::json
