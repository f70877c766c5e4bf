//===- mxf_dialect.h - The mxf dialect: its kernel ops ------------*- C++ -*-===//
//
// The IR classes of the mxf dialect (namespace mxf::dialect): MxfDialect and
// one kernel op per family (RotateQuantOp, ..., made from
// templates/families.def), each holding its canonical spec text and its
// buffers. Heavy: it pulls in MLIR's op machinery. Code that only builds or
// inspects modules through a KernelSpec includes dialects/mxf/mxf_api.h
// instead.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_DIALECTS_MXF_MXF_DIALECT_H
#define MXFORGE_DIALECTS_MXF_MXF_DIALECT_H

#include "spec/kernel_spec.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "dialects/mxf/mxf_dialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/mxf/mxf_ops.h.inc"

#endif // MXFORGE_DIALECTS_MXF_MXF_DIALECT_H
