//===- op_declaration.h - What the spec layer knows of an op -----*- C++ -*-===//
//
// Each family declares its op once, in its own folder
// (templates/<family>/op_spec.cpp, plain C++ linked into this library): its
// name, its keys in canonical order, which of them are required, the
// defaults that depend on the op, and the rules only it has. The parser,
// printer, validator and every list of ops and keys read these declarations;
// nothing in spec/ names an op (docs/templates.md, "Adding a template
// family").
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SPEC_OP_DECLARATION_H
#define MXFORGE_SPEC_OP_DECLARATION_H

#include "spec/key_table.h"
#include "spec/kernel_spec.h"
#include "spec/presets.h"

#include <string>

namespace mxf {

struct OpDeclaration {
  KernelOp op;
  const char *name;
  /// Canonical order: the printer writes them so, the parser accepts them in
  /// any order, and no other key.
  spec_detail::KeyList keys;
  /// The keys without a default (a subset of keys).
  spec_detail::KeyList required;
  /// Whether the op writes AITER's A6W6 operand tiles (layout=
  /// mxfp6_c0c1_256_padk2: codes and scales as one operand).
  bool writesA6W6Tiles = false;
  /// Defaults that depend on the op, for the keys a text left out (given[k]
  /// says whether key k was written); null when there are none.
  void (*fillDefaults)(KernelSpec &spec, const bool *given) = nullptr;
  /// The op's own rules, checked after the shared ones of key values,
  /// shapes and rotation; null when there are none.
  Status (*validate)(const KernelSpec &spec) = nullptr;
  /// What the op computes, its arguments and results, as bindings show it
  /// (Python's docstring of mxforge.<op>, help(torch.ops.mxforge.<op>)).
  const char *description = "";
  /// The kernels this op adds to a model's preset (spec/presets.h), appended
  /// to `specs`; null: none.
  void (*presetSpecs)(const ModelShapes &model, std::vector<KernelSpec> &specs) = nullptr;
  /// The quant_weight spec whose outputs (q, s) a launch of `spec` reads as
  /// its prepared weights (spec/prepared_weights.h); null: the op reads
  /// none.
  KernelSpec (*weightsRead)(const KernelSpec &spec) = nullptr;
};

/// The declaration of `op`; null for a value outside KernelOp.
const OpDeclaration *opDeclaration(KernelOp op);

/// A key list over a constant array, for declarations.
template <size_t Count>
constexpr spec_detail::KeyList keyList(const spec_detail::SpecKey (&keys)[Count]) {
  return {keys, Count};
}

/// "key=value: what" for a rule about one key (the form every validation
/// message has), for the ops' validate functions.
Status specKeyFailure(const KernelSpec &spec, spec_detail::SpecKey key, const std::string &what);

/// "a, b, c" for messages that list valid numbers.
std::string joinedNumbers(const int *values, size_t count);
template <size_t Count> std::string joinedNumbers(const int (&values)[Count]) {
  return joinedNumbers(values, Count);
}
template <size_t Count> constexpr bool isOneOf(const int (&values)[Count], int value) {
  for (int candidate : values)
    if (candidate == value)
      return true;
  return false;
}

} // namespace mxf

#endif // MXFORGE_SPEC_OP_DECLARATION_H
