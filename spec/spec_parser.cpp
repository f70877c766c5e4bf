//===- spec_parser.cpp - Spec text to KernelSpec ---------------------------===//
//
// parseSpec: splits `op:key=value,...`, checks each item against the op's key
// table (spec_keys.h), fills the defaults and hands the result to
// validateSpec. The input is untrusted (CLI, manifests, cache files), so the
// parser only ever looks at bytes through bounds-checked string_views, never
// allocates in proportion to the input, and names the offending item in every
// error.
//
//===----------------------------------------------------------------------===//

#include "spec/kernel_spec.h"

#include "spec/key_table.h"
#include "spec/op_declaration.h"
#include "spec/spec_keys.h"

namespace mxf {
namespace {

using spec_detail::escaped;
using spec_detail::kNumSpecKeys;
using spec_detail::quoted;
using spec_detail::SpecKey;
using spec_detail::specKeyName;

constexpr std::string_view kShapeHint = "expected op:key=value,...";

// ASCII whitespace only: bytes >= 0x80 are never whitespace here, so the
// result does not depend on the C locale.
bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

std::string_view trim(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && isSpace(text[begin]))
    ++begin;
  while (end > begin && isSpace(text[end - 1]))
    --end;
  return text.substr(begin, end - begin);
}

Status fail(std::string message) { return Status::failure(std::move(message)); }

/// Whitespace inside a spec is an error rather than something to skip, so
/// that a spec has exactly one spelling per meaning. Names the op or item that
/// holds it.
Status checkNoInnerWhitespace(std::string_view text) {
  size_t at = 0;
  while (at < text.size() && !isSpace(text[at]))
    ++at;
  if (at == text.size())
    return Status::success();
  size_t colon = text.find(':');
  if (colon == std::string_view::npos || at < colon)
    return fail("op " + quoted(text.substr(0, colon)) +
                " contains whitespace; a spec has no spaces (" + std::string(kShapeHint) + ")");
  size_t begin = text.rfind(',', at);
  begin = (begin == std::string_view::npos || begin < colon) ? colon + 1 : begin + 1;
  size_t end = text.find(',', at);
  if (end == std::string_view::npos)
    end = text.size();
  return fail("item " + quoted(text.substr(begin, end - begin)) +
              " contains whitespace; a spec has no spaces");
}

/// A key spelled in the wrong case ("k", "rs") gets a hint.
std::string caseHint(std::string_view name) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (size_t i = 0; i < kNumSpecKeys; ++i) {
    std::string_view candidate = specKeyName(static_cast<SpecKey>(i));
    if (candidate.size() != name.size() || candidate == name)
      continue;
    bool same = true;
    for (size_t j = 0; j < name.size() && same; ++j)
      same = lower(name[j]) == lower(candidate[j]);
    if (same)
      return "; keys are case-sensitive: did you mean '" + std::string(candidate) + "'?";
  }
  return std::string();
}

/// What a value of `key` looks like, for "empty value" messages.
std::string valueHint(SpecKey key) {
  if (spec_detail::isNumericKey(key))
    return "a decimal number";
  if (key == SpecKey::Arch)
    return "gfx950";
  return "one of " + spec_detail::joinedValues(key);
}

/// The op's defaults that depend on other keys or on the op.
void fillDefaults(KernelSpec &spec, const bool (&seen)[kNumSpecKeys]) {
  if (!seen[static_cast<size_t>(SpecKey::Rot)])
    spec.rot = spec.RS == 0 ? RotationKind::None : RotationKind::Hadamard;
  if (const OpDeclaration *op = opDeclaration(spec.op); op->fillDefaults)
    op->fillDefaults(spec, seen);
}

} // namespace

