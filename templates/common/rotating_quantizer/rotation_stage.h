//===- rotation_stage.h - Load and rotate: the rotating quantizer's core -*- C++ -*-===//
//
// The stage every quantizing family shares: load a lane's bf16 of its row
// (rows, blocks, row strides: the family says which row, readFrom/setLoadRow),
// rotate each RS block on the matrix cores (Hadamard from lane bits, a
// learned R staged whole or in slices through LDS, a per-block R gathered or
// transposed through each wave's LDS, the f32 butterfly at RS=32), and hand
// each finished 32-channel scale block to the family's sink (block_sink.h),
// which converts (block_converter.h) and stores it. Without rotation (RS=0)
// the blocks are loaded in the layout the rotation would leave them in, so
// the sinks are the same.
//
// Lane mapping (docs/templates.md; GFX950_SEMANTICS C8): each wave computes
// y^T = R^T . x^T for 16 tokens with v_mfma_f32_16x16x32_bf16:
//   B operand: lane l holds token l%16, input channels 8(l/16)..+7 of a
//              32-channel chunk: one 16-byte load of a row of x.
//   A operand: lane l holds output channel l%16 of the tile, the same input
//              channels: a column of R (computed in registers for Hadamard,
//              read transposed from LDS for a learned R and, from RS=64 on,
//              for a per-block R; gathered from global memory for smaller
//              per-block R).
//   D:         lane l, register r: token l%16, output channel 4(l/16)+r.
// Two D tiles cover one 32-channel scale block: a token's 32 values sit in
// lanes t, t+16, t+32, t+48 (8 each).
//
// Summation order (numerics/rotation.h): each output channel's chain of
// MFMAs runs over the 32-channel input chunks in ascending order starting
// from +0, one MFMA per chunk, which is the reference's chunk = 32 model.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_ROTATION_STAGE_H
#define MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_ROTATION_STAGE_H

#include "templates/common/hadamard_operands.h"
#include "templates/common/ir_builder.h"
#include "templates/common/rotating_quantizer/block_sink.h"
#include "templates/common/rotating_quantizer/tiling.h"

#include "spec/kernel_spec.h"

#include "llvm/ADT/SmallVector.h"

#include <array>
#include <functional>
#include <optional>

namespace mxf {

/// What a wave holds for the rotation block it computes.
struct RotatedUnit {
  mlir::Value unit;         // the rotation block (index into K/RS)
  mlir::Value blockBase;    // its first channel
  mlir::Value groupChannel; // 8(l/16): this lane's first input channel of a chunk
  mlir::Value tokenInTile;  // l%16
  /// One vector<8xbf16> of x per 32-channel input chunk (empty when the
  /// chunks loop and load x themselves).
  llvm::SmallVector<mlir::Value, 8> xChunks;
  /// rot=hadamard, unrolled output blocks: this lane's operand of each
  /// tile, [tile][0], and its negation, [tile][1].
  mlir::Value hadamard[2][2];
  /// rot=hadamard, output-block loop: this lane's operand of tile 0 of
  /// output block 0, and the signs (HadamardOperands::kPairSigns or 0) that turn it into
  /// tile 1's.
  mlir::Value hadamardBase, hadamardTileSigns;
  /// R read through LDS: ldsLaneOffset() plus the start of the current
  /// output block's columns (all of R staged), of its buffer (slices) or
  /// of this wave's piece (learned_per_block). Where output blocks loop it
  /// is carried by the loop: computed from the induction variable instead,
  /// LLVM hoists "lane part + chunk offset" out of the loop once per chunk,
  /// tile and read, each in its own register (8 address VGPRs instead of
  /// 1 at RS=128).
  mlir::Value ldsReadBase;
};

/// rotate_quant_gemm's plain units, loaded whole before they are quantized
/// (the GEMM groups several units' loads; emitPlainUnit interleaves them).
struct PlainUnit {
  mlir::Value unit;
  llvm::SmallVector<std::array<mlir::Value, 2>, 2> tiles; // per block
};

class RotationStage : private IrBuilder {
public:
  /// `r`: the rotation operand (null without a learned R); `lds`: the
  /// workgroup buffer R is staged in (null when the tiling stages none).
  RotationStage(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec, const KernelTiling &tiling,
                Value r, Value lds)
      : IrBuilder(b), spec(spec), tiling(tiling), r(r), lds(lds) {}

  /// Where finished blocks go; set before any unit is emitted.
  void setSink(BlockSink &sink) { this->sink = &sink; }
  /// The bf16 rows (a 2-D memref view) and the row this lane loads (index;
  /// rows past the valid ones load the last valid row, so every load stays
  /// inside x). A family may change the row between units (MoE stage 2).
  void readFrom(Value rows) { x = rows; }
  void setLoadRow(Value row) { loadRow = row; }

