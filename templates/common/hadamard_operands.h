//===- hadamard_operands.h - Sylvester Hadamard MFMA operands from lane bits -*- C++ -*-===//
//
// The A operands of v_mfma_f32_16x16x32_bf16 for a Hadamard rotation,
// computed in registers from the lane's bits (no table, no popcounts), and
// the exact sign flips that turn one tile's operand into another's. Any
// template that multiplies by H_RS on the matrix cores (dense, MoE, GEMM
// activations, weights) uses these; docs/templates.md has the lane mapping.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_HADAMARD_OPERANDS_H
#define MXFORGE_TEMPLATES_COMMON_HADAMARD_OPERANDS_H

#include "templates/common/ir_builder.h"

#include "numerics/formats.h"
#include "numerics/rotation.h"

namespace mxf {

class HadamardOperands : private IrBuilder {
public:
  /// `lane`: the lane index (0..63), `group`: lane / 16 (index values).
  HadamardOperands(mlir::ImplicitLocOpBuilder &b, Value lane, Value group, int rotationSize)
      : IrBuilder(b), lane(lane), group(group), rotationSize_(rotationSize) {}

  /// The sign bits of both bf16 halves of an i32.
  static constexpr int32_t kPairSigns = int32_t(0x80008000u);

  /// This lane's A operand of tile 0 of Sylvester's Hadamard matrix,
  /// computed in registers: H[in][out] = (-1)^parity(in & out) *
  /// bf16(1/sqrt(RS)) (numerics hadamardMatrixBf16) for in = 8g + t
  /// (t = 0..7) and out = l%16, as four i32 words of two bf16 each.
  ///
  /// Why not popcount per element: that is ~80 instructions per kernel
  /// (a third of an RS=64 kernel) and the compile time that goes with
  /// them. With out = 8 b3 + o (o = l%8, b3 = bit 3 of l):
  ///   parity((8g + t) & out) = (g & b3 & 1) ^ parity(t & o),
  /// and for the pair t = 2i, 2i+1 of word i,
  ///   parity(2i & o) = parity(i & (o >> 1)), parity((2i+1) & o) = that ^ (o & 1).
  /// So word i is the magnitude pair with the high half's sign set by bit 0
  /// of o, both signs flipped by f = g & b3 & 1, and both flipped again by
  /// bit 1 of o (i = 1, 3) and by bit 2 of o (i = 2, 3): a dozen
  /// instructions.
  Value tileZero() {
    const uint32_t magnitude = f32ToBf16(hadamardNormF32(rotationSize_));
    Value laneI32 = mlir::arith::IndexCastOp::create(b, b.getI32Type(), lane);
    auto laneBit = [&](int bit) {
      return mlir::arith::AndIOp::create(b, mlir::arith::ShRUIOp::create(b, laneI32, i32(bit)), i32(1));
    };
    // 0 or kPairSigns, from a bit (0 or 1).
    auto pairSignsIf = [&](Value bit) { return mul(bit, i32(kPairSigns)); };
    Value highSign = mlir::arith::ShLIOp::create(b, laneBit(0), i32(31));
    Value base = mlir::arith::OrIOp::create(b, highSign, i32(int32_t(magnitude | magnitude << 16)));
    Value flip = mlir::arith::AndIOp::create(b, laneBit(3), laneBit(4)); // b3 & (g & 1)
    Value word0 = mlir::arith::XOrIOp::create(b, base, pairSignsIf(flip));
    Value word1 = mlir::arith::XOrIOp::create(b, word0, pairSignsIf(laneBit(1)));
    Value bit2Signs = pairSignsIf(laneBit(2));
    Value word2 = mlir::arith::XOrIOp::create(b, word0, bit2Signs);
    Value word3 = mlir::arith::XOrIOp::create(b, word1, bit2Signs);
    Value words = mlir::vector::FromElementsOp::create(b, mlir::VectorType::get({4}, b.getI32Type()),
                                                 mlir::ValueRange{word0, word1, word2, word3});
    return mlir::vector::BitCastOp::create(b, mlir::VectorType::get({8}, b.getBF16Type()), words);
  }

  /// The signs (kPairSigns or 0) that turn tile 0's Hadamard operand
  /// into tile 1's: bit 4 of out = 16 + l%16 meets bit 4 of 8g + t, which is
  /// g >= 2.
  Value tileOneSigns() {
    return mlir::arith::SelectOp::create(b, cmp(mlir::arith::CmpIPredicate::uge, group, idx(2)),
                                   i32(kPairSigns), i32(0));
  }

  /// Flips the sign bit of every bf16 element (exact negation).
  Value negate(Value v) {
    auto v8i16 = mlir::VectorType::get({8}, b.getI16Type());
    Value bits = mlir::vector::BitCastOp::create(b, v8i16, v);
    auto signs = mlir::arith::ConstantOp::create(
        b, mlir::DenseElementsAttr::get(v8i16, llvm::APInt(16, 0x8000)));
    return mlir::vector::BitCastOp::create(b, v.getType(), mlir::arith::XOrIOp::create(b, bits, signs));
  }

  /// v with every bf16 sign bit flipped where `mask` (i32, 0 or
  /// kPairSigns) has it: an exact negation, or v itself.
  Value flipSigns(Value v, Value mask) {
    auto v4i32 = mlir::VectorType::get({4}, b.getI32Type());
    Value bits = mlir::vector::BitCastOp::create(b, v4i32, v);
    Value masks = mlir::vector::BroadcastOp::create(b, v4i32, mask);
    return mlir::vector::BitCastOp::create(b, v.getType(), mlir::arith::XOrIOp::create(b, bits, masks));
  }


private:
  Value lane, group;
  int rotationSize_;
};

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_HADAMARD_OPERANDS_H
