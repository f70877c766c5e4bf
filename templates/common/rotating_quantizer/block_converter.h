//===- block_converter.h - The scale-and-convert stage ----------*- C++ -*-===//
//
// A finished block (block_sink.h) to its E8M0 scale byte and packed codes by
// the spec's rule and format (BlockQuantizer, templates/common/
// block_quantizer.h), with round=sr's pair indices in numerics' numbering
// (element row * K + channel), so that a sink that quantizes says only where
// the row is.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_BLOCK_CONVERTER_H
#define MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_BLOCK_CONVERTER_H

#include "templates/common/block_quantizer.h"
#include "templates/common/ir_builder.h"
#include "templates/common/rotating_quantizer/block_sink.h"

namespace mxf {

class BlockConverter : private IrBuilder {
public:
  BlockConverter(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec)
      : IrBuilder(b), spec(spec), quantizer(b, spec) {}

  /// round=sr: the seed operand's value (i32, read once).
  void setStochasticSeed(Value seed) { quantizer.setStochasticSeed(seed); }

  /// `block` of row `row` (index), the lane's group g = lane / 16 (index).
  QuantizedBlock convert(const FinishedBlock &block, Value row, Value group) {
    return quantizer.quantize(block.tile0, block.tile1,
                              stochasticPairs(block.scaleBlock, block.channels, row, group));
  }

private:
  /// round=sr: the pair indices of this lane's two pieces of block
  /// `scaleBlock` of `row` (numerics: element row * K + channel): pieces at
  /// channels 4g and 16 + 4g (MFMA tiles) or 8g and 8g + 4 (contiguous).
  StochasticPairs stochasticPairs(Value scaleBlock, LaneChannels channels, Value row,
                                  Value group) {
    namespace arith = mlir::arith;
    if (spec.round != Rounding::Sr)
      return {};
    Value rowI32 = arith::IndexCastOp::create(b, b.getI32Type(), row);
    Value blockI32 = arith::IndexCastOp::create(b, b.getI32Type(), scaleBlock);
    Value groupI32 = arith::IndexCastOp::create(b, b.getI32Type(), group);
    const bool tiles = channels == LaneChannels::MfmaTiles;
    Value first = arith::AddIOp::create(
        b,
        arith::AddIOp::create(b, arith::MulIOp::create(b, rowI32, i32(spec.K / 2)),
                              arith::MulIOp::create(b, blockI32, i32(16))),
        arith::MulIOp::create(b, groupI32, i32(tiles ? 2 : 4)));
    return {first, arith::AddIOp::create(b, first, i32(tiles ? 8 : 2))};
  }

  const KernelSpec &spec;
  BlockQuantizer quantizer;
};

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_BLOCK_CONVERTER_H
