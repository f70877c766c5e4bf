//===- row_sorter.h - The row sorter in front of the MoE quantizer -*- C++ -*-===//
//
// rotate_quant_moe sorts its routed rows (AITER's moe_sorting) before it
// quantizes them and scatters every scale byte to the sorted rows of its
// input row (moe_body.cpp). The body sees the sort through this interface
// (MoeSortEmitter implements it, moe_sorter.h makes one), so that the IR of
// the sort and the body's use of it stay apart.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_ROW_SORTER_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_ROW_SORTER_H

#include "spec/kernel_spec.h"

#include "mlir/IR/Value.h"

#include <memory>
#include <utility>

namespace mlir {
class ImplicitLocOpBuilder;
} // namespace mlir

namespace mxf {

class KernelArguments;

class RowSorter {
public:
  virtual ~RowSorter() = default;
  /// The sort, by every thread of the workgroup (it may hold barriers).
  /// `tile`: this workgroup's 16-token tile (block id y); `m`: the launch's
  /// tokens; both index.
  virtual void emitSort(mlir::Value tid, mlir::Value tile, mlir::Value m) = 0;
  /// The sorted row (index) of tile entry `entry` (index) and whether it
  /// has one (i1).
  virtual std::pair<mlir::Value, mlir::Value> sortedRowOf(mlir::Value entry) = 0;
  /// Stores scale byte `byte` (i8) of block `scaleBlock` into sorted row `row`.
  virtual void storeScale(mlir::Value row, mlir::Value scaleBlock, mlir::Value byte) = 0;
};

/// What a sorter is made from: the builder, the spec, the kernel's
/// arguments, the workgroup's i32 buffer of the family's front-end LDS
/// (QuantizerFamily::frontLdsBytes), the threads of a workgroup and the
/// grid's x extent.
struct RowSorterSetup {
  mlir::ImplicitLocOpBuilder &b;
  const KernelSpec &spec;
  const KernelArguments &args;
  mlir::Value lds;
  int threads;
  int gridX;
};
using RowSorterFactory = std::unique_ptr<RowSorter> (*)(const RowSorterSetup &setup);

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_ROW_SORTER_H
