//===- mxf_dialect.td - The mxf dialect: one op per kernel family -*- tablegen -*-===//
//
// The mxf dialect is the IR form of a KernelSpec (spec/kernel_spec.h): one op
// per fused kernel family (one op = one launch), memref operands with the
// static shapes the spec implies, and one attribute per spec key. The enum
// attributes spell their values exactly as specs do (numerics/options.h,
// formats.h, scale_rules.h), so `fmt = fp4` in IR is `fmt=fp4` in a spec.
// docs/dialect.md describes the ops, the shapes and the verifier.
//
//===----------------------------------------------------------------------===//

#ifndef MXFORGE_DIALECTS_MXF_MXF_DIALECT_TD
#define MXFORGE_DIALECTS_MXF_MXF_DIALECT_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

def Mxf_Dialect : Dialect {
  let name = "mxf";
  let summary = "Fused online rotation + MX quantization kernels for gfx950";
  let description = [{
    One op per fused kernel family of mxforge: `mxf.rotate_quant`,
    `mxf.rotate_quant_moe`, `mxf.rotate_quant_gemm` and `mxf.quant_weight`.
    Each op carries the keys of its kernel spec as attributes and its buffers
    as memref operands whose static shapes the verifier derives from the spec.
  }];
  // mxf::KernelSpec, mxf::ElemFormat, ... already live in namespace mxf
  // (numerics/, spec/); the IR classes get their own namespace so that code
  // with `using namespace mlir;` never sees two `mxf` namespaces.
  let cppNamespace = "::mxf::dialect";
  let useDefaultAttributePrinterParser = 1;
  // The `mxf.spec` function attribute (the canonical spec text).
  let hasOperationAttrVerify = 1;
}

//===----------------------------------------------------------------------===//
// Enums: the case values equal the numerics/ enum values, so conversion is a
// cast (mxf_dialect.h static_asserts it); the strings are the spec spellings.
//===----------------------------------------------------------------------===//

def Mxf_ElemFormat : I32EnumAttr<"ElemFormat", "MX element format", [
    I32EnumAttrCase<"fp4", 0>,
    I32EnumAttrCase<"fp6_e2m3", 1>,
    I32EnumAttrCase<"fp6_e3m2", 2>,
    I32EnumAttrCase<"fp8_e4m3", 3>,
    I32EnumAttrCase<"fp8_e5m2", 4>]> {
  let cppNamespace = "::mxf::dialect";
  let genSpecializedAttr = 0;
}

def Mxf_ScaleRule : I32EnumAttr<"ScaleRule", "E8M0 block scale rule", [
    I32EnumAttrCase<"floor", 0>,
    I32EnumAttrCase<"even", 1>,
    I32EnumAttrCase<"rceil", 2>,
    I32EnumAttrCase<"rceil_recip", 3>,
    I32EnumAttrCase<"ceil", 4>,
    I32EnumAttrCase<"even126", 5>,
    I32EnumAttrCase<"a6w6", 6>]> {
  let cppNamespace = "::mxf::dialect";
  let genSpecializedAttr = 0;
}

def Mxf_RotationKind : I32EnumAttr<"RotationKind", "online rotation kind", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"hadamard", 1>,
    I32EnumAttrCase<"hadamard_butterfly", 2>,
    I32EnumAttrCase<"learned", 3>,
    I32EnumAttrCase<"learned_per_block", 4>]> {
  let cppNamespace = "::mxf::dialect";
  let genSpecializedAttr = 0;
}

def Mxf_RotationConvention : I32EnumAttr<"RotationConvention",
    "how a learned matrix is given: x.R (xr) or x.R^T (xrt)", [
    I32EnumAttrCase<"xr", 0>,
    I32EnumAttrCase<"xrt", 1>]> {
  let cppNamespace = "::mxf::dialect";
  let genSpecializedAttr = 0;
}

def Mxf_Intermediate : I32EnumAttr<"Intermediate",
    "precision of the rotated value before quantization", [
    I32EnumAttrCase<"f32", 0>,
    I32EnumAttrCase<"bf16", 1>]> {
  let cppNamespace = "::mxf::dialect";
  let genSpecializedAttr = 0;
}

