//===- ir_builder.h - Small IR helpers every template uses --------*- C++ -*-===//
//
// Index arithmetic (powers of two as shifts and masks), scf.if bodies,
// vector slices, loop annotations and fences, on an ImplicitLocOpBuilder.
// Header-only: every template is one MLIR-heavy translation unit, and these
// are its vocabulary.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_IR_BUILDER_H
#define MXFORGE_TEMPLATES_COMMON_IR_BUILDER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <cstdint>
#include <functional>

namespace mxf {

/// A row given as its 16-row group and its row in the group: where the
/// group is wave-uniform (a workgroup id, a uniform loop counter) and the
/// row in the group is the lane's, the tiled layouts' row offsets are a
/// uniform sum (scalar ALU) plus a lane term (CodeWriter, ScaleWriter).
struct GroupedRow {
  mlir::Value group, inGroup;
};

class IrBuilder {
public:
  explicit IrBuilder(mlir::ImplicitLocOpBuilder &b) : b(b) {}

protected:
  using Value = mlir::Value;

  Value idx(int64_t v) { return mlir::arith::ConstantIndexOp::create(b, v); }
  Value i32(int64_t v) { return mlir::arith::ConstantIntOp::create(b, b.getI32Type(), v); }
  Value cmp(mlir::arith::CmpIPredicate p, Value a, Value c) { return mlir::arith::CmpIOp::create(b, p, a, c); }
  Value add(Value a, Value c) { return mlir::arith::AddIOp::create(b, a, c); }
  Value mul(Value a, Value c) { return mlir::arith::MulIOp::create(b, a, c); }

  // a * c, a / c and a % c (unsigned) for a constant c > 0. Every constant
  // the kernels scale, divide or reduce by is a power of two but a4w4's
  // padded scale columns; those become shifts and masks here, so that
  // LLVM's InstCombine does not have to find them (it runs eight times in
  // O3 and is its costliest pass).
  static bool isPowerOfTwo(int64_t c) { return c > 0 && (c & (c - 1)) == 0; }
  static int64_t log2Of(int64_t c) { return __builtin_ctzll(uint64_t(c)); }
  Value mulBy(Value a, int64_t c) {
    if (c == 1)
      return a;
    if (isPowerOfTwo(c))
      return mlir::arith::ShLIOp::create(b, a, idx(log2Of(c)));
    return mul(a, idx(c));
  }
  Value divBy(Value a, int64_t c) {
    if (c == 1)
      return a;
    if (isPowerOfTwo(c))
      return mlir::arith::ShRUIOp::create(b, a, idx(log2Of(c)));
    return mlir::arith::DivUIOp::create(b, a, idx(c));
  }
  /// `v` (VGPRs), pinned where it is computed: an empty inline asm with
  /// side effects, which LLVM may not move, takes it and gives it back.
  /// Why: LLVM 22's machine sinking moves an MFMA whose only use sits in a
  /// divergent branch into that branch (the MFMA instruction is not marked
  /// convergent there), together with the VALU that computes its operands;
  /// those then run for the branch's lanes only, and the MFMA, which reads
  /// every lane whatever EXEC is, multiplies stale registers of the others.
  /// A GEMM with a single K slice and chain stored its accumulator under
  /// `row < m` that way (issue 13; the lit test gemm-stages.test guards it).
  Value pinnedInPlace(Value v) {
    return mlir::LLVM::InlineAsmOp::create(b, v.getType(), mlir::ValueRange{v}, "", "=v,0",
                                           /*has_side_effects=*/true, /*is_align_stack=*/false,
                                           mlir::LLVM::tailcallkind::TailCallKind::None,
                                           mlir::LLVM::AsmDialectAttr(), mlir::ArrayAttr())
        .getResult(0);
  }

  /// `offset` (index) as a value known to fit 32 bits: truncated and
  /// zero-extended back. `index` lowers to i64, so addresses are otherwise
  /// 64-bit VGPR pairs; from zext(i32) LLVM narrows the arithmetic that
  /// feeds it to 32 bits and addresses global memory as an SGPR base plus
  /// a 32-bit VGPR offset. Only for offsets into one buffer (< 4 GiB).
  Value offset32(Value offset) {
    Value narrow = mlir::arith::IndexCastUIOp::create(b, b.getI32Type(), offset);
    return mlir::arith::IndexCastUIOp::create(b, b.getIndexType(), narrow);
  }

