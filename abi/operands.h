//===- operands.h - The kernel ABI: names, operands, by-value arguments -*- C++ -*-===//
//
// What a KernelSpec implies for its kernel's interface, in plain C++ (no MLIR,
// no LLVM). This is the one declaration of every op's operands; the dialect's
// verifier, buildMxfModule, the templates' argument types, the runtime's
// buffer checks and kernarg packing, the CLI's array names and shapes, the C
// API and the e2e runner all derive from it (docs/abi.md):
//  - kernelName(spec): the symbol name of the kernel (scheme in
//    docs/dialect.md), deterministic and made of [A-Za-z0-9_] only;
//  - kernelOperands(spec, rows): the buffer operands, in argument order, with
//    element type, shape at `rows` rows, and which of them carry a row stride;
//  - kernelScalarArgs(spec): the by-value arguments after the buffers (the
//    row count, one row stride per strided operand, the selection value,
//    then the op's own values such as an RMSNorm's eps).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ABI_OPERANDS_H
#define MXFORGE_ABI_OPERANDS_H

#include "abi/launch_record.h"
#include "abi/span.h"
#include "abi/versions.h"
#include "support/status.h"
#include "spec/kernel_spec.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mxf {

/// `mxf_<op>_<key values in canonical spec order>`, e.g.
/// mxf_rotate_quant_K4096_RS64_hadamard_M16_fp4_even_rne_f32_plain_gfx950.
/// Numeric keys are written as <key><value> (K4096, RS64, M16, topk8, E256,
/// block32, N14336); enum keys and arch as their bare spelling. Two specs
/// that validateSpec accepts get the same name exactly when they are equal.
/// Precondition: validateSpec(spec).ok().
std::string kernelName(const KernelSpec &spec);

/// Element type of a memref operand: bf16 data, i8 bytes (packed codes and
/// E8M0 scales), i32 (expert ids and sorting outputs), f32 (routing weights).
enum class OperandElement : uint8_t { Bf16, I8, I32, F32 };
const char *operandElementName(OperandElement element); // "bf16", "i8", "i32", "f32"
uint64_t elementBytes(OperandElement element);          // 2, 1, 4, 4

struct KernelOperand {
  const char *name; // x, r, q, s, topk_ids, ... (the op's keywords)
  OperandElement element;
  std::vector<int64_t> shape; // at the row count asked for (the bucket M by default)
  bool written;               // an output of the kernel
  /// The keys the shape follows from, for diagnostics, e.g.
  /// "M=16, K=4096, fmt=fp4 (4-bit codes, K*4/8 bytes per row)".
  std::string derivation;
  /// The by-value argument that holds this operand's row stride, in elements
  /// (>= shape[1]), or null when its rows are dense. A strided operand is
  /// 2-D; only its first shape[0] rows, shape[1] elements each, are touched.
  const char *rowStrideArg = nullptr;
  /// What it holds, for messages and listings ("bf16 activations").
  std::string meaning = {};
  /// Scratch the kernel reads and writes, not a result (rotate_quant_gemm's
  /// `ws`, abi/gemm_split.h): all zero bytes before its first launch; every
  /// launch leaves it fit for the next without zeroing again (its counters
  /// back at zero, the rest scratch), so one workspace serves the launches
  /// of one stream in turn. Not written (no output), not an input of the
  /// reference; a launcher given none allocates a zeroed one.
  bool workspace = false;

  bool strided() const { return rowStrideArg != nullptr; }
  /// Elements of one row (the product of every dimension but the first).
  int64_t rowElements() const;
};

/// The bytes a launch of `rows` rows must read and write at least: every
/// operand's span at dense rows, but no workspace (its traffic is the
/// kernel's own choice). What a benchmark's floor is measured against.
uint64_t kernelRequiredBytes(const KernelSpec &spec, int64_t rows);

/// Bytes `operand` spans in memory with rows `rowStride` elements apart
/// (ignored for dense operands): (rows - 1) * stride + row for a strided
/// operand with rows, its shape's product otherwise. 0 rows span 0 bytes.
uint64_t operandSpanBytes(const KernelOperand &operand, int64_t rowStride);

/// One by-value argument after the buffers: an i32, or an f32 (an op's
/// value, passed as its 4 bytes in the same kernarg slot size).
struct ScalarArg {
  const char *name;    // m, x_stride, q_stride, ..., eps
  const char *meaning; // for messages and docs
  bool isF32 = false;
};

/// The by-value arguments, in order: the row count `m` (every op but
/// quant_weight), then one row stride per strided operand, in operand order,
/// then selective rotation's value (selectionArgName) when select is not off,
/// then the op's own values (kernelValueArgs), f32.
std::vector<ScalarArg> kernelScalarArgs(const KernelSpec &spec);

