//===- mxf_dialect.td - The mxf dialect: one op per kernel family -*- tablegen -*-===//
//
// The mxf dialect is the IR form of a KernelSpec (spec/kernel_spec.h): one op
// per fused kernel family (one op = one launch), holding its spec and the
// memref operands with the static shapes the spec implies (abi/operands.h).
// Nothing here names a family or a key: the ops are made from
// templates/families.def (CMake writes mxf_family_ops.td, one line per
// family), and an op's keys, their spellings and its operands come from the
// spec and ABI layers' declarations, so a new family or key needs no change
// here. docs/dialect.md describes the syntax and the verifier.
//
//===----------------------------------------------------------------------===//

#ifndef MXFORGE_DIALECTS_MXF_MXF_DIALECT_TD
#define MXFORGE_DIALECTS_MXF_MXF_DIALECT_TD

include "mlir/IR/OpBase.td"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

def Mxf_Dialect : Dialect {
  let name = "mxf";
  let summary = "Fused online rotation + MX quantization kernels for gfx950";
  let description = [{
    One op per fused kernel family of mxforge (`mxf.rotate_quant`,
    `mxf.rotate_quant_moe`, `mxf.rotate_quant_gemm`, `mxf.quant_weight`,
    ...: templates/families.def). Each op carries its kernel spec, in its
    canonical text, and its buffers as memref operands whose static shapes
    the verifier derives from the spec.
  }];
  let cppNamespace = "::mxf::dialect";
  let hasOperationAttrVerify = 1;
}

//===----------------------------------------------------------------------===//
// Kernel ops
//===----------------------------------------------------------------------===//

// One fused kernel: the spec in `spec` (printSpec's canonical text, its op
// part being this op's name), the memrefs kernelOperands(spec) lists in
// order, then, for ops that take it (kernelHasRowsOperand), the i32 row
// count. The custom form spells the spec's keys and names each operand:
//
//   mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4,
//                     scale = even, round = rne, inter = f32, layout = plain,
//                     arch = gfx950>
//       x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>)
//       s(%s : memref<16x128xi8>) rows(%m)
//
// Parsing, printing and verification are one C++ implementation for every
// op (mxf_dialect.cpp), driven by the op's KernelOp.
class Mxf_KernelOp<string mnemonic, string op>
    : Op<Mxf_Dialect, mnemonic, []> {
  let summary = "the fused kernel " # mnemonic # " (KernelOp::" # op # ")";
  let arguments = (ins StrAttr:$spec, Variadic<AnyType>:$buffers);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    static constexpr ::mxf::KernelOp kKernelOp = ::mxf::KernelOp::}] # op # [{;
    ::mxf::KernelSpec getKernelSpec();
  }];
}

include "mxf_family_ops.td"

#endif // MXFORGE_DIALECTS_MXF_MXF_DIALECT_TD