  /// Where the lane's bf16 values come from: `count` consecutive channels of
  /// the load row from `channel` on, as vector<count x bf16>. Unset: loaded
  /// from the rows readFrom names. A family whose input is computed from
  /// several arrays (rmsnorm_rotate_quant's normalized row) sets its own;
  /// every rotation kind and the quant-only units read through it.
  using RowSource = std::function<Value(Value channel, int64_t count)>;
  void setRowSource(RowSource source) { rowSource = std::move(source); }
  Value loadRowOfX() const { return loadRow; }

  Value laneId() const { return lane; }
  Value waveId() const { return wave; }
  /// g = lane / 16: which 8 channels of a chunk (and 4 of each tile) the
  /// lane holds.
  Value laneGroup() const { return group; }

  /// The lane's indices every body starts from: lane, wave, g = lane / 16
  /// and the Hadamard operands of its lane bits. Returns l % 16, the lane's
  /// row (token) in a 16-row tile.
  Value setUpLane(Value tid);

  /// One unit of work (RS channels of the wave's 16 rows; 64 or 32 without
  /// rotation) by the spec's rotation.
  void emitUnit(Value unit);

  /// Every thread of the workgroup copies 16-byte pieces of R into LDS; the
  /// barrier comes before any wave may leave (a body must call this in
  /// every wave, past-the-end ones too).
  void emitStageRotation(Value tid);

  /// learned_per_block at RS >= 64 walks the input chunks in a loop
  /// (emitWaveTransposedUnit) and loads x there, per chunk.
  bool loopsOverChunks() const { return tiling.transposesInWaveLds; }

  /// Loads unit `unit`'s x and sets up the lane's rotation operands;
  /// emitRotatedBlocks finishes it (the GEMM loads several units first).
  RotatedUnit prepareUnit(Value unit);

  /// One rotation block of 16 tokens: load the block's x once, then for each
  /// 32-channel output block run two MFMA chains and quantize.
  void emitRotatedUnit(Value unit) { emitRotatedBlocks(prepareUnit(unit)); }

  /// The output blocks of a prepared unit (prepareUnit has loaded its x).
  void emitRotatedBlocks(RotatedUnit u);

  /// rot=learned with R staged in slices: slice o is R's columns
  /// 32o..32o+31 of every row (the A operands of output block o), copied by
  /// the whole workgroup into LDS buffer o%2 ([2][RS][32] bf16, flat). While
  /// output block o is computed from one buffer, slice o+1 is already
  /// loaded into registers; it is written to the other buffer afterwards.
  /// One barrier per block then orders both that write before block o+1's
  /// reads and block o's reads before slice o+2 overwrites the buffer.
  void emitSlicedRotatedUnit(Value unit, Value unitValid, Value tid);

  /// No rotation: 2 scale blocks of 16 tokens; each lane loads the channels
  /// it would hold in the MFMA result layout, so quantization is shared.
  void emitPlainUnit(Value unit);

  /// emitPlainUnit in two halves: every block of the unit loaded, then
  /// each handed to the sink (the GEMM loads several units first).
  PlainUnit loadPlainUnit(Value unit);
  void finishPlainUnit(const PlainUnit &u);

private:
  /// Hands the lane's block to the sink.
  void finish(Value scaleBlock, Value tile0, Value tile1,
              LaneChannels channels = LaneChannels::MfmaTiles) {
    sink->emitBlock({scaleBlock, tile0, tile1, channels});
  }

  // --- operands ------------------------------------------------------------
  /// 8 consecutive bf16 of x's row `loadRow` starting at `channel`.
  Value loadX8(Value channel) { return loadChannels(channel, 8); }
  /// `count` consecutive bf16 of the load row: the row source's, or x's.
  Value loadChannels(Value channel, int64_t count);

  /// rconv=xrt: r holds R[out][in]. A lane's A operand, 8 input channels of
  /// one output channel, is then 8 consecutive elements of a row of r: one
  /// 16-byte LDS read instead of two transposing ones. R is staged as it is
  /// given (rows of r are output channels), so the copies stay 16-byte
  /// pieces; only which rows a slice or piece takes changes.
  bool readsRowsOfR() const { return spec.rconv == RotationConvention::XRt; }

  /// Rows of R (or of a slice or piece of it) in LDS, in elements.
  int64_t ldsPitch() const;

  /// The A operand of input chunk c, `tile`, output block `outBlock` (all
  /// known at build time) from R in LDS, `laneBase` being
  /// RotatedUnit::ldsReadBase.
  Value ldsOperand(Value laneBase, int64_t c, int64_t tile, int64_t outBlock);

  /// How far ldsReadBase moves from one output block to the next.
  int64_t ldsOutBlockStep() const { return readsRowsOfR() ? 32 * ldsPitch() : 32; }

  /// rconv=xrt: 8 consecutive bf16 of R in LDS (ds_read_b128).
  Value rowOperand(Value laneBase, int64_t offset);

