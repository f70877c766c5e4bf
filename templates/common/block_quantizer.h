//===- block_quantizer.h - One 32-element MX block: scale and fp4 codes -*- C++ -*-===//
//
// The quantization every template ends in, for one 32-channel scale block
// held in the MFMA result layout (lane t, t+16, t+32, t+48 hold one token's
// 32 values, 8 each as two vector<4xf32>): the optional bf16 rounding of
// the intermediate, the NaN-propagating block maximum (in-lane, then xor 16
// and xor 32 across lanes), the E8M0 scale by the spec's rule
// (scale_rule_ir.h, the IR twin of numerics/), and the fp4 codes through
// v_cvt_scalef32_pk_fp4_f32. Storing them is the template's business.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_BLOCK_QUANTIZER_H
#define MXFORGE_TEMPLATES_COMMON_BLOCK_QUANTIZER_H

#include "templates/common/ir_builder.h"
#include "templates/common/scale_rule_ir.h"

#include "spec/kernel_spec.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace mxf {

struct QuantizedBlock {
  mlir::Value bytes;     // vector<4xi8>: this lane's 8 codes, two per byte
  mlir::Value scaleByte; // i32: the block's E8M0 byte (the same in all four lanes)
};

class BlockQuantizer : private IrBuilder {
public:
  BlockQuantizer(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec) : IrBuilder(b), spec(spec) {}

  /// tile0/tile1: this lane's channels 4g..4g+3 and 16+4g..16+4g+3 of the
  /// block (g = lane / 16), as vector<4xf32>.
  QuantizedBlock quantize(Value tile0, Value tile1) {
    constexpr int kLanes = 64;
    auto v4f32 = mlir::VectorType::get({4}, b.getF32Type());
    if (spec.inter == Intermediate::Bf16) {
      auto v4bf16 = mlir::VectorType::get({4}, b.getBF16Type());
      Value rounded0 = mlir::arith::TruncFOp::create(b, v4bf16, tile0);
      Value rounded1 = mlir::arith::TruncFOp::create(b, v4bf16, tile1);
      tile0 = mlir::arith::ExtFOp::create(b, v4f32, rounded0);
      tile1 = mlir::arith::ExtFOp::create(b, v4f32, rounded1);
    }
    // amax: NaN-propagating maximum of |v| (numerics blockAmax).
    Value absMax = mlir::arith::MaximumFOp::create(b, mlir::math::AbsFOp::create(b, tile0),
                                                   mlir::math::AbsFOp::create(b, tile1));
    Value amax =
        mlir::vector::ReductionOp::create(b, mlir::vector::CombiningKind::MAXIMUMF, absMax);
    for (int distance : {16, 32}) {
      auto shuffle = mlir::gpu::ShuffleOp::create(b, amax, distance, kLanes,
                                                  mlir::gpu::ShuffleMode::XOR);
      amax = mlir::arith::MaximumFOp::create(b, amax, shuffle.getShuffleResult());
    }
    Value scaleByte = emitScaleByte(b, spec.scale, spec.fmt, amax);
    // v_cvt_scalef32_* read the scale from bits [30:23] of an f32.
    Value scale = mlir::arith::BitcastOp::create(
        b, b.getF32Type(), mlir::arith::ShLIOp::create(b, scaleByte, i32(23)));

    auto packedType = mlir::VectorType::get({8}, b.getType<mlir::Float4E2M1FNType>());
    Value packed;
    Value halves[4] = {slice(tile0, 0, 2), slice(tile0, 2, 2), slice(tile1, 0, 2),
                       slice(tile1, 2, 2)};
    for (int byte = 0; byte < 4; ++byte)
      packed = mlir::amdgpu::PackedScaledTruncOp::create(b, packedType, halves[byte], scale,
                                                         uint32_t(byte), packed);
    Value bytes = mlir::vector::BitCastOp::create(
        b, mlir::VectorType::get({4}, b.getI8Type()), packed);
    return {bytes, scaleByte};
  }

private:
  const KernelSpec &spec;
};

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_BLOCK_QUANTIZER_H
