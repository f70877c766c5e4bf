//===- kernel_spec.cpp - Op names, key lists and spec equality -------------===//
//
// The small public pieces of kernel_spec.h that are neither parsing, printing
// nor validation.
//
//===----------------------------------------------------------------------===//

#include "spec/kernel_spec.h"

#include "spec/key_table.h"
#include "spec/op_declaration.h"
#include "spec/spec_keys.h"

namespace mxf {

using spec_detail::SpecKey;

const char *kernelOpName(KernelOp op) {
  const OpDeclaration *declaration = opDeclaration(op);
  return declaration ? declaration->name : "?";
}

const char *rotationSelectName(RotationSelect select) {
  switch (select) {
  case RotationSelect::Off:
    return "off";
  case RotationSelect::Flag:
    return "flag";
  case RotationSelect::Mask:
    return "mask";
  }
  return "?";
}

std::optional<RotationSelect> parseRotationSelect(std::string_view name) {
  for (RotationSelect select : spec_detail::kAllRotationSelects)
    if (name == rotationSelectName(select))
      return select;
  return std::nullopt;
}

std::optional<KernelOp> parseKernelOp(std::string_view name) {
  for (KernelOp op : kAllKernelOps)
    if (name == kernelOpName(op))
      return op;
  return std::nullopt;
}

bool KernelSpec::operator==(const KernelSpec &other) const {
  // Every field, foreign ones included: validateSpec keeps those at their
  // defaults, so for valid specs this is equality of canonical texts.
  if (op != other.op)
    return false;
  for (size_t i = 0; i < spec_detail::kNumSpecKeys; ++i)
    if (!spec_detail::keyDeclaration(SpecKey(i)).sameValue(*this, other))
      return false;
  return true;
}

std::vector<std::string_view> allSpecKeys() {
  std::vector<std::string_view> keys;
  for (size_t i = 0; i < spec_detail::kNumSpecKeys; ++i)
    keys.push_back(spec_detail::specKeyName(SpecKey(i)));
  return keys;
}

std::vector<std::string_view> specKeys(KernelOp op) {
  std::vector<std::string_view> keys;
  for (SpecKey key : spec_detail::opKeys(op))
    keys.push_back(spec_detail::specKeyName(key));
  return keys;
}

std::vector<std::string_view> requiredSpecKeys(KernelOp op) {
  std::vector<std::string_view> keys;
  for (SpecKey key : spec_detail::opKeys(op))
    if (spec_detail::isRequiredKey(op, key))
      keys.push_back(spec_detail::specKeyName(key));
  return keys;
}

} // namespace mxf
