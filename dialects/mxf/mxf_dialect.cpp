//===- mxf_dialect.cpp - The mxf dialect: ops, attributes, verifiers ------===//
//
// The verifier of every op rebuilds the KernelSpec its attributes spell, runs
// the spec's own validation (spec/kernel_spec.h: one set of rules for specs
// typed on the CLI and ops written in IR), then checks each memref operand
// against the type kernelOperands() derives from the spec. Every diagnostic
// names the attribute or operand, the value, and what would be valid.
//
//===----------------------------------------------------------------------===//

#include "dialects/mxf/mxf_dialect.h"

#include "abi/operands.h"
#include "dialects/mxf/mxf_api.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <string>

using namespace mlir;

namespace mxf::dialect {
namespace {

//===----------------------------------------------------------------------===//
// custom<SpecEnum>: an enum attribute as its bare spec spelling (`fmt = fp4`)
//===----------------------------------------------------------------------===//

/// "fp4, fp6_e2m3, ...": the spellings of every value of EnumT.
template <typename EnumT> std::string validSpellings() {
  std::string out;
  // The generated stringify returns "" past the last case; enums are dense
  // from 0 (I32EnumAttrCase values 0..n-1).
  for (uint32_t i = 0;; ++i) {
    StringRef spelling = stringifyEnum(static_cast<EnumT>(i));
    if (spelling.empty())
      break;
    if (!out.empty())
      out += ", ";
    out += spelling.str();
  }
  return out;
}

template <typename AttrT> ParseResult parseSpecEnum(OpAsmParser &parser, AttrT &attr) {
  using EnumT = decltype(std::declval<AttrT>().getValue());
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  // Spellings such as f32, bf16 and none lex as MLIR keywords, which
  // parseOptionalKeyword accepts like bare identifiers.
  if (parser.parseOptionalKeyword(&keyword))
    return parser.emitError(loc) << "expected " << AttrT::getMnemonic() << " value, one of "
                                 << validSpellings<EnumT>();
  std::optional<EnumT> value = symbolizeEnum<EnumT>(keyword);
  if (!value)
    return parser.emitError(loc) << "'" << keyword << "' is not a valid " << AttrT::getMnemonic()
                                 << "; expected one of " << validSpellings<EnumT>();
  attr = AttrT::get(parser.getContext(), *value);
  return success();
}

template <typename AttrT> void printSpecEnum(OpAsmPrinter &printer, Operation *, AttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

} // namespace
} // namespace mxf::dialect

#include "dialects/mxf/mxf_dialect.cpp.inc"
#include "dialects/mxf/mxf_enums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/mxf/mxf_attrs.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/mxf/mxf_ops.cpp.inc"

namespace mxf::dialect {

void MxfDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/mxf/mxf_attrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/mxf/mxf_ops.cpp.inc"
      >();
}

namespace {

//===----------------------------------------------------------------------===//
// Attributes -> KernelSpec. Null-safe: specFromOp may look at an op that the
// verifier has not seen yet (a missing attribute keeps the struct default,
// which validateSpec then rejects or the ODS verifier reports first).
//===----------------------------------------------------------------------===//

int intOf(IntegerAttr attr, int fallback) {
  return attr ? static_cast<int>(attr.getValue().getSExtValue()) : fallback;
}

template <typename AttrT, typename NumericsT> NumericsT enumOf(AttrT attr, NumericsT fallback) {
  return attr ? toNumerics(attr.getValue()) : fallback;
}

/// The keys every op has.
template <typename OpT> void commonKeys(OpT op, KernelSpec &spec) {
  spec.K = intOf(op.getKAttr(), spec.K);
  spec.RS = intOf(op.getRSAttr(), spec.RS);
  spec.rot = enumOf(op.getRotAttr(), spec.rot);
  // Written only for rconv=xrt (attr-dict form: {rconv = #mxf.rconv<xrt>}).
  spec.rconv = enumOf(op.getRconvAttr(), spec.rconv);
  spec.fmt = enumOf(op.getFmtAttr(), spec.fmt);
  spec.scale = enumOf(op.getScaleAttr(), spec.scale);
  spec.round = enumOf(op.getRoundAttr(), spec.round);
  spec.inter = enumOf(op.getInterAttr(), spec.inter);
  spec.layout = enumOf(op.getLayoutAttr(), spec.layout);
}

Type elementType(MLIRContext *ctx, OperandElement element) {
  switch (element) {
  case OperandElement::Bf16:
    return BFloat16Type::get(ctx);
  case OperandElement::I8:
    return IntegerType::get(ctx, 8);
  case OperandElement::I32:
    return IntegerType::get(ctx, 32);
  case OperandElement::F32:
    return Float32Type::get(ctx);
  }
  return {};
}

/// A type as IR text, unquoted: diagnostics quote streamed types, but
/// "must be memref<16x2048xi8>, got memref<16x1024xi8>" reads better bare.
std::string str(Type type) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << type;
  return out;
}

/// The checks shared by the four ops: the spec, then r's presence, then the
/// type of every memref operand, then the enclosing function's mxf.spec.
/// `memrefs` are the op's memref operands in order (r included when
/// present); they are a prefix of the operands, so their indices are operand
/// numbers. The i32 row count is checked by ODS.
LogicalResult verifyKernelOp(Operation *op, const KernelSpec &spec, ValueRange memrefs, bool hasR) {
  if (Status s = validateSpec(spec); !s.ok())
    return op->emitOpError() << "has an invalid spec: " << s.message();

  MLIRContext *ctx = op->getContext();
  auto typeOf = [&](const KernelOperand &operand) {
    return MemRefType::get(operand.shape, elementType(ctx, operand.element));
  };
  const bool needsR = isLearned(spec.rot);
  std::vector<KernelOperand> expected = kernelOperands(spec);
  if (needsR && !hasR) {
    const KernelOperand &r = expected[1];
    return op->emitOpError() << "rot=" << rotationKindName(spec.rot)
                             << " needs the learned rotation operand r: add r(%r : "
                             << str(typeOf(r)) << ") for " << r.derivation;
  }
  if (!needsR && hasR)
    return op->emitOpError() << "operand #1 (r) is only taken with rot=learned or "
                             << "rot=learned_per_block; rot=" << rotationKindName(spec.rot)
                             << " uses no rotation matrix: remove r(" << str(memrefs[1].getType())
                             << ")";

  assert(expected.size() == memrefs.size() && "ODS fixes the operand count");
  for (size_t index = 0; index < expected.size(); ++index) {
    const KernelOperand &want = expected[index];
    Type got = memrefs[index].getType();
    MemRefType wantType = typeOf(want);
    if (got != wantType)
      return op->emitOpError() << "operand #" << index << " (" << want.name << ") must be "
                               << str(wantType) << " for " << want.derivation << ", got "
                               << str(got);
  }

  // A function that declares its kernel's spec (buildMxfModule writes
  // mxf.spec) must hold that kernel.
  if (Operation *parent = op->getParentOp())
    if (auto declared = parent->getAttrOfType<StringAttr>(kSpecAttrName)) {
      const std::string mine = printSpec(spec);
      if (declared.getValue() != mine)
        return op->emitOpError() << "has spec \"" << mine << "\" but the enclosing '"
                                 << parent->getName() << "' declares " << kSpecAttrName << " = \""
                                 << declared.getValue() << "\"";
    }
  return success();
}

/// The memref operands of an op: every operand but the trailing row count.
ValueRange memrefOperands(Operation *op, bool hasRows) {
  OperandRange all = op->getOperands();
  return hasRows ? all.drop_back() : all;
}

} // namespace