Result<KernelSpec> parseSpec(std::string_view text) {
  // Checked before anything else so that no later step sees a huge input.
  if (text.size() > kMaxSpecLength)
    return fail("spec is " + std::to_string(text.size()) + " characters long; at most " +
                std::to_string(kMaxSpecLength) + " are accepted");
  text = trim(text);
  if (text.empty())
    return fail("empty spec (" + std::string(kShapeHint) + ", e.g. rotate_quant:K=4096)");
  if (Status s = checkNoInnerWhitespace(text); !s.ok())
    return s;

  size_t colon = text.find(':');
  if (colon == std::string_view::npos)
    return fail("missing ':' after the op in " + quoted(text) + " (" + std::string(kShapeHint) +
                "; ops: " + spec_detail::joinedOps() + ")");
  std::string_view opName = text.substr(0, colon);
  if (opName.empty())
    return fail("empty op before ':' (ops: " + spec_detail::joinedOps() + ")");
  std::optional<KernelOp> op = parseKernelOp(opName);
  if (!op)
    return fail("unknown op " + quoted(opName) + " (ops: " + spec_detail::joinedOps() + ")");

  KernelSpec spec;
  spec.op = *op;
  const char *opText = kernelOpName(spec.op);
  bool seen[kNumSpecKeys] = {};
  std::string_view seenItem[kNumSpecKeys];
  std::string_view body = text.substr(colon + 1);
  std::string_view previous; // the last item read, for messages about commas
  for (size_t pos = 0; !body.empty();) {
    size_t comma = body.find(',', pos);
    bool last = comma == std::string_view::npos;
    std::string_view item = body.substr(pos, last ? std::string_view::npos : comma - pos);
    if (item.empty()) {
      if (last)
        return fail("trailing comma after " + quoted(previous) + " (remove it, or add key=value)");
      if (pos == 0)
        return fail("empty item before the first ',' after '" + std::string(opText) + ":' (" +
                    std::string(kShapeHint) + ")");
      return fail("empty item ',,' after " + quoted(previous) + " (items are key=value)");
    }

    size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return fail("item " + quoted(item) + " has no '=' (items are key=value, e.g. K=4096)");
    std::string_view keyName = item.substr(0, eq);
    std::string_view value = item.substr(eq + 1);
    if (keyName.empty())
      return fail("empty key in " + quoted(item) + " (items are key=value; " + std::string(opText) +
                  " keys: " + spec_detail::joinedKeys(spec.op) + ")");
    std::optional<SpecKey> key = spec_detail::parseSpecKey(keyName);
    if (!key)
      return fail("unknown key " + quoted(keyName) + " in " + quoted(item) + " (" + opText +
                  " keys: " + spec_detail::joinedKeys(spec.op) + ")" + caseHint(keyName));
    if (!spec_detail::opHasKey(spec.op, *key))
      return fail("key " + quoted(keyName) + " (in " + quoted(item) + ") does not belong to " +
                  opText + " (its keys: " + spec_detail::joinedKeys(spec.op) + ")");
    size_t index = static_cast<size_t>(*key);
    if (seen[index])
      return fail("duplicate key " + quoted(keyName) + ": " + quoted(seenItem[index]) + ", then " +
                  quoted(item) + " (give each key once)");
    seen[index] = true;
    seenItem[index] = item;
    if (value.empty())
      return fail("empty value in " + quoted(item) + ": " + specKeyName(*key) + " must be " +
                  valueHint(*key));
    if (Status s = spec_detail::keyDeclaration(*key).parseValue(spec, value); !s.ok())
      return s;

    previous = item;
    if (last)
      break;
    pos = comma + 1;
  }

  for (SpecKey key : spec_detail::opKeys(spec.op))
    if (spec_detail::isRequiredKey(spec.op, key) && !seen[static_cast<size_t>(key)])
      return fail("missing required key '" + std::string(specKeyName(key)) + "' for " + opText +
                  " (required: " + spec_detail::joinedRequiredKeys(spec.op) + ")");
  fillDefaults(spec, seen);
  // A key the op has but this spec does not (rconv without a learned R) is
  // an error even at its default: the text would mean nothing.
  for (SpecKey key : spec_detail::opKeys(spec.op))
    if (seen[static_cast<size_t>(key)] && !spec_detail::keyApplies(spec, key))
      return fail(quoted(seenItem[static_cast<size_t>(key)]) + ": " +
                  spec_detail::inapplicableKeyReason(spec, key));
  if (Status s = validateSpec(spec); !s.ok())
    return s;
  return spec;
}

} // namespace mxf
