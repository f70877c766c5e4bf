//===- block_sink.h - The store stage of the rotating quantizer -*- C++ -*-===//
//
// The rotation stage (rotation_stage.h) finishes one 32-channel scale block
// of the lane's row at a time: the lane's 8 values of it, in the MFMA result
// layout or contiguous. What happens next is the family's: quantize it and
// store codes and scale to global memory (global_store.h: rotate_quant,
// quant_weight), scatter the scale to the sorted rows (rotate_quant_moe),
// put codes and scales, or the bf16 values, into a GEMM's LDS tile
// (rotate_quant_gemm). Each is a BlockSink; the rotation stage never knows
// which one it feeds.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_BLOCK_SINK_H
#define MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_BLOCK_SINK_H

#include "templates/common/code_writer.h"

#include "mlir/IR/Value.h"

namespace mxf {

/// One scale block of the lane's row, rotated (or loaded, without rotation).
struct FinishedBlock {
  mlir::Value scaleBlock; // index: the block of the row (K/32 per row)
  /// vector<4xf32> each: channels 4g..4g+3 and 16+4g..16+4g+3 of the block
  /// (LaneChannels::MfmaTiles), or 8g..8g+3 and 8g+4..8g+7 (Contiguous).
  mlir::Value tile0, tile1;
  LaneChannels channels;
};

class BlockSink {
public:
  virtual ~BlockSink() = default;
  virtual void emitBlock(const FinishedBlock &block) = 0;
};

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_BLOCK_SINK_H