//===----------------------------------------------------------------------===//
// Per-op spec reconstruction and verification
//===----------------------------------------------------------------------===//

KernelSpec RotateQuantOp::getKernelSpec() {
  KernelSpec spec;
  spec.op = KernelOp::RotateQuant;
  commonKeys(*this, spec);
  spec.M = intOf(getMAttr(), spec.M);
  // Written only for select=flag|mask ({select = #mxf.select<mask>, layers = 32 : i32}).
  spec.select = enumOf(getSelectAttr(), spec.select);
  spec.layers = intOf(getLayersAttr(), spec.layers);
  return spec;
}

KernelSpec RotateQuantMoeOp::getKernelSpec() {
  KernelSpec spec;
  spec.op = KernelOp::RotateQuantMoe;
  commonKeys(*this, spec);
  spec.M = intOf(getMAttr(), spec.M);
  spec.topk = intOf(getTopkAttr(), spec.topk);
  spec.E = intOf(getEAttr(), spec.E);
  spec.block = intOf(getBlockAttr(), spec.block);
  spec.stage = intOf(getStageAttr(), spec.stage);
  spec.emask = intOf(getEmaskAttr(), spec.emask);
  return spec;
}

KernelSpec RotateQuantGemmOp::getKernelSpec() {
  KernelSpec spec;
  spec.op = KernelOp::RotateQuantGemm;
  commonKeys(*this, spec);
  spec.M = intOf(getMAttr(), spec.M);
  spec.N = intOf(getNAttr(), spec.N);
  spec.wlayout = enumOf(getWlayoutAttr(), spec.wlayout);
  return spec;
}

