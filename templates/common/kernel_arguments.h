//===- kernel_arguments.h - A template's gpu.func signature, from abi/ -*- C++ -*-===//
//
// Every template builds its gpu.func from the one operand table of abi/
// (abi/operands.h): a memref per buffer operand with its static shape at the
// spec's M, then an i32 per by-value argument (m, then the row strides). The
// bare-pointer calling convention makes each memref one pointer in the
// kernarg segment, so the kernarg layout is that table's order. Inside the
// kernel, strided operands are used through rowStridedView.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_KERNEL_ARGUMENTS_H
#define MXFORGE_TEMPLATES_COMMON_KERNEL_ARGUMENTS_H

#include "spec/kernel_spec.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class ImplicitLocOpBuilder;
class MLIRContext;
namespace gpu {
class GPUFuncOp;
} // namespace gpu
} // namespace mlir

namespace mxf {

/// The gpu.func argument types of `spec`'s kernel, in kernarg order.
llvm::SmallVector<mlir::Type> kernelArgumentTypes(mlir::MLIRContext *context,
                                                  const KernelSpec &spec);

/// The entry block's arguments by their ABI names (x, r, q, s, m, x_stride, ...).
class KernelArguments {
public:
  KernelArguments(const KernelSpec &spec, mlir::gpu::GPUFuncOp func);

  /// The argument `name`; null when the spec has no such argument (r without
  /// a learned rotation).
  mlir::Value get(llvm::StringRef name) const { return byName_.lookup(name); }
  bool has(llvm::StringRef name) const { return bool(get(name)); }
  /// The static type of buffer `name` (its shape at the spec's M).
  mlir::MemRefType bufferType(llvm::StringRef name) const;

private:
  llvm::StringMap<mlir::Value> byName_;
};

/// A workgroup attribution's type: a static LDS array of `element`.
mlir::MemRefType workgroupBufferType(mlir::MLIRContext *context, llvm::ArrayRef<int64_t> shape,
                                     mlir::Type element);

/// `buffer` (a static [M, C] memref) seen as `rows` rows of C elements,
/// `stride` elements apart: memref<?xCxT, strided<[?, 1]>>. rows and stride
/// are index values.
mlir::Value rowStridedView(mlir::ImplicitLocOpBuilder &b, mlir::Value buffer, mlir::Value rows,
                           mlir::Value stride);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_KERNEL_ARGUMENTS_H
