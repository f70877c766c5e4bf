//===- key_table.h - One declaration per spec key (internal) -----*- C++ -*-===//
//
// Every key of the spec vocabulary is declared once, in key_table.cpp: its
// spelling, the KernelSpec field it reads and writes, the kind and spellings
// of its values, when it is part of a spec's text and why not otherwise, and
// how it appears in the kernel's name. The parser, printer and validator of
// spec/ and abi's kernelName are loops over these declarations; none of them
// switches on a key (docs/templates.md, "Adding a spec key").
// Not part of the public interface (include spec/kernel_spec.h instead).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SPEC_KEY_TABLE_H
#define MXFORGE_SPEC_KEY_TABLE_H

#include "spec/spec_keys.h"

#include <string>
#include <string_view>

namespace mxf::spec_detail {

/// What the text after `key=` is.
enum class KeyValueKind : uint8_t {
  Number, // decimal digits (int fields)
  Enum,   // one spelling of an enum (enum fields)
  Text,   // free text, checked by the validator (arch)
};

/// How a key shows in the kernel's name (abi/operands.h kernelName).
enum class NamePart : uint8_t {
  KeyAndNumber,    // "K4096": the key's spelling, then the value
  Spelling,        // "hadamard": the value's spelling
  SpellingUnlessDefault, // the spelling, or nothing at the KernelSpec default
  Identifier,      // the text with every non-identifier byte as '_'
  Custom,          // the declaration's appendNamePart writes it (or nothing)
};

struct KeyDeclaration {
  SpecKey key;
  const char *name;
  KeyValueKind kind;
  /// Appends the value as spec text writes it; an enum code outside its
  /// enum (a spec built in code) prints as "?", which parsing rejects.
  void (*appendValue)(std::string &out, const KernelSpec &spec);
  /// Stores a non-empty value text in the field. Numbers: digits only, at
  /// most kMaxSpecNumberDigits (range checks are the validator's); enums:
  /// one of the spellings. The message names the key and quotes the value.
  Status (*parseValue)(KernelSpec &spec, std::string_view value);
  bool (*sameValue)(const KernelSpec &a, const KernelSpec &b);
  /// Enum keys: whether the field holds one of its enum's values, and its
  /// raw code for the message when it does not. Null for other kinds.
  bool (*holdsEnumValue)(const KernelSpec &spec);
  unsigned (*enumCode)(const KernelSpec &spec);
  /// Enum keys: "none, hadamard, ..." (null for other kinds).
  std::string (*spellings)();
  /// Whether the key, which the op has, is part of this spec's text (null:
  /// always), and why not for messages.
  bool (*applies)(const KernelSpec &spec);
  std::string (*whyNotApplicable)(const KernelSpec &spec);
  /// Left out of the printed text at its KernelSpec default, so that specs
  /// from before the key keep their text and cache key (select=off).
  bool omittedAtDefault;
  NamePart namePart;
  /// NamePart::Custom only.
  void (*appendNamePart)(std::string &name, const KernelSpec &spec);
};

/// The declaration of `key`; the table is in SpecKey order.
const KeyDeclaration &keyDeclaration(SpecKey key);

} // namespace mxf::spec_detail

#endif // MXFORGE_SPEC_KEY_TABLE_H
