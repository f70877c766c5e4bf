//===- op_abi.h - What the ABI layer knows of an op --------------*- C++ -*-===//
//
// Each family declares its op's kernel ABI once, in its own folder
// (templates/<family>/op_abi.cpp, plain C++ linked into mxforge_abi): its
// operands in order and the by-value arguments it takes. kernelOperands,
// kernelScalarArgs, the launch checks and everything derived from them
// (the IR's signature, the runtime's argument packing, Python's operand
// lists) read these declarations (docs/abi.md).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ABI_OP_ABI_H
#define MXFORGE_ABI_OP_ABI_H

#include "abi/operands.h"
#include "spec/key_table.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxf {

/// One operand an op may take, whatever its spec: the op's interface, from
/// which bindings build their functions and schemas (Python's families, the
/// torch ops). `operands` below returns, for each spec, a subsequence of
/// these slots in this order, in the element and direction declared here
/// (tests/unit/test_op_interface.cpp checks it over the spec sample).
struct OperandSlot {
  const char *name;
  OperandElement element;
  bool output;
  /// Whether only some specs take it (r: learned rotations, seed: round=sr,
  /// layer_mask: select=mask, expert_mask: emask=1).
  bool optional;
  /// The ranks it may have, a bit per rank (1u << 2: two dimensions).
  unsigned ranks;
};

constexpr unsigned kRanks1 = 1u << 1, kRanks2 = 1u << 2, kRanks3 = 1u << 3;

/// A spec key a caller may leave out and take from an input's shape (K from
/// x's width); dimension -1 is the last.
struct ShapeKey {
  spec_detail::SpecKey key;
  const char *operand;
  int dimension;
};

/// An output extent as a function of the launch's rows, for callers that
/// propagate shapes symbolically (torch.compile's dynamic batch):
/// roundUp(ceilDiv(scale * rows + offset, divisor), multiple).
struct RowExtent {
  const char *label;
  int64_t scale, offset, divisor, multiple;
  int64_t at(int64_t rows) const {
    const int64_t divided = (scale * rows + offset + divisor - 1) / divisor;
    return (divided + multiple - 1) / multiple * multiple;
  }
};


struct OpAbi {
  KernelOp op;
  /// The input whose first dimension is the launch's row count m; the
  /// kernel then takes m (i32) after its operands. Null: the op always
  /// processes its spec's N rows (a weight pass).
  const char *rowsFrom;
  /// Whether round=sr takes the `seed` operand (activation ops; a weight
  /// pass rounds to nearest).
  bool srSeedOperand;
  /// Appends the op's operands at `rows` rows, named `rowsName` ("M" for the
  /// bucket's static shapes, "m" for a launch) in the derivations.
  /// Precondition: validateSpec(spec).ok().
  void (*operands)(const KernelSpec &spec, int64_t rows, const std::string &rowsName,
                   std::vector<KernelOperand> &ops);
  /// Every operand `operands` may return, in its order.
  Span<OperandSlot> slots;
  /// The keys callers may take from the inputs' shapes.
  Span<ShapeKey> shapeKeys;
  /// The op's own row extents beyond rows and pad256(rows) (kernelRowExtents
  /// adds those); null when it has none.
  void (*rowExtents)(const KernelSpec &spec, std::vector<RowExtent> &extents) = nullptr;
  /// The values it takes by value at every launch, after every other
  /// by-value argument (kernelValueArgs).
  Span<ValueArg> values = {};
};

/// Every way an operand extent of `spec` depends on the launch's rows:
/// rows, the a4w4 padding, then the op's own (MoE capacity).
std::vector<RowExtent> kernelRowExtents(const KernelSpec &spec);

/// The ABI of `op`; null for a value outside KernelOp.
const OpAbi *opAbi(KernelOp op);

} // namespace mxf

#endif // MXFORGE_ABI_OP_ABI_H
