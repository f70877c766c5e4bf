//===- global_store.h - The store stage into global memory ------*- C++ -*-===//
//
// The sink of rotate_quant and quant_weight: each finished block is
// quantized (block_converter.h) and its codes and scale stored to the rows
// of q and s in the spec's layouts (plain or weight-layout codes, plain or
// a4w4-shuffled scales, AITER's A6W6 tiles), and the padding the layouts
// have is filled: a4w4's scale rows up to pad256(m) and columns up to
// pad8(K/32), the A6W6 tiles' rows, blocks and guard tiles.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_GLOBAL_STORE_H
#define MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_GLOBAL_STORE_H

#include "templates/common/code_writer.h"
#include "templates/common/ir_builder.h"
#include "templates/common/kernel_arguments.h"
#include "templates/common/rotating_quantizer/block_converter.h"
#include "templates/common/rotating_quantizer/block_sink.h"
#include "templates/common/rotating_quantizer/tiling.h"
#include "templates/common/scale_writer.h"

#include <optional>

namespace mxf {

/// The lane's output row, as the body that owns the row sets it up.
struct StoredRow {
  mlir::Value row;          // index: the row of q and s
  mlir::Value rowValid;     // i1: a row below m (its codes and scale are stored)
  mlir::Value rowInPadding; // i1, or null: a padding row the kernel fills
  mlir::Value group;        // g = lane / 16
  mlir::Value isGroupZero;  // i1: the lane that stores the row's scale bytes
  std::optional<CodeWriter> codes;
  std::optional<ScaleWriter> scales;
};

class GlobalStore final : public BlockSink, private IrBuilder {
public:
  /// `q`, `s`: the output operands (q as the body views it).
  GlobalStore(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec, const KernelTiling &tiling,
              const KernelArguments &args, BlockConverter &converter, StoredRow &target)
      : IrBuilder(b), spec(spec), tiling(tiling), args(args), converter(converter),
        target(target) {}

  void emitBlock(const FinishedBlock &block) override;

  /// a4w4_shuffle with K/32 not a multiple of 8: the shuffled rows have
  /// columns past K/32 (padded to 8), which hold the padding byte. The wave
  /// of the last unit writes them for every row it visits (its rows and the
  /// padding rows up to pad256(m)), before anything that may leave early.
  /// The A6W6 tiles' own padding is emitA6W6ColumnPadding's.
  void emitScaleColumnPadding(Value unit);
  /// The scale bytes of one unit's blocks for rows in [M, pad256(M)).
  void emitPaddingOnlyUnit(Value unit);
  /// The A6W6 tiles' 16-row groups of [ceil16(m), pad256(m)): `q`, `s` the
  /// output operands, `rowTile` the workgroup's, `mIndex` the rows (index),
  /// `token` the lane's row in the tile.
  void emitA6W6PaddingRows(Value unit, Value token, Value q, Value s, Value rowTile,
                           Value mIndex);

private:
  void emitA6W6PaddingBlockOfKTile(Value kTile, CodeWriter &codeWriter, ScaleWriter &scaleWriter);
  Value waveUniform(Value value);
  void emitA6W6ColumnPadding(Value unit);
  Value zeroCodeBytes();

  static constexpr int kTileRows = 16;

  const KernelSpec &spec;
  const KernelTiling &tiling;
  const KernelArguments &args;
  BlockConverter &converter;
  StoredRow &target;
};

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_ROTATING_QUANTIZER_GLOBAL_STORE_H