  Value remBy(Value a, int64_t c) {
    if (isPowerOfTwo(c))
      return mlir::arith::AndIOp::create(b, a, idx(c - 1));
    return mlir::arith::RemUIOp::create(b, a, idx(c));
  }

  void ifThen(Value condition, const std::function<void()> &body) {
    auto op = mlir::scf::IfOp::create(b, condition, /*withElseRegion=*/false);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&op.getThenRegion().front());
    body();
  }

  /// scf.if with one result of `type`: what `thenValue` builds when
  /// `condition` holds, else what `elseValue` builds (each in its region).
  /// A branch, not a select: a wave whose lanes all take one side skips the
  /// other (a load that must not run, a search that need not).
  Value ifElseValue(Value condition, mlir::Type type, const std::function<Value()> &thenValue,
                    const std::function<Value()> &elseValue) {
    auto op = mlir::scf::IfOp::create(b, mlir::TypeRange{type}, condition,
                                      /*withElseRegion=*/true);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&op.getThenRegion().front());
    mlir::scf::YieldOp::create(b, mlir::ValueRange{thenValue()});
    b.setInsertionPointToStart(&op.getElseRegion().front());
    mlir::scf::YieldOp::create(b, mlir::ValueRange{elseValue()});
    return op.getResult(0);
  }

  void ifElse(Value condition, const std::function<void()> &thenBody,
              const std::function<void()> &elseBody) {
    auto op = mlir::scf::IfOp::create(b, condition, /*withElseRegion=*/true);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&op.getThenRegion().front());
    thenBody();
    b.setInsertionPointToStart(&op.getElseRegion().front());
    elseBody();
  }


  /// Asks LLVM not to unroll or vectorize `loop`. O3 otherwise fully
  /// unrolls short constant-trip loops and schedules every iteration's loads
  /// together, which is what the loop was written to avoid; and its loop
  /// vectorizer turns a loop of 8 iterations into one "vector" iteration of
  /// scalarized stores, which is the same unrolling by another name (the MoE
  /// padding rows' 64 scale stores, docs/compiler.md). The attribute's value
  /// is an LLVM dialect attribute, so convert-scf-to-cf moves it onto the
  /// loop's back edge and the cf-to-llvm lowering makes it that llvm.br's
  /// inherent `loop_annotation` (hence this name, without a dialect prefix),
  /// which becomes `!llvm.loop` metadata.
  void keepRolled(mlir::scf::ForOp loop) {
    mlir::MLIRContext *ctx = b.getContext();
    mlir::BoolAttr yes = b.getBoolAttr(true);
    auto unroll = mlir::LLVM::LoopUnrollAttr::get(ctx, /*disable=*/yes, {}, {}, {}, {}, {}, {});
    auto vectorize = mlir::LLVM::LoopVectorizeAttr::get(ctx, /*disable=*/yes, {}, {}, {}, {}, {}, {});
    loop->setAttr("loop_annotation",
                  mlir::LLVM::LoopAnnotationAttr::get(ctx, {}, vectorize, {}, unroll, {}, {}, {},
                                                      {}, {}, {}, {}, {}, {}, {}, {}));
  }

  /// Elements [offset, offset + size) of a 1-D vector. A vector.shuffle
  /// rather than extract_strided_slice: convert-gpu-to-rocdl lowers shuffles
  /// itself, so no separate vector-to-llvm pass has to run before the
  /// workgroup address space is mapped.
  Value slice(Value v, int64_t offset, int64_t size) {
    llvm::SmallVector<int64_t, 4> mask;
    for (int64_t i = 0; i < size; ++i)
      mask.push_back(offset + i);
    return mlir::vector::ShuffleOp::create(b, v, v, mask);
  }

  /// Orders this lane's LDS accesses for the compiler (emitWaveTransposedUnit).
  void waveFence() {
    mlir::LLVM::FenceOp::create(b, mlir::LLVM::AtomicOrdering::acq_rel, "wavefront");
  }

  Value zeroAccumulator() {
    return mlir::arith::ConstantOp::create(
        b, mlir::DenseElementsAttr::get(mlir::VectorType::get({4}, b.getF32Type()), 0.0f));
  }

  mlir::ImplicitLocOpBuilder &b;
};

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_IR_BUILDER_H
