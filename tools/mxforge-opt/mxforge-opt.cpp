//===- mxforge-opt.cpp - mlir-opt with the mxf dialect ---------------------===//
//
// Parses, verifies, transforms and prints mxf IR and everything it is lowered
// to (func, arith, memref, vector, scf, cf, gpu, amdgpu, rocdl, llvm, math).
// Used by the lit tests and by anyone reading what a template produces:
//   mxforge-opt kernel.mlir --canonicalize --cse
//   mxforge-opt kernel.mlir --verify-diagnostics --split-input-file
//
//===----------------------------------------------------------------------===//

#include "dialects/mxf/mxf_api.h"
#include "tools/mxforge-opt/mxforge_passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mxf::registerMxforgePasses();

  mlir::DialectRegistry registry;
  mxf::registerMxfDialect(registry);
  // What the templates lower mxf ops to, and what that lowers to in turn
  // (index and ub appear in vector and gpu lowerings).
  registry.insert<mlir::amdgpu::AMDGPUDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect, mlir::gpu::GPUDialect,
                  mlir::index::IndexDialect, mlir::LLVM::LLVMDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::ROCDL::ROCDLDialect, mlir::scf::SCFDialect,
                  mlir::ub::UBDialect, mlir::vector::VectorDialect>();
  // The ConvertToLLVM interfaces and the other dialect extensions: without
  // them convert-gpu-to-rocdl leaves unrealized casts behind (TOOLCHAIN.md).
  mlir::registerAllExtensions(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mxforge-opt: the mxf dialect and its lowering\n", registry));
}
