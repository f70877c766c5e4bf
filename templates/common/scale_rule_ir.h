//===- scale_rule_ir.h - E8M0 scale rules as arith IR ------------*- C++ -*-===//
//
// The device twin of numerics/scale_rules.cpp: the same bit arithmetic,
// emitted as arith ops on the f32 block maximum. Keeping the two side by side
// (same rule, same order of cases) is what lets the emulated kernel match the
// reference bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_SCALE_RULE_IR_H
#define MXFORGE_TEMPLATES_SCALE_RULE_IR_H

#include "numerics/formats.h"
#include "numerics/scale_rules.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Value.h"

namespace mxf {

/// The scale byte (as i32, 0..255) for block maximum `amax` (f32, >= 0 or NaN).
mlir::Value emitScaleByte(mlir::ImplicitLocOpBuilder &b, ScaleRule rule, ElemFormat format,
                          mlir::Value amax);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_SCALE_RULE_IR_H
