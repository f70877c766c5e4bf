//===- mxf_dialect.h - The mxf dialect: ops, enums, attributes ---*- C++ -*-===//
//
// The IR classes of the mxf dialect (namespace mxf::dialect): MxfDialect, the
// four kernel ops (RotateQuantOp, RotateQuantMoeOp, RotateQuantGemmOp,
// QuantWeightOp), and the enum attributes (ElemFormatAttr, ...). Heavy: it
// pulls in MLIR's op machinery. Code that only builds or inspects modules
// through a KernelSpec includes dialects/mxf/mxf_api.h instead.
//
// The dialect enums mirror the numerics/ enums of the same name value for
// value (static_asserts below); toNumerics/fromNumerics convert.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_DIALECTS_MXF_MXF_DIALECT_H
#define MXFORGE_DIALECTS_MXF_MXF_DIALECT_H

#include "spec/kernel_spec.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/mxf/mxf_dialect.h.inc"
#include "dialects/mxf/mxf_enums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/mxf/mxf_attrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/mxf/mxf_ops.h.inc"

namespace mxf::dialect {

// The dialect enums are declared in TableGen with the numerics/ values, so
// conversion is a cast; these asserts keep the two from drifting apart (the
// unit test also compares every spelling).
#define MXF_SAME_VALUE(DIALECT, NUMERICS)                                                          \
  static_assert(static_cast<uint32_t>(DIALECT) == static_cast<uint32_t>(NUMERICS),                 \
                #DIALECT " must equal " #NUMERICS)
MXF_SAME_VALUE(ElemFormat::fp4, ::mxf::ElemFormat::E2M1);
MXF_SAME_VALUE(ElemFormat::fp6_e2m3, ::mxf::ElemFormat::E2M3);
MXF_SAME_VALUE(ElemFormat::fp6_e3m2, ::mxf::ElemFormat::E3M2);
MXF_SAME_VALUE(ElemFormat::fp8_e4m3, ::mxf::ElemFormat::E4M3);
MXF_SAME_VALUE(ElemFormat::fp8_e5m2, ::mxf::ElemFormat::E5M2);
MXF_SAME_VALUE(ScaleRule::floor, ::mxf::ScaleRule::Floor);
MXF_SAME_VALUE(ScaleRule::even, ::mxf::ScaleRule::Even);
MXF_SAME_VALUE(ScaleRule::rceil, ::mxf::ScaleRule::Rceil);
MXF_SAME_VALUE(ScaleRule::rceil_recip, ::mxf::ScaleRule::RceilRecip);
MXF_SAME_VALUE(ScaleRule::ceil, ::mxf::ScaleRule::Ceil);
MXF_SAME_VALUE(ScaleRule::even126, ::mxf::ScaleRule::Even126);
MXF_SAME_VALUE(ScaleRule::a6w6, ::mxf::ScaleRule::A6W6);
MXF_SAME_VALUE(RotationKind::none, ::mxf::RotationKind::None);
MXF_SAME_VALUE(RotationKind::hadamard, ::mxf::RotationKind::Hadamard);
MXF_SAME_VALUE(RotationKind::hadamard_butterfly, ::mxf::RotationKind::HadamardButterfly);
MXF_SAME_VALUE(RotationKind::learned, ::mxf::RotationKind::Learned);
MXF_SAME_VALUE(RotationKind::learned_per_block, ::mxf::RotationKind::LearnedPerBlock);
MXF_SAME_VALUE(RotationConvention::xr, ::mxf::RotationConvention::XR);
MXF_SAME_VALUE(RotationConvention::xrt, ::mxf::RotationConvention::XRt);
MXF_SAME_VALUE(Intermediate::f32, ::mxf::Intermediate::F32);
MXF_SAME_VALUE(Intermediate::bf16, ::mxf::Intermediate::Bf16);
MXF_SAME_VALUE(Rounding::rne, ::mxf::Rounding::Rne);
MXF_SAME_VALUE(Rounding::sr, ::mxf::Rounding::Sr);
MXF_SAME_VALUE(Rounding::rna, ::mxf::Rounding::Rna);
MXF_SAME_VALUE(ScaleLayout::plain, ::mxf::ScaleLayout::Plain);
MXF_SAME_VALUE(ScaleLayout::a4w4_shuffle, ::mxf::ScaleLayout::A4W4Shuffle);
MXF_SAME_VALUE(ScaleLayout::mxfp6_c0c1_256_padk2, ::mxf::ScaleLayout::A6W6Tiles);
MXF_SAME_VALUE(WeightLayout::plain, ::mxf::WeightLayout::Plain);
MXF_SAME_VALUE(WeightLayout::preshuffle_16x16, ::mxf::WeightLayout::Preshuffle16x16);
MXF_SAME_VALUE(WeightLayout::w6a16_16x128, ::mxf::WeightLayout::W6A16Tile16x128);
MXF_SAME_VALUE(RotationSelect::off, ::mxf::RotationSelect::Off);
MXF_SAME_VALUE(RotationSelect::flag, ::mxf::RotationSelect::Flag);
MXF_SAME_VALUE(RotationSelect::mask, ::mxf::RotationSelect::Mask);
#undef MXF_SAME_VALUE

#define MXF_ENUM_CONVERSIONS(NAME)                                                                 \
  inline ::mxf::NAME toNumerics(NAME value) { return static_cast<::mxf::NAME>(value); }            \
  inline NAME fromNumerics(::mxf::NAME value) { return static_cast<NAME>(value); }
MXF_ENUM_CONVERSIONS(ElemFormat)
MXF_ENUM_CONVERSIONS(ScaleRule)
MXF_ENUM_CONVERSIONS(RotationKind)
MXF_ENUM_CONVERSIONS(RotationConvention)
MXF_ENUM_CONVERSIONS(Intermediate)
MXF_ENUM_CONVERSIONS(Rounding)
MXF_ENUM_CONVERSIONS(ScaleLayout)
MXF_ENUM_CONVERSIONS(WeightLayout)
MXF_ENUM_CONVERSIONS(RotationSelect)
#undef MXF_ENUM_CONVERSIONS

} // namespace mxf::dialect

#endif // MXFORGE_DIALECTS_MXF_MXF_DIALECT_H