  /// A operand from R staged row-major in LDS (flat), with two
  /// ds_read_b64_tr_b16 (GFX950_SEMANTICS C7): lane t of a 16-lane group
  /// points at row in0 + t/4 (+4), columns out0 + 4(t%4)..+3, and receives
  /// column out0 + t of rows in0..in0+3 (in0+4..in0+7). `laneBase` is
  /// RotatedUnit::ldsReadBase (lane part of in0 and out0 included);
  /// `offset` adds the chunk's rows, the tile's columns and an output block
  /// known at build time. A constant added to one base lets every read fold
  /// it into the instruction's offset field.
  Value transposedOperand(Value laneBase, int64_t offset);

  /// Element index in LDS of this lane's first transposed read of chunk 0,
  /// tile 0, output block 0: row 8(l/16) + t/4, column 4(t%4) (t = l%16).
  Value ldsLaneOffset();

  /// A operand of one MFMA for rot=learned_per_block: R_unit[in0 + t][out]
  /// for t = 0..7 (channel indices inside the rotation block), gathered from
  /// global memory as vector<8xbf16>.
  Value gatheredOperand(Value unit, Value in0, Value out);

  /// Up to two output blocks are unrolled. Larger blocks loop, so that the
  /// register allocator sees one block's accumulators and operands live at a
  /// time instead of all of them (RS=256 unrolled needs ~94-150 VGPRs).
  bool loopsOverOutputBlocks() const { return spec.RS / 32 > 2; }

  /// rot=hadamard at RS >= 256 derives every A operand from one vector by
  /// flipping sign bits (prepareUnit says why).
  bool xorsHadamardSigns() const { return spec.RS >= 256; }

  /// The A operand of chunk c of `tile` in output block `outBlock`
  /// (`outBlockConst` when known at build time), for every rotation kind
  /// except the chunk loop of learned_per_block.
  Value rotationOperand(const RotatedUnit &u, int c, int tile, Value outBlock,
                        std::optional<int> outBlockConst);

  /// One 32-channel output block: two MFMA chains (one per 16-channel tile)
  /// over the input chunks in ascending order from +0, then quantize.
  void emitOutputBlock(const RotatedUnit &u, Value outBlock, std::optional<int> outBlockConst);

  /// learned_per_block at RS >= 64. Step s = (output block o, input chunk
  /// c), s = o * chunks + c, multiplies the 32x32 piece
  /// R_unit[32c..+31][32o..+31]: each lane loads two 16-byte pieces of it
  /// and x's chunk c, the wave
  /// writes the pieces to its own 2 KiB of LDS and reads both tiles' A
  /// operands back transposed, as from a staged R. The MFMA chains still run
  /// over the chunks of each output block in ascending order from +0.
  ///
  /// Loads run one step ahead: step s+1's are in flight while step s is
  /// multiplied. Each step's loads take 12 VGPRs (the 16 gathered bf16 of
  /// the direct form take 16 plus x's 4). The chunk loop handles two steps
  /// per iteration so that the values it carries to the next iteration are
  /// loaded after the previous ones died and can share their registers; one
  /// step per iteration needs a copy at the back edge, which waits for the
  /// loads and serialises them again. The chunk loop must stay rolled:
  /// unrolled, O3 would issue every chunk's loads at once (98-125 VGPRs with
  /// the gathered form, 4 waves per SIMD).
  void emitWaveTransposedUnit(const RotatedUnit &u);

  /// parity(c & outBlock) as i1: whether the Hadamard chunk (c, outBlock)
  /// uses the negated operand.
  Value chunkSignFlipped(int c, Value outBlock);

  /// rot=hadamard_butterfly at RS=32: numerics' f32 butterfly (stages h = 1,
  /// 2, 4, 8, 16, each (a, b) -> (a + b, a - b) rounded, then one multiply by
  /// f32(1/sqrt(32))) without the matrix cores. Lane l holds token l%16,
  /// channels 8g..8g+7 of the block (g = l/16, one 16-byte load): stages 1, 2
  /// and 4 stay in the lane; stage 8 pairs lane groups g and g^1 (lanes 16
  /// apart), stage 16 groups g and g^2 (32 apart), through the same cross-lane
  /// swaps the block maximum uses. The lane holding the lower channel keeps
  /// a + b, the other b' = a - b, where a is its partner's value.
  void emitButterflyUnit(Value unit);

  /// This lane's channels 4g..4g+3 and 16+4g..16+4g+3 of scale block
  /// `scaleBlock` of its row, as f32.
  std::array<Value, 2> loadPlainBlock(Value scaleBlock);

  static constexpr int kLanes = 64;
  static constexpr int kTileRows = 16;

  const KernelSpec &spec;
  const KernelTiling &tiling;
  Value r, lds;
  BlockSink *sink = nullptr;
  std::optional<HadamardOperands> hadamard; // once the lane is known
  Value lane, wave, group;
  Value x, loadRow;
  RowSource rowSource;
};

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_ROTATION_STAGE_H
