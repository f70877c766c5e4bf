//===- kernel_signature.h - Kernel name and operands of a spec --*- C++ -*-===//
//
// What a KernelSpec implies for the kernel's interface, in plain C++ (no MLIR,
// no LLVM), so that the dialect's verifier, buildMxfModule, the compiler and
// the runtime all derive names and buffer shapes from one table:
//  - kernelName(spec): the symbol name of the kernel (scheme in
//    docs/dialect.md), deterministic and made of [A-Za-z0-9_] only;
//  - kernelOperands(spec): the memref operands of the spec's mxf op, in
//    operand order, with element type and static shape.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_DIALECTS_MXF_KERNEL_SIGNATURE_H
#define MXFORGE_DIALECTS_MXF_KERNEL_SIGNATURE_H

#include "spec/kernel_spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxf {

/// The launch ABI of generated kernels: operand order and types (below), the
/// trailing i32 row count and the grid mapping of templates/tiling.h. Bundles
/// record it and the runtime refuses a bundle built for another ABI, because
/// it would launch those kernels with the wrong arguments. Bump it whenever
/// any of these change (a template change that keeps them bumps only
/// kTemplateRevision, templates/template_revision.h).
constexpr int kKernelAbiVersion = 1;

/// `mxf_<op>_<key values in canonical spec order>`, e.g.
/// mxf_rotate_quant_K4096_RS64_hadamard_M16_fp4_even_rne_f32_plain_gfx950.
/// Numeric keys are written as <key><value> (K4096, RS64, M16, topk8, E256,
/// block32, N14336); enum keys and arch as their bare spelling. Two specs
/// that validateSpec accepts get the same name exactly when they are equal.
/// Precondition: validateSpec(spec).ok().
std::string kernelName(const KernelSpec &spec);

/// Element type of a memref operand: bf16 data, i8 bytes (packed codes and
/// E8M0 scales), i32 (expert ids and sorting outputs).
enum class OperandElement : uint8_t { Bf16, I8, I32 };
const char *operandElementName(OperandElement element); // "bf16", "i8", "i32"

struct KernelOperand {
  const char *name; // x, r, q, s, topk_ids, ... (the op's keywords)
  OperandElement element;
  std::vector<int64_t> shape; // static; M is the bucket
  bool written;               // an output of the kernel
  /// The keys the shape follows from, for diagnostics, e.g.
  /// "M=16, K=4096, fmt=fp4 (4-bit codes, K*4/8 bytes per row)".
  std::string derivation;
};

/// The memref operands of the spec's op, in operand order:
///   rotate_quant:      x, [r], q, s
///   rotate_quant_moe:  x, [r], topk_ids, q, s, sorted_ids, sorted_expert_ids,
///                      num_valid_ids
///   rotate_quant_gemm: x, [r], w_q, w_s, y
///   quant_weight:      w, [r], q, s
/// r is listed only for rot=learned ([RS, RS]) and learned_per_block
/// ([K/RS, RS, RS]). Every op but quant_weight also takes the runtime row
/// count (i32, 1 <= rows <= M) after these; kernelHasRowsOperand says which.
/// Precondition: validateSpec(spec).ok().
std::vector<KernelOperand> kernelOperands(const KernelSpec &spec);

/// Whether the op takes the runtime row count `rows : i32` (all but
/// quant_weight, which always processes N rows).
bool kernelHasRowsOperand(KernelOp op);

/// MoE sorting sizes of a rotate_quant_moe spec at its M bucket:
/// capacity = M*topk + E*block - topk, blocks = ceil(capacity / block).
int64_t moeCapacity(const KernelSpec &spec);
int64_t moeBlocks(const KernelSpec &spec);

} // namespace mxf

#endif // MXFORGE_DIALECTS_MXF_KERNEL_SIGNATURE_H
