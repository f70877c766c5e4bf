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

#include <cstdint>
#include <string>
#include <vector>

namespace mxf {

struct OpAbi {
  KernelOp op;
  /// Whether the kernel takes the launch's row count (i32) after its
  /// operands; an op without it always processes its N rows.
  bool rowsOperand;
  /// Whether round=sr takes the `seed` operand (activation ops; a weight
  /// pass rounds to nearest).
  bool srSeedOperand;
  /// Appends the op's operands at `rows` rows, named `rowsName` ("M" for the
  /// bucket's static shapes, "m" for a launch) in the derivations.
  /// Precondition: validateSpec(spec).ok().
  void (*operands)(const KernelSpec &spec, int64_t rows, const std::string &rowsName,
                   std::vector<KernelOperand> &ops);
};

/// The ABI of `op`; null for a value outside KernelOp.
const OpAbi *opAbi(KernelOp op);

} // namespace mxf

#endif // MXFORGE_ABI_OP_ABI_H
