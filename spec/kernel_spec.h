//===- kernel_spec.h - The kernel spec: what one kernel computes -*- C++ -*-===//
//
// A KernelSpec names one fused kernel (op + shapes + numerics + layouts). Its
// canonical text form `op:key=value,...` is used on the CLI, in bundle
// manifests and as the core of the cache key, so equal specs must print as
// equal strings. docs/spec.md has the grammar, every key and its default.
//
// Invariants the rest of the compiler relies on:
//  - parseSpec accepts a text only if validateSpec accepts the result;
//  - parseSpec(printSpec(s)) == s for every s that validateSpec accepts;
//  - printSpec(parseSpec(t)) is a fixed point of parse-then-print.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SPEC_KERNEL_SPEC_H
#define MXFORGE_SPEC_KERNEL_SPEC_H

#include "numerics/formats.h"
#include "numerics/options.h"
#include "numerics/scale_rules.h"
#include "support/status.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxf {

/// One op per fused kernel family (one op = one launch), one per line of
/// templates/families.def, in its order: RotateQuant (dense activations:
/// rotate + MX-quantize), RotateQuantMoe (plus the sort and scatter to topk
/// experts), RotateQuantGemm (rotate + quantize + GEMM against prepared
/// weights), QuantWeight (bf16 weights -> rotated MXFP4/MXFP6 in a layout).
enum class KernelOp : uint8_t {
#define MXF_FAMILY(Op, folder) Op,
#include "templates/families.def"
#undef MXF_FAMILY
};
constexpr KernelOp kAllKernelOps[] = {
#define MXF_FAMILY(Op, folder) KernelOp::Op,
#include "templates/families.def"
#undef MXF_FAMILY
};

/// rotate_quant, rotate_quant_moe, rotate_quant_gemm, quant_weight ("?" for a
/// value outside the enum).
const char *kernelOpName(KernelOp op);
std::optional<KernelOp> parseKernelOp(std::string_view name);

/// Selective rotation (rotate_quant with RS > 0): whether one launch rotates
/// is decided at run time, so that layers a calibration marks as not helped
/// take the quant-only path of the same kernel (docs/templates.md).
enum class RotationSelect : uint8_t {
  Off,  // always rotates (the key is left out of the spec text)
  Flag, // by-value i32 `rotate`: nonzero rotates
  Mask, // operand layer_mask i32 [layers] and by-value i32 `layer`
};
const char *rotationSelectName(RotationSelect select); // off, flag, mask
std::optional<RotationSelect> parseRotationSelect(std::string_view name);

/// Fields that do not belong to `op` keep their default values here, so that
/// a spec built field by field compares equal to its parsed canonical form
/// (validateSpec rejects a foreign field that was changed).
struct KernelSpec {
  KernelOp op = KernelOp::RotateQuant;
  int K = 0;  // reduction length (elements per row)
  int RS = 0; // rotation block size; 0 = no rotation
  RotationKind rot = RotationKind::None;
  /// Learned rotations: whether r holds R (y = x.R) or R^T (y = x.R^T). The
  /// key is part of a spec's text only when rot is learned or
  /// learned_per_block; other rotations keep the default.
  RotationConvention rconv = RotationConvention::XR;
  int M = 16;     // M bucket: the kernel serves any 1 <= M <= this at launch
  int topk = 0;   // MoE: experts per token
  int E = 0;      // MoE: number of experts
  int block = 32; // MoE: each expert's rows are padded to a multiple of this
  /// MoE: which rows are quantized. 1: one row per token, x [m, K] (the
  /// up/gate projection's input); 2: one row per routed (token, slot),
  /// x [m, topk, K] (the down projection's input, AITER's stage 2).
  int stage = 1;
  /// MoE: 1 when the kernel takes expert_mask i32 [E] (expert parallelism:
  /// only experts with a nonzero mask entry are sorted), 0 when all E are.
  int emask = 0;
  int N = 0;      // GEMM / weights: output features
  /// rotate_quant with RS > 0: off, or the runtime choice between the
  /// rotated and the unrotated result. Written in the spec text only when
  /// not off, so that every spec without it keeps its text and cache key.
  RotationSelect select = RotationSelect::Off;
  /// select=mask: the length of layer_mask (the model's layer count).
  int layers = 0;
  /// rmsnorm_rotate_quant: 1 when the kernel adds the residual to x (and
  /// writes the sum to residual_out), 0 when it normalizes x alone.
  int add = 0;
  ElemFormat fmt = ElemFormat::E2M1;
  ScaleRule scale = ScaleRule::Even;
  Rounding round = Rounding::Rne;
  Intermediate inter = Intermediate::F32;
  ScaleLayout layout = ScaleLayout::Plain;
  WeightLayout wlayout = WeightLayout::Plain;
  std::string arch = "gfx950";

  bool operator==(const KernelSpec &other) const;
  bool operator!=(const KernelSpec &other) const { return !(*this == other); }
};

/// Longest spec text parseSpec looks at; longer input is rejected unread.
constexpr size_t kMaxSpecLength = 4096;
/// Numbers are plain decimal digits; more than this many is an error (keeps
/// every accepted number inside int without overflow checks).
constexpr size_t kMaxSpecNumberDigits = 9;

/// Parses `op:key=value,...` (keys in any order, defaults filled in) and
/// validates the result. On failure the message is one line that names the
/// offending key and value and says what would be valid.
Result<KernelSpec> parseSpec(std::string_view text);

/// The canonical text: every key of the op, in specKeys(op) order, defaults
/// written out.
std::string printSpec(const KernelSpec &spec);

/// The shortest text parseSpec reads back to `spec`: its canonical text
/// without the keys whose values are the defaults they would get anyway
/// ("rotate_quant:K=4096,RS=64,M=1"), for tables people read. Keys stay in
/// printSpec's order.
std::string printSpecShort(const KernelSpec &spec);

/// Checks every rule of docs/spec.md; for specs built in code as well as
/// parsed ones. Success means printSpec(spec) parses back to `spec`.
Status validateSpec(const KernelSpec &spec);

/// Every key of the spec vocabulary, every op's together, in the key
/// table's order (for keyword mappings such as Python's, and help).
std::vector<std::string_view> allSpecKeys();

/// The keys of an op in canonical order (for docs, help and errors).
std::vector<std::string_view> specKeys(KernelOp op);

/// The keys parseSpec requires for an op (every other key has a default).
std::vector<std::string_view> requiredSpecKeys(KernelOp op);

} // namespace mxf

#endif // MXFORGE_SPEC_KERNEL_SPEC_H
