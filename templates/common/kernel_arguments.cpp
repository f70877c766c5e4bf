//===- kernel_arguments.cpp - A template's gpu.func signature, from abi/ --===//

#include "templates/common/kernel_arguments.h"

#include "abi/operands.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mxf {
namespace {

mlir::Type elementType(mlir::MLIRContext *context, OperandElement element) {
  switch (element) {
  case OperandElement::Bf16:
    return mlir::BFloat16Type::get(context);
  case OperandElement::I8:
    return mlir::IntegerType::get(context, 8);
  case OperandElement::I32:
    return mlir::IntegerType::get(context, 32);
  case OperandElement::F32:
    return mlir::Float32Type::get(context);
  }
  return {};
}

} // namespace

llvm::SmallVector<mlir::Type> kernelArgumentTypes(mlir::MLIRContext *context,
                                                  const KernelSpec &spec) {
  llvm::SmallVector<mlir::Type> types;
  for (const KernelOperand &operand : kernelOperands(spec))
    types.push_back(mlir::MemRefType::get(operand.shape, elementType(context, operand.element)));
  for (const ScalarArg &arg : kernelScalarArgs(spec))
    types.push_back(arg.isF32 ? mlir::Type(mlir::Float32Type::get(context))
                              : mlir::Type(mlir::IntegerType::get(context, 32)));
  return types;
}

mlir::MemRefType workgroupBufferType(mlir::MLIRContext *context, llvm::ArrayRef<int64_t> shape,
                                     mlir::Type element) {
  return mlir::MemRefType::get(
      shape, element, mlir::AffineMap(),
      mlir::gpu::AddressSpaceAttr::get(context, mlir::gpu::AddressSpace::Workgroup));
}

KernelArguments::KernelArguments(const KernelSpec &spec, mlir::gpu::GPUFuncOp func) {
  unsigned next = 0;
  for (const KernelOperand &operand : kernelOperands(spec))
    byName_[operand.name] = func.getArgument(next++);
  for (const ScalarArg &arg : kernelScalarArgs(spec))
    byName_[arg.name] = func.getArgument(next++);
}

mlir::MemRefType KernelArguments::bufferType(llvm::StringRef name) const {
  return llvm::cast<mlir::MemRefType>(get(name).getType());
}

mlir::Value rowStridedView(mlir::ImplicitLocOpBuilder &b, mlir::Value buffer, mlir::Value rows,
                           mlir::Value stride) {
  auto type = llvm::cast<mlir::MemRefType>(buffer.getType());
  const int64_t dynamic = mlir::ShapedType::kDynamic;
  auto layout = mlir::StridedLayoutAttr::get(b.getContext(), 0, {dynamic, 1});
  auto viewType =
      mlir::MemRefType::get({dynamic, type.getDimSize(1)}, type.getElementType(), layout);
  llvm::SmallVector<mlir::OpFoldResult, 2> sizes{rows, b.getIndexAttr(type.getDimSize(1))};
  llvm::SmallVector<mlir::OpFoldResult, 2> strides{stride, b.getIndexAttr(1)};
  return mlir::memref::ReinterpretCastOp::create(b, viewType, buffer, b.getIndexAttr(0), sizes,
                                                 strides);
}

} // namespace mxf
