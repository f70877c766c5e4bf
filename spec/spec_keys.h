//===- spec_keys.h - The vocabulary of spec text (internal) ------*- C++ -*-===//
//
// Shared by the parser, printer and validator of spec/: the keys, which op has
// which keys in which order, which keys are required, the valid spellings of
// enum values, and how to quote user text in a one-line error message. Kept in
// one table so that the three can never disagree about an op's keys.
// Not part of the public interface (include spec/kernel_spec.h instead).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SPEC_SPEC_KEYS_H
#define MXFORGE_SPEC_SPEC_KEYS_H

#include "spec/kernel_spec.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mxf::spec_detail {

enum class SpecKey : uint8_t {
  K,
  RS,
  Rot,
  M,
  Topk,
  E,
  Block,
  Stage,
  Emask,
  N,
  Fmt,
  Scale,
  Round,
  Inter,
  Layout,
  Wlayout,
  Arch,
  Rconv,
  Select,
  Layers,
  Add,
};
constexpr size_t kNumSpecKeys = 21;

/// A read-only view of a constant key table.
struct KeyList {
  const SpecKey *first = nullptr;
  size_t count = 0;
  const SpecKey *begin() const { return first; }
  const SpecKey *end() const { return first + count; }
  size_t size() const { return count; }
};

/// Spelling of a key in spec text: K, RS, rot, M, topk, ...
const char *specKeyName(SpecKey key);
std::optional<SpecKey> parseSpecKey(std::string_view name);

/// The op's keys in canonical order; empty for a value outside KernelOp.
KeyList opKeys(KernelOp op);
bool opHasKey(KernelOp op, SpecKey key);
/// Whether `key` is part of this spec's text: every key of the op except
/// rconv, which only learned rotations have. The printer writes, the parser
/// accepts and the validator lets differ from its default exactly these.
bool keyApplies(const KernelSpec &spec, SpecKey key);
/// Whether printSpec writes `key`: keyApplies, except select=off (the
/// default, left out so that specs from before selective rotation keep
/// their text; the parser still accepts it).
bool keyPrinted(const KernelSpec &spec, SpecKey key);
/// Why a key of the op does not apply to `spec` (keyApplies is false), for
/// error messages: "rconv applies only to rot=learned or ...".
std::string inapplicableKeyReason(const KernelSpec &spec, SpecKey key);
/// Keys without a default for this op.
bool isRequiredKey(KernelOp op, SpecKey key);
/// Keys whose value is a decimal number.
bool isNumericKey(SpecKey key);

/// "K, RS, rot, ..." — the op's keys, for "its keys: ..." messages.
std::string joinedKeys(KernelOp op);
/// "K, N" — the op's required keys.
std::string joinedRequiredKeys(KernelOp op);
/// "rotate_quant, rotate_quant_moe, ..." — every op.
std::string joinedOps();
/// "none, hadamard, ..." — every spelling an enum key accepts (empty for
/// numeric keys and arch).
std::string joinedValues(SpecKey key);

/// Every value of each option enum, in declaration order. numerics/options.h
/// has no such lists; the validator also uses them to reject out-of-range
/// values in specs built in code.
extern const RotationKind kAllRotationKinds[5];
extern const Intermediate kAllIntermediates[2];
extern const Rounding kAllRoundings[3];
extern const RotationConvention kAllRotationConventions[2];
extern const ScaleLayout kAllScaleLayouts[3];
extern const WeightLayout kAllWeightLayouts[3];
extern const RotationSelect kAllRotationSelects[3];

/// Appends the spelling of `key`'s value in `spec` (as printSpec writes it;
/// "?" for an enum value outside its enum). Defined in spec_printer.cpp.
void appendSpecValue(std::string &out, const KernelSpec &spec, SpecKey key);

/// User text for a message: printable ASCII kept, anything else (NUL, control
/// and high bytes) written as \xNN and backslash as \\, so a message stays one
/// readable line; cut at 48 bytes with "..." so a 4 KiB value cannot flood
/// it.
std::string escaped(std::string_view text);
/// escaped() in single quotes.
std::string quoted(std::string_view text);

} // namespace mxf::spec_detail

#endif // MXFORGE_SPEC_SPEC_KEYS_H
