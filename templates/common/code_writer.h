//===- code_writer.h - Storing packed fp4 codes: row-major or preshuffled -*- C++ -*-===//
//
// Where the code bytes of one (row, 32-channel scale block) go. A block's 32
// fp4 codes are 16 bytes in every layout we write: row-major ([rows, K/2],
// the block at byte 16j of its row), or AITER's shuffle_weight(layout=(16,16))
// (numerics weightIndex16x16), where the view (n/16, 16, kBytes/32, 2, 16)
// puts byte (row, 16j + c) at
//   (row/16)*16*kBytes + (j/2)*512 + (j%2)*256 + (row%16)*16 + c
//   = (row/16)*16*kBytes + (row%16)*16 + 256*j + c,
// so a block stays 16 contiguous bytes there too and the kernel's two 2-byte
// stores per block are the same instructions at another address. As in
// ScaleWriter, the row's part of the index is computed once per lane.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_COMMON_CODE_WRITER_H
#define MXFORGE_TEMPLATES_COMMON_CODE_WRITER_H

#include "templates/common/ir_builder.h"

#include "numerics/options.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mxf {

class CodeWriter : private IrBuilder {
public:
  /// `codes`: the [rows, K/2] i8 code buffer (a static memref or a row-strided
  /// view; preshuffled codes are dense by definition, so only a static one);
  /// `row`: this lane's row (index).
  CodeWriter(mlir::ImplicitLocOpBuilder &b, WeightLayout layout, Value codes, Value row)
      : IrBuilder(b), layout(layout), q(codes), row(row) {
    if (layout == WeightLayout::Preshuffle16x16)
      preparePreshuffledRow();
  }

  /// Stores a lane's 4 code bytes (vector<4xi8>) of scale block `scaleBlock`
  /// (index) of the row: the codes of channels 4g..4g+3 are the block's bytes
  /// 2g, 2g+1, those of 16+4g..16+4g+3 its bytes 8+2g, 8+2g+1 (g = `group`,
  /// lane/16).
  void storeLaneCodes(Value scaleBlock, Value group, Value bytes) {
    if (layout == WeightLayout::Plain) {
      Value base = add(mulBy(scaleBlock, 16), mulBy(group, 2));
      mlir::vector::StoreOp::create(b, slice(bytes, 0, 2), q, mlir::ValueRange{row, base});
      mlir::vector::StoreOp::create(b, slice(bytes, 2, 2), q,
                                    mlir::ValueRange{row, add(base, idx(8))});
      return;
    }
    Value base = add(add(rowOffset, mulBy(scaleBlock, 256)), mulBy(group, 2));
    mlir::vector::StoreOp::create(b, slice(bytes, 0, 2), flatCodes, mlir::ValueRange{base});
    mlir::vector::StoreOp::create(b, slice(bytes, 2, 2), flatCodes,
                                  mlir::ValueRange{add(base, idx(8))});
  }

private:
  void preparePreshuffledRow() {
    llvm::SmallVector<mlir::ReassociationIndices, 1> bothDims{{0, 1}};
    flatCodes = mlir::memref::CollapseShapeOp::create(b, q, bothDims);
    const int64_t rowBytes = llvm::cast<mlir::MemRefType>(q.getType()).getDimSize(1);
    rowOffset = add(mulBy(divBy(row, 16), 16 * rowBytes), mulBy(remBy(row, 16), 16));
  }

  WeightLayout layout;
  Value q, row;
  Value flatCodes, rowOffset; // preshuffle_16x16 only
};

} // namespace mxf

#endif // MXFORGE_TEMPLATES_COMMON_CODE_WRITER_H