/// A value an op takes by value at every launch, declared in its folder
/// (OpAbi::values): rmsnorm_rotate_quant's eps. Passed as f32; `check` says
/// whether a value is one the op accepts (the message names the rule).
struct ValueArg {
  const char *name;
  const char *meaning;
  Status (*check)(double value);
  /// A typical value (1e-6 for eps): what the CPU reference runs with when
  /// a caller gives none (`mxforge ref`); launches always name theirs.
  double example;
};

/// The values a launch gives by name (eps=1e-6): every one the op declares,
/// no other.
using LaunchValues = std::map<std::string, double>;

/// The op's values, in argument order (empty for most ops): a view of its
/// declaration, so that a launch reads them without allocating.
Span<ValueArg> kernelValueArgs(const KernelSpec &spec);
/// Whether `values` holds exactly the op's values, each one it accepts; the
/// message names the missing, unknown or refused value.
Status checkLaunchValues(const KernelSpec &spec, const LaunchValues &values);
/// The f32 bit pattern a launch passes for `value` (rounded to nearest).
uint32_t launchValueBits(double value);
/// `value` as messages and listings show it: enough digits to tell f32s apart.
std::string formatLaunchValue(double value);

/// Selective rotation's by-value argument: "rotate" (select=flag), "layer"
/// (select=mask), nullptr (select=off).
const char *selectionArgName(const KernelSpec &spec);
/// Whether `value` is a launch's selection value for `spec`: required
/// exactly when select is not off; a layer index inside 0..layers-1; a flag
/// that fits i32. The message names the argument.
Status checkSelectionValue(const KernelSpec &spec, std::optional<int64_t> value);

/// The memref operands of the spec's op, in operand order:
///   rotate_quant:      x, [r], q, s
///   rotate_quant_moe:  x, [r], topk_ids, topk_weights, [expert_mask], q, s,
///                      sorted_ids, sorted_weights, sorted_expert_ids,
///                      num_valid_ids (AITER's moe_sorting order); with
///                      stage=2, x is [m, topk, K] and q [m, topk, packed],
///                      both dense (no row stride)
///   rotate_quant_gemm: x, [r], w_q, w_s, y, [ws] (ws where the chains are
///                      split over workgroups, abi/gemm_split.h)
///   quant_weight:      w, [r], q, s   (w with a row stride; q and s dense:
///                      the weight layouts are defined on whole matrices)
/// r is listed only for rot=learned ([RS, RS]) and learned_per_block
/// ([K/RS, RS, RS]), and after it `seed` ([1] i32, one u32) only for
/// rotate_quant and rotate_quant_moe with round=sr, then `layer_mask`
/// ([layers] i32) only for rotate_quant with select=mask; expert_mask ([E]
/// i32) only for a MoE spec with emask=1. Every op but quant_weight also takes the runtime row
/// count (i32, 1 <= rows <= M) after these; kernelHasRowsOperand says which.
/// Shapes at the bucket M (the static shapes of the mxf op).
/// Precondition: validateSpec(spec).ok().
std::vector<KernelOperand> kernelOperands(const KernelSpec &spec);
/// The same operands with shapes at `rows` rows (what a launch for m = rows
/// reads and writes; quant_weight ignores it and always has N rows).
std::vector<KernelOperand> kernelOperands(const KernelSpec &spec, int64_t rows);
/// The operand named `name`, or a failure naming the spec's operands.
Result<KernelOperand> findKernelOperand(const KernelSpec &spec, int64_t rows,
                                        const std::string &name);

/// Whether the op takes the runtime row count `rows : i32` (all but
/// quant_weight, which always processes N rows).
bool kernelHasRowsOperand(KernelOp op);

/// Whether the kernel takes the stochastic-rounding `seed` operand: round=sr
/// on an op that rounds stochastically (activation ops; not the GEMM's
/// activation side or the weight pass).
bool kernelHasSeedOperand(const KernelSpec &spec);

/// The most rows one launch of `spec` processes: its M bucket, or N for
/// quant_weight (which has no bucket and always processes its N rows).
int64_t maxLaunchRows(const KernelSpec &spec);
/// Whether a launch may process `m` rows: 1 <= m <= M, or m == N for
/// quant_weight; the message names m and the limit.
Status checkLaunchRows(const KernelSpec &spec, int64_t m);
/// Whether a launch of `spec`'s code object, launched as `record` says,
/// may process `m` rows: 1 <= m <= record.maxRows, the limit of the code's
/// tiling class (the M bucket of a spec only names the class: a kernel of
/// bucket 8 whose class serves 256 rows takes m = 9), or m == N for
/// quant_weight. The message names m and the limit.
Status checkLaunchRows(const KernelSpec &spec, const LaunchRecord &record, int64_t m);

/// MoE sorting sizes of a rotate_quant_moe spec at `rows` tokens:
/// capacity = rows*topk + E*block - topk, blocks = ceil(capacity / block).
int64_t moeCapacity(const KernelSpec &spec, int64_t rows);
int64_t moeBlocks(const KernelSpec &spec, int64_t rows);

} // namespace mxf

#endif // MXFORGE_ABI_OPERANDS_H