KernelSpec QuantWeightOp::getKernelSpec() {
  KernelSpec spec;
  spec.op = KernelOp::QuantWeight;
  commonKeys(*this, spec);
  spec.N = intOf(getNAttr(), spec.N);
  spec.wlayout = enumOf(getWlayoutAttr(), spec.wlayout);
  return spec;
}

/// The seed operand's presence must follow round=sr before the operand types
/// are compared one by one (an extra or missing operand shifts all of them).
static LogicalResult verifySeed(Operation *op, const KernelSpec &spec, Value seed) {
  if (!validateSpec(spec).ok() || (spec.round == mxf::Rounding::Sr) == bool(seed))
    return success();
  if (seed)
    return op->emitOpError() << "seed is only taken with round=sr; round="
                             << mxf::roundingName(spec.round) << " draws no random words: remove seed("
                             << str(seed.getType()) << ")";
  return op->emitOpError() << "round=sr needs the seed operand: add seed(%seed : "
                           << str(MemRefType::get({1}, IntegerType::get(op->getContext(), 32)))
                           << ")";
}

LogicalResult RotateQuantOp::verify() {
  const KernelSpec spec = getKernelSpec();
  if (failed(verifySeed(*this, spec, getSeed())))
    return failure();
  // layer_mask's presence must follow select=mask, for the same reason.
  if (validateSpec(spec).ok() && (spec.select == mxf::RotationSelect::Mask) != bool(getLayerMask())) {
    if (getLayerMask())
      return emitOpError() << "layer_mask is only taken with select=mask; select="
                           << mxf::rotationSelectName(spec.select)
                           << " reads no mask: remove layer_mask(" << str(getLayerMask().getType())
                           << ")";
    return emitOpError() << "select=mask needs the layer mask operand: add layer_mask(%mask : "
                         << str(MemRefType::get({spec.layers}, IntegerType::get(getContext(), 32)))
                         << ") for layers=" << spec.layers;
  }
  return verifyKernelOp(*this, getKernelSpec(), memrefOperands(*this, true), bool(getR()));
}
LogicalResult RotateQuantMoeOp::verify() {
  // expert_mask's presence must follow emask before the operand types are
  // compared one by one (an extra or missing operand shifts all of them).
  const KernelSpec spec = getKernelSpec();
  if (failed(verifySeed(*this, spec, getSeed())))
    return failure();
  if (validateSpec(spec).ok() && (spec.emask == 1) != bool(getExpertMask())) {
    if (spec.emask == 1)
      return emitOpError() << "emask=1 needs the expert mask operand: add expert_mask(%mask : "
                           << str(MemRefType::get({spec.E}, IntegerType::get(getContext(), 32)))
                           << ") for E=" << spec.E;
    return emitOpError() << "expert_mask is only taken with emask=1; emask=0 sorts every "
                         << "expert: remove expert_mask(" << str(getExpertMask().getType())
                         << ")";
  }
  return verifyKernelOp(*this, spec, memrefOperands(*this, true), bool(getR()));
}
LogicalResult RotateQuantGemmOp::verify() {
  return verifyKernelOp(*this, getKernelSpec(), memrefOperands(*this, true), bool(getR()));
}
LogicalResult QuantWeightOp::verify() {
  return verifyKernelOp(*this, getKernelSpec(), memrefOperands(*this, false), bool(getR()));
}

//===----------------------------------------------------------------------===//
// The `mxf.spec` attribute: the canonical spec text of the kernel a function
// holds (buildMxfModule sets it). The kernel op inside checks it matches.
//===----------------------------------------------------------------------===//

LogicalResult MxfDialect::verifyOperationAttribute(Operation *op, NamedAttribute attribute) {
  if (attribute.getName().getValue() != kSpecAttrName)
    return op->emitError() << "unknown mxf attribute '" << attribute.getName().getValue()
                           << "'; the mxf dialect defines only '" << kSpecAttrName << "'";
  auto text = dyn_cast<StringAttr>(attribute.getValue());
  if (!text)
    return op->emitError() << "'" << kSpecAttrName
                           << "' must be a string holding a kernel spec, got "
                           << attribute.getValue();
  Result<KernelSpec> parsed = parseSpec(text.getValue().str());
  if (!parsed.ok())
    return op->emitError() << "'" << kSpecAttrName << "' = \"" << text.getValue()
                           << "\" is not a valid spec: " << parsed.error();
  const std::string canonical = printSpec(parsed.value());
  if (canonical != text.getValue())
    return op->emitError() << "'" << kSpecAttrName << "' must be the canonical spec text \""
                           << canonical << "\", got \"" << text.getValue() << "\"";
  // Whether the op inside matches is checked by that op's verifier (after its
  // own checks, so that a broken op reports what is broken, not a mismatch).
  return success();
}

} // namespace mxf::dialect
