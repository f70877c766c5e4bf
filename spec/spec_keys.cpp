//===- spec_keys.cpp - The vocabulary of spec text -------------------------===//
//
// The one table of keys per op (canonical order, required or defaulted) and
// the lists that error messages quote. See spec_keys.h.
//
//===----------------------------------------------------------------------===//

#include "spec/spec_keys.h"

#include "spec/key_table.h"
#include "spec/op_declaration.h"

#include <cstdio>

namespace mxf::spec_detail {
namespace {


template <typename Enum, size_t Count, typename NameFn>
std::string joinNames(const Enum (&values)[Count], NameFn name) {
  std::string out;
  for (Enum value : values) {
    if (!out.empty())
      out += ", ";
    out += name(value);
  }
  return out;
}

std::string joinKeyList(KeyList keys, bool requiredOnly, KernelOp op) {
  std::string out;
  for (SpecKey key : keys) {
    if (requiredOnly && !isRequiredKey(op, key))
      continue;
    if (!out.empty())
      out += ", ";
    out += specKeyName(key);
  }
  return out;
}

} // namespace

const RotationKind kAllRotationKinds[5] = {RotationKind::None, RotationKind::Hadamard,
                                           RotationKind::HadamardButterfly, RotationKind::Learned,
                                           RotationKind::LearnedPerBlock};
const Intermediate kAllIntermediates[2] = {Intermediate::F32, Intermediate::Bf16};
const Rounding kAllRoundings[3] = {Rounding::Rne, Rounding::Sr, Rounding::Rna};
const RotationConvention kAllRotationConventions[2] = {RotationConvention::XR,
                                                       RotationConvention::XRt};
const ScaleLayout kAllScaleLayouts[3] = {ScaleLayout::Plain, ScaleLayout::A4W4Shuffle,
                                        ScaleLayout::A6W6Tiles};
const WeightLayout kAllWeightLayouts[3] = {WeightLayout::Plain, WeightLayout::Preshuffle16x16,
                                         WeightLayout::W6A16Tile16x128};
const RotationSelect kAllRotationSelects[3] = {RotationSelect::Off, RotationSelect::Flag,
                                               RotationSelect::Mask};

const char *specKeyName(SpecKey key) {
  size_t index = static_cast<size_t>(key);
  return index < kNumSpecKeys ? keyDeclaration(key).name : "?";
}

std::optional<SpecKey> parseSpecKey(std::string_view name) {
  for (size_t i = 0; i < kNumSpecKeys; ++i)
    if (name == keyDeclaration(static_cast<SpecKey>(i)).name)
      return static_cast<SpecKey>(i);
  return std::nullopt;
}

KeyList opKeys(KernelOp op) {
  const OpDeclaration *declaration = opDeclaration(op);
  return declaration ? declaration->keys : KeyList{};
}

bool opHasKey(KernelOp op, SpecKey key) {
  for (SpecKey candidate : opKeys(op))
    if (candidate == key)
      return true;
  return false;
}

bool keyApplies(const KernelSpec &spec, SpecKey key) {
  if (!opHasKey(spec.op, key))
    return false;
  const KeyDeclaration &declaration = keyDeclaration(key);
  return !declaration.applies || declaration.applies(spec);
}

bool keyPrinted(const KernelSpec &spec, SpecKey key) {
  static const KernelSpec kDefaults;
  const KeyDeclaration &declaration = keyDeclaration(key);
  if (declaration.omittedAtDefault && declaration.sameValue(spec, kDefaults))
    return false;
  return keyApplies(spec, key);
}

std::string inapplicableKeyReason(const KernelSpec &spec, SpecKey key) {
  const KeyDeclaration &declaration = keyDeclaration(key);
  if (declaration.whyNotApplicable)
    return declaration.whyNotApplicable(spec);
  return std::string("key '") + specKeyName(key) + "' does not apply to this spec";
}

bool isRequiredKey(KernelOp op, SpecKey key) {
  const OpDeclaration *declaration = opDeclaration(op);
  if (!declaration)
    return false;
  for (SpecKey required : declaration->required)
    if (required == key)
      return true;
  return false;
}

bool isNumericKey(SpecKey key) { return keyDeclaration(key).kind == KeyValueKind::Number; }

std::string joinedKeys(KernelOp op) { return joinKeyList(opKeys(op), false, op); }
std::string joinedRequiredKeys(KernelOp op) { return joinKeyList(opKeys(op), true, op); }
std::string joinedOps() { return joinNames(kAllKernelOps, kernelOpName); }

std::string joinedValues(SpecKey key) {
  const KeyDeclaration &declaration = keyDeclaration(key);
  return declaration.spellings ? declaration.spellings() : std::string();
}

void appendSpecValue(std::string &out, const KernelSpec &spec, SpecKey key) {
  keyDeclaration(key).appendValue(out, spec);
}

std::string escaped(std::string_view text) {
  constexpr size_t kMaxShown = 48;
  std::string out;
  size_t shown = text.size() < kMaxShown ? text.size() : kMaxShown;
  out.reserve(shown + 8);
  for (size_t i = 0; i < shown; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\\') {
      out += "\\\\";
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02X", c);
      out += hex;
    }
  }
  if (shown < text.size())
    out += "...";
  return out;
}

std::string quoted(std::string_view text) { return "'" + escaped(text) + "'"; }

} // namespace mxf::spec_detail