def Mxf_Rounding : I32EnumAttr<"Rounding", "element rounding", [
    I32EnumAttrCase<"rne", 0>,
    I32EnumAttrCase<"sr", 1>,
    I32EnumAttrCase<"rna", 2>]> {
  let cppNamespace = "::mxf::dialect";
  let genSpecializedAttr = 0;
}

def Mxf_ScaleLayout : I32EnumAttr<"ScaleLayout", "layout of E8M0 scale matrices", [
    I32EnumAttrCase<"plain", 0>,
    I32EnumAttrCase<"a4w4_shuffle", 1>,
    I32EnumAttrCase<"mxfp6_c0c1_256_padk2", 2>]> {
  let cppNamespace = "::mxf::dialect";
  let genSpecializedAttr = 0;
}

def Mxf_WeightLayout : I32EnumAttr<"WeightLayout", "layout of packed weight codes", [
    I32EnumAttrCase<"plain", 0>,
    I32EnumAttrCase<"preshuffle_16x16", 1>,
    I32EnumAttrCase<"w6a16_16x128", 2>]> {
  let cppNamespace = "::mxf::dialect";
  let genSpecializedAttr = 0;
}

def Mxf_RotationSelect : I32EnumAttr<"RotationSelect",
    "selective rotation: off, or chosen per launch by a flag or a layer mask", [
    I32EnumAttrCase<"off", 0>,
    I32EnumAttrCase<"flag", 1>,
    I32EnumAttrCase<"mask", 2>]> {
  let cppNamespace = "::mxf::dialect";
  let genSpecializedAttr = 0;
}

// `#mxf.fmt<fp4>` on its own (attribute lists, generic op form); inside an
// mxf op the custom<SpecEnum> directive prints the bare spelling: `fmt = fp4`.
class Mxf_EnumAttr<EnumAttrInfo info, string mnemonic>
    : EnumAttr<Mxf_Dialect, info, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

def Mxf_ElemFormatAttr : Mxf_EnumAttr<Mxf_ElemFormat, "fmt">;
def Mxf_ScaleRuleAttr : Mxf_EnumAttr<Mxf_ScaleRule, "scale">;
def Mxf_RotationKindAttr : Mxf_EnumAttr<Mxf_RotationKind, "rot">;
def Mxf_IntermediateAttr : Mxf_EnumAttr<Mxf_Intermediate, "inter">;
def Mxf_RotationConventionAttr : Mxf_EnumAttr<Mxf_RotationConvention, "rconv">;
def Mxf_RoundingAttr : Mxf_EnumAttr<Mxf_Rounding, "round">;
def Mxf_ScaleLayoutAttr : Mxf_EnumAttr<Mxf_ScaleLayout, "layout">;
def Mxf_WeightLayoutAttr : Mxf_EnumAttr<Mxf_WeightLayout, "wlayout">;
def Mxf_RotationSelectAttr : Mxf_EnumAttr<Mxf_RotationSelect, "select">;


//===----------------------------------------------------------------------===//
// Ops. Operands come in the order of the kernel's arguments:
// inputs, the learned rotation r (only for rot=learned|learned_per_block),
// outputs, then the runtime row count (every op with an M bucket).
// The spec attributes print in canonical spec order (docs/spec.md) between
// `<` `>`, so the op reads like its spec text.
//===----------------------------------------------------------------------===//

class Mxf_KernelOp<string mnemonic, string specSummary, list<Trait> traits = []>
    : Op<Mxf_Dialect, mnemonic, traits> {
  let summary = specSummary;
  // Spec consistency and every operand shape (mxf_dialect.cpp).
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The KernelSpec the attributes spell (struct defaults for the keys this
    /// op has not got). For a verified op it passes mxf::validateSpec.
    ::mxf::KernelSpec getKernelSpec();
  }];
}

