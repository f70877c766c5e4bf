//===- json.h - A strict JSON reader and writer -------------------*- C++ -*-===//
//
// A strict RFC 8259 reader (no comments, no trailing commas, no duplicate
// object keys, nesting at most kMaxJsonDepth deep) and string quoting for
// the writer. Numbers keep their text; unsignedValue() reads a plain
// non-negative integer exactly (safetensors offsets exceed double's 2^53).
// Pure C++ so that weights/ (safetensors headers, checkpoint configs) and
// runtime/launch_file (`mxforge launch`) link no LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SUPPORT_JSON_H
#define MXFORGE_SUPPORT_JSON_H

#include "support/status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mxf::json {

constexpr int kMaxJsonDepth = 64;

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::string text; // String: the decoded UTF-8; Number: its literal
  std::vector<Value> items;                          // Array
  std::vector<std::pair<std::string, Value>> members; // Object, in file order

  bool isObject() const { return kind == Kind::Object; }
  bool isArray() const { return kind == Kind::Array; }
  bool isString() const { return kind == Kind::String; }
  /// The member named `key`, or null.
  const Value *find(std::string_view key) const;
  /// A Number written as plain digits (no sign, fraction or exponent) that
  /// fits in uint64_t.
  std::optional<uint64_t> unsignedValue() const;
};

/// "kind" as messages say it: "an object", "a string", ...
const char *kindName(Value::Kind kind);

/// Parses one JSON value; whitespace may surround it. The message gives the
/// byte offset of the problem.
Result<Value> parse(std::string_view text);

/// `value` as compact JSON (numbers as their original literal).
std::string serialize(const Value &value);

/// `s` as a JSON string literal (quotes included; control characters,
/// quote and backslash escaped; other bytes as they are).
std::string quote(std::string_view s);

} // namespace mxf::json

#endif // MXFORGE_SUPPORT_JSON_H
