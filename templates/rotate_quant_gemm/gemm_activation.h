//===- gemm_activation.h - The rotating quantizer as a GEMM's activation side -*- C++ -*-===//
//
// rotate_quant_gemm quantizes its activations with exactly the stages of
// rotate_quant (templates/common/rotating_quantizer/: the rotation on the
// matrix cores, the block converter), so that the GEMM's A side equals the
// reference's rotateQuant bit for bit. Only the store stage is its own: the
// workgroup's 16 rows, one K slice at a time, codes and scales into LDS
// (plain: [16, S/2] and [16, S/32] bytes), or, for the W6A16 GEMM, the
// rotated values as bf16 ([16, S]).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_GEMM_ACTIVATION_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_GEMM_ACTIVATION_H

#include "templates/common/kernel_arguments.h"
#include "templates/common/rotating_quantizer/tiling.h"

#include "spec/kernel_spec.h"

#include "mlir/IR/Value.h"

#include <cstdint>
#include <memory>

namespace mlir {
class ImplicitLocOpBuilder;
namespace gpu {
class GPUFuncOp;
} // namespace gpu
} // namespace mlir

namespace mxf {

class GemmActivationSide;

/// A workgroup that quantizes one accumulation chain's chunks only
/// (abi/gemm_split.h): chunk c of a slice is `chain`'s when c % chains ==
/// chain; a chunk holds unitsPerChunk rotation units.
struct GemmChainUnits {
  mlir::Value chain; // index, uniform over the workgroup
  int64_t chains = 0;
  int64_t unitsPerChunk = 0;
};

class GemmActivationEmitter {
public:
  /// `tiling`: chooseRotatingQuantizerTiling of the activation spec with
  /// the GEMM's activation decisions (gemmActivationQuantizer); its rotation
  /// LDS, if any, is the function's first workgroup buffer. `args`: the
  /// GEMM's own arguments, named by its spec's ABI (the activation spec's
  /// operands differ: W6A16's is an fp4 spec, which may take a workspace).
  GemmActivationEmitter(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec,
                        const KernelTiling &tiling, mlir::gpu::GPUFuncOp func,
                        const KernelArguments &args);
  ~GemmActivationEmitter();

  /// Lane indices, x at its row stride, the LDS writers; stages a learned R
  /// (every thread, then a barrier). Call once, uniformly.
  void prepare(mlir::Value ldsCodes, mlir::Value ldsScales);
  /// The W6A16 form of prepare: the rotated values are rounded to bf16 and
  /// stored to `ldsValues` (bf16 [16, S]) unquantized.
  void prepareBf16(mlir::Value ldsValues);
  /// Quantizes units slice*unitsPerSlice.. of the row tile into LDS (with
  /// `chain`, only those of its chunks, at their places in the slice's
  /// tile); waves take units round robin, loading the x of `unitsInFlight`
  /// of theirs before computing them (rotated units; others go one at a
  /// time). No barrier: the caller orders it with the reads.
  void emitSlice(mlir::Value slice, int64_t unitsPerSlice, int64_t unitsInFlight,
                 const GemmChainUnits *chain = nullptr);

private:
  std::unique_ptr<GemmActivationSide> side;
};

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_GEMM_GEMM_ACTIVATION_H