// Three optional operands (r, seed, layer_mask), so the op records its
// operand segment sizes.
def Mxf_RotateQuantOp : Mxf_KernelOp<"rotate_quant",
    "rotate + MX-quantize dense activations", [AttrSizedOperandSegments]> {
  let description = [{
    Rotates each RS-element block of every row of `x` (bf16, [M, K]) and
    quantizes it to `fmt` with one E8M0 scale per 32 elements: packed codes to
    `q` ([M, K*bits/8] bytes), scales to `s` ([M, K/32], or
    [pad256(M), pad8(K/32)] with layout=a4w4_shuffle). Only the first `rows`
    (1 <= rows <= M) rows are read and written.

    ```mlir
    mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4,
                      scale = even, round = rne, inter = f32, layout = plain>
        x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>)
        s(%s : memref<16x128xi8>) rows(%m)
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "bf16 activations [M, K]", [MemRead]>:$x,
    Arg<Optional<AnyMemRef>, "learned rotation (bf16)", [MemRead]>:$r,
    Arg<Optional<AnyMemRef>, "stochastic rounding seed [1] i32 (round = sr)", [MemRead]>:$seed,
    Arg<Optional<AnyMemRef>, "per-layer rotation mask [layers] i32 (select = mask)",
        [MemRead]>:$layer_mask,
    Arg<AnyMemRef, "packed codes (i8)", [MemWrite]>:$q,
    Arg<AnyMemRef, "E8M0 scales (i8)", [MemWrite]>:$s,
    I32:$rows,
    I32Attr:$K, I32Attr:$RS, Mxf_RotationKindAttr:$rot, I32Attr:$M,
    Mxf_ElemFormatAttr:$fmt, Mxf_ScaleRuleAttr:$scale, Mxf_RoundingAttr:$round,
    Mxf_IntermediateAttr:$inter, Mxf_ScaleLayoutAttr:$layout,
    OptionalAttr<Mxf_RotationConventionAttr>:$rconv,
    OptionalAttr<Mxf_RotationSelectAttr>:$select, OptionalAttr<I32Attr>:$layers);
  let assemblyFormat = [{
    ` ` `<` `K` `=` $K `,` `RS` `=` $RS `,` `rot` `=` custom<SpecEnum>($rot) `,`
        `M` `=` $M `,` `fmt` `=` custom<SpecEnum>($fmt) `,`
        `scale` `=` custom<SpecEnum>($scale) `,`
        `round` `=` custom<SpecEnum>($round) `,`
        `inter` `=` custom<SpecEnum>($inter) `,`
        `layout` `=` custom<SpecEnum>($layout) `>`
    `x` `(` $x `:` type($x) `)` (`r` `(` $r^ `:` type($r) `)`)?
    (`seed` `(` $seed^ `:` type($seed) `)`)?
    (`layer_mask` `(` $layer_mask^ `:` type($layer_mask) `)`)?
    `q` `(` $q `:` type($q) `)` `s` `(` $s `:` type($s) `)`
    `rows` `(` $rows `)` attr-dict
  }];
}

// Three optional operands (r, seed, expert_mask), so the op records its
// operand segment sizes.
def Mxf_RotateQuantMoeOp : Mxf_KernelOp<"rotate_quant_moe",
    "rotate + MX-quantize activations and sort them for topk experts",
    [AttrSizedOperandSegments]> {
  let description = [{
    As `mxf.rotate_quant`, plus AITER's MoE sorting of the routing `topk_ids`
    ([M, topk] i32) and `topk_weights` ([M, topk] f32), restricted to the
    experts whose `expert_mask` entry ([E] i32, only with emask = 1) is
    nonzero. stage = 1 quantizes `x` [M, K] (one row per token) to `q`
    [M, K*bits/8] in token order; stage = 2 quantizes `x` [M, topk, K] (one
    row per routed (token, slot)) to `q` [M, topk, K*bits/8]. The scales go
    to `s` in sorted order ([capacity, K/32], or [pad32(capacity),
    pad8(K/32)] with layout=a4w4_shuffle), with capacity = M*topk + E*block
    - topk; `sorted_ids` [capacity], `sorted_weights` [capacity] f32,
    `sorted_expert_ids` [ceil(capacity/block)] and `num_valid_ids` [2] are
    AITER's sorting outputs (docs/layouts.md, docs/numerics.md).
  }];
  let arguments = (ins
    Arg<AnyMemRef, "bf16 activations [M, K] or [M, topk, K]", [MemRead]>:$x,
    Arg<Optional<AnyMemRef>, "learned rotation (bf16)", [MemRead]>:$r,
    Arg<Optional<AnyMemRef>, "stochastic rounding seed [1] i32 (round = sr)", [MemRead]>:$seed,
    Arg<AnyMemRef, "expert id per (token, slot) [M, topk] i32", [MemRead]>:$topk_ids,
    Arg<AnyMemRef, "routing weight per (token, slot) [M, topk] f32", [MemRead]>:$topk_weights,
    Arg<Optional<AnyMemRef>, "local experts [E] i32 (emask = 1)", [MemRead]>:$expert_mask,
    Arg<AnyMemRef, "packed codes (i8), input row order", [MemWrite]>:$q,
    Arg<AnyMemRef, "E8M0 scales (i8), sorted order", [MemWrite]>:$s,
    Arg<AnyMemRef, "(topk_pos << 24) | token by expert [capacity] i32",
        [MemWrite]>:$sorted_ids,
    Arg<AnyMemRef, "topk weight of each sorted entry [capacity] f32",
        [MemWrite]>:$sorted_weights,
    Arg<AnyMemRef, "local expert of each block [blocks] i32", [MemWrite]>:$sorted_expert_ids,
    Arg<AnyMemRef, "valid entries of sorted_ids, then M [2] i32", [MemWrite]>:$num_valid_ids,
    I32:$rows,
    I32Attr:$K, I32Attr:$RS, Mxf_RotationKindAttr:$rot, I32Attr:$M,
    I32Attr:$topk, I32Attr:$E, I32Attr:$block, I32Attr:$stage, I32Attr:$emask,
    Mxf_ElemFormatAttr:$fmt, Mxf_ScaleRuleAttr:$scale, Mxf_RoundingAttr:$round,
    Mxf_IntermediateAttr:$inter, Mxf_ScaleLayoutAttr:$layout,
    OptionalAttr<Mxf_RotationConventionAttr>:$rconv);
  let assemblyFormat = [{
    ` ` `<` `K` `=` $K `,` `RS` `=` $RS `,` `rot` `=` custom<SpecEnum>($rot) `,`
        `M` `=` $M `,` `topk` `=` $topk `,` `E` `=` $E `,` `block` `=` $block `,`
        `stage` `=` $stage `,` `emask` `=` $emask `,`
        `fmt` `=` custom<SpecEnum>($fmt) `,`
        `scale` `=` custom<SpecEnum>($scale) `,`
        `round` `=` custom<SpecEnum>($round) `,`
        `inter` `=` custom<SpecEnum>($inter) `,`
        `layout` `=` custom<SpecEnum>($layout) `>`
    `x` `(` $x `:` type($x) `)` (`r` `(` $r^ `:` type($r) `)`)?
    (`seed` `(` $seed^ `:` type($seed) `)`)?
    `topk_ids` `(` $topk_ids `:` type($topk_ids) `)`
    `topk_weights` `(` $topk_weights `:` type($topk_weights) `)`
    (`expert_mask` `(` $expert_mask^ `:` type($expert_mask) `)`)?
    `q` `(` $q `:` type($q) `)` `s` `(` $s `:` type($s) `)`
    `sorted_ids` `(` $sorted_ids `:` type($sorted_ids) `)`
    `sorted_weights` `(` $sorted_weights `:` type($sorted_weights) `)`
    `sorted_expert_ids` `(` $sorted_expert_ids `:` type($sorted_expert_ids) `)`
    `num_valid_ids` `(` $num_valid_ids `:` type($num_valid_ids) `)`
    `rows` `(` $rows `)` attr-dict
  }];
}

def Mxf_RotateQuantGemmOp : Mxf_KernelOp<"rotate_quant_gemm",
    "rotate (+ MXFP4-quantize) activations and multiply with prepared weights"> {
  let description = [{
    fmt=fp4 (A4W4): y = dequant(Q(x . R)) . dequant(W)^T; fmt=fp6_e2m3
    (W6A16): y = bf16(x . R) . dequant(W)^T; for decode-sized M: `x` bf16
    [M, K], weights as `quant_weight` writes them: `w_q` codes [N, K*bits/8]
    in `wlayout`, `w_s` E8M0 scales [N, K/32] or [pad256(N), pad8(K/32)] per
    `layout`; `y` bf16 [M, N]. The rotated activations never leave the
    kernel.
  }];
  let arguments = (ins
    Arg<AnyMemRef, "bf16 activations [M, K]", [MemRead]>:$x,
    Arg<Optional<AnyMemRef>, "learned rotation (bf16)", [MemRead]>:$r,
    Arg<AnyMemRef, "packed weight codes [N, K*bits/8] i8", [MemRead]>:$w_q,
    Arg<AnyMemRef, "E8M0 weight scales (i8)", [MemRead]>:$w_s,
    Arg<AnyMemRef, "bf16 output [M, N]", [MemWrite]>:$y,
    I32:$rows,
    I32Attr:$K, I32Attr:$N, I32Attr:$RS, Mxf_RotationKindAttr:$rot, I32Attr:$M,
    Mxf_ElemFormatAttr:$fmt, Mxf_ScaleRuleAttr:$scale, Mxf_RoundingAttr:$round,
    Mxf_IntermediateAttr:$inter, Mxf_ScaleLayoutAttr:$layout,
    Mxf_WeightLayoutAttr:$wlayout, OptionalAttr<Mxf_RotationConventionAttr>:$rconv);
  let assemblyFormat = [{
    ` ` `<` `K` `=` $K `,` `N` `=` $N `,` `RS` `=` $RS `,`
        `rot` `=` custom<SpecEnum>($rot) `,` `M` `=` $M `,`
        `fmt` `=` custom<SpecEnum>($fmt) `,`
        `scale` `=` custom<SpecEnum>($scale) `,`
        `round` `=` custom<SpecEnum>($round) `,`
        `inter` `=` custom<SpecEnum>($inter) `,`
        `layout` `=` custom<SpecEnum>($layout) `,`
        `wlayout` `=` custom<SpecEnum>($wlayout) `>`
    `x` `(` $x `:` type($x) `)` (`r` `(` $r^ `:` type($r) `)`)?
    `w_q` `(` $w_q `:` type($w_q) `)` `w_s` `(` $w_s `:` type($w_s) `)`
    `y` `(` $y `:` type($y) `)`
    `rows` `(` $rows `)` attr-dict
  }];
}

def Mxf_QuantWeightOp : Mxf_KernelOp<"quant_weight",
    "rotate + MX-quantize bf16 weights into the chosen layouts"> {
  let description = [{
    W [N, K] bf16 -> rotated codes `q` [N, K*bits/8] (fp4 may be
    preshuffled, wlayout=preshuffle_16x16, same shape) and scales `s`
    [N, K/32] or [pad256(N), pad8(K/32)], so that (x.R).(W.R)^T = x.W^T.
    Always N rows: there is no runtime row count.
  }];
  let arguments = (ins
    Arg<AnyMemRef, "bf16 weights [N, K]", [MemRead]>:$w,
    Arg<Optional<AnyMemRef>, "learned rotation (bf16)", [MemRead]>:$r,
    Arg<AnyMemRef, "packed codes (i8)", [MemWrite]>:$q,
    Arg<AnyMemRef, "E8M0 scales (i8)", [MemWrite]>:$s,
    I32Attr:$K, I32Attr:$N, I32Attr:$RS, Mxf_RotationKindAttr:$rot,
    Mxf_ElemFormatAttr:$fmt, Mxf_ScaleRuleAttr:$scale, Mxf_RoundingAttr:$round,
    Mxf_IntermediateAttr:$inter, Mxf_ScaleLayoutAttr:$layout,
    Mxf_WeightLayoutAttr:$wlayout, OptionalAttr<Mxf_RotationConventionAttr>:$rconv);
  let assemblyFormat = [{
    ` ` `<` `K` `=` $K `,` `N` `=` $N `,` `RS` `=` $RS `,`
        `rot` `=` custom<SpecEnum>($rot) `,` `fmt` `=` custom<SpecEnum>($fmt) `,`
        `scale` `=` custom<SpecEnum>($scale) `,`
        `round` `=` custom<SpecEnum>($round) `,`
        `inter` `=` custom<SpecEnum>($inter) `,`
        `layout` `=` custom<SpecEnum>($layout) `,`
        `wlayout` `=` custom<SpecEnum>($wlayout) `>`
    `w` `(` $w `:` type($w) `)` (`r` `(` $r^ `:` type($r) `)`)?
    `q` `(` $q `:` type($q) `)` `s` `(` $s `:` type($s) `)` attr-dict
  }];
}

#endif // MXFORGE_DIALECTS_MXF_MXF_DIALECT_TD
