//===- mxf_api.cpp - KernelSpec <-> mxf IR --------------------------------===//
//
// buildMxfModule is the only place that turns a spec into IR: the function's
// arguments come from kernelOperands(spec), the op's attributes from the spec
// fields, so the module verifies by construction (the unit test checks it for
// a grid of specs of every op).
//
//===----------------------------------------------------------------------===//

#include "dialects/mxf/mxf_api.h"

#include "abi/operands.h"
#include "dialects/mxf/mxf_dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace mxf {
namespace {

using dialect::fromNumerics;

Type elementType(MLIRContext &ctx, OperandElement element) {
  switch (element) {
  case OperandElement::Bf16:
    return BFloat16Type::get(&ctx);
  case OperandElement::I8:
    return IntegerType::get(&ctx, 8);
  case OperandElement::I32:
    return IntegerType::get(&ctx, 32);
  case OperandElement::F32:
    return Float32Type::get(&ctx);
  }
  return {};
}

uint32_t u32(int value) { return static_cast<uint32_t>(value); }

/// Creates the spec's op from the entry block's arguments, which are
/// kernelOperands(spec) in order, then the row count.
void createKernelOp(OpBuilder &b, Location loc, const KernelSpec &spec,
                    Block::BlockArgListType args) {
  // r sits right after the first operand when the rotation is learned.
  const bool hasR = isLearned(spec.rot);
  size_t next = 0;
  Value first = args[next++];
  Value r = hasR ? args[next++] : Value();
  auto take = [&]() { return Value(args[next++]); };
  // The stochastic rounding seed follows (abi/operands.h; activation ops).
  const bool hasSeed = kernelHasSeedOperand(spec);
  Value seed = hasSeed ? take() : Value();
  // The default convention is left out of the IR (as rconv is left out of
  // the spec text of non-learned rotations).
  dialect::RotationConventionAttr rconv;
  if (spec.rconv != RotationConvention::XR)
    rconv = dialect::RotationConventionAttr::get(b.getContext(), fromNumerics(spec.rconv));
  switch (spec.op) {
  case KernelOp::RotateQuant: {
    // Selective rotation: left out of the IR when off, as of the spec text.
    Value layerMask = spec.select == RotationSelect::Mask ? take() : Value();
    dialect::RotationSelectAttr select;
    IntegerAttr layers;
    if (spec.select != RotationSelect::Off)
      select = dialect::RotationSelectAttr::get(b.getContext(), fromNumerics(spec.select));
    if (spec.select == RotationSelect::Mask)
      layers = b.getI32IntegerAttr(spec.layers);
    Value q = take(), s = take(), rows = take();
    dialect::RotateQuantOp::create(b, loc, first, r, seed, layerMask, q, s, rows, u32(spec.K),
                                   u32(spec.RS), fromNumerics(spec.rot), u32(spec.M),
                                   fromNumerics(spec.fmt), fromNumerics(spec.scale),
                                   fromNumerics(spec.round), fromNumerics(spec.inter),
                                   fromNumerics(spec.layout), rconv, select, layers);
    return;
  }
  case KernelOp::RotateQuantMoe: {
    Value topkIds = take(), topkWeights = take();
    Value expertMask = spec.emask == 1 ? take() : Value();
    Value q = take(), s = take(), sortedIds = take(), sortedWeights = take(),
          sortedExpertIds = take(), numValidIds = take(), rows = take();
    dialect::RotateQuantMoeOp::create(
        b, loc, first, r, seed, topkIds, topkWeights, expertMask, q, s, sortedIds, sortedWeights,
        sortedExpertIds, numValidIds, rows, u32(spec.K), u32(spec.RS), fromNumerics(spec.rot),
        u32(spec.M), u32(spec.topk), u32(spec.E), u32(spec.block), u32(spec.stage),
        u32(spec.emask), fromNumerics(spec.fmt), fromNumerics(spec.scale),
        fromNumerics(spec.round), fromNumerics(spec.inter), fromNumerics(spec.layout), rconv);
    return;
  }
  case KernelOp::RotateQuantGemm: {
    Value wQ = take(), wS = take(), y = take(), rows = take();
    dialect::RotateQuantGemmOp::create(b, loc, first, r, wQ, wS, y, rows, u32(spec.K), u32(spec.N),
                                       u32(spec.RS), fromNumerics(spec.rot), u32(spec.M),
                                       fromNumerics(spec.fmt), fromNumerics(spec.scale),
                                       fromNumerics(spec.round), fromNumerics(spec.inter),
                                       fromNumerics(spec.layout), fromNumerics(spec.wlayout), rconv);
    return;
  }
  case KernelOp::QuantWeight: {
    Value q = take(), s = take();
    dialect::QuantWeightOp::create(
        b, loc, first, r, q, s, u32(spec.K), u32(spec.N), u32(spec.RS), fromNumerics(spec.rot),
        fromNumerics(spec.fmt), fromNumerics(spec.scale), fromNumerics(spec.round),
        fromNumerics(spec.inter), fromNumerics(spec.layout), fromNumerics(spec.wlayout), rconv);
    return;
  }
  }
}

} // namespace

void registerMxfDialect(DialectRegistry &registry) { registry.insert<dialect::MxfDialect>(); }

Status tryBuildMxfModule(const KernelSpec &spec, MLIRContext &context,
                         OwningOpRef<ModuleOp> &module) {
  module = nullptr;
  if (Status s = validateSpec(spec); !s.ok())
    return Status::failure("invalid spec: " + s.message());
  context.loadDialect<func::FuncDialect, dialect::MxfDialect>();

  const std::string name = kernelName(spec);
  // Diagnostics about the kernel point at its name.
  Location loc = NameLoc::get(StringAttr::get(&context, name));
  OpBuilder b(&context);
  OwningOpRef<ModuleOp> result = ModuleOp::create(loc);

  SmallVector<Type> argTypes;
  for (const KernelOperand &operand : kernelOperands(spec))
    argTypes.push_back(MemRefType::get(operand.shape, elementType(context, operand.element)));
  if (kernelHasRowsOperand(spec.op))
    argTypes.push_back(b.getI32Type());

  b.setInsertionPointToEnd(result->getBody());
  auto func = func::FuncOp::create(b, loc, name, b.getFunctionType(argTypes, {}));
  func->setAttr(kSpecAttrName, b.getStringAttr(printSpec(spec)));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  createKernelOp(b, loc, spec, entry->getArguments());
  func::ReturnOp::create(b, loc);

  // Cannot fail for a valid spec (kernelOperands is what the verifier checks
  // against); if it ever does, say so rather than hand out invalid IR.
  if (failed(verify(*result)))
    return Status::failure("internal error: the mxf module built for '" + printSpec(spec) +
                           "' does not verify");
  module = std::move(result);
  return Status::success();
}

OwningOpRef<ModuleOp> buildMxfModule(const KernelSpec &spec, MLIRContext &context) {
  OwningOpRef<ModuleOp> module;
  (void)tryBuildMxfModule(spec, context, module);
  return module;
}

bool isMxfKernelOp(Operation *op) {
  return op && isa<dialect::RotateQuantOp, dialect::RotateQuantMoeOp, dialect::RotateQuantGemmOp,
                   dialect::QuantWeightOp>(op);
}

Result<KernelSpec> trySpecFromOp(Operation *op) {
  if (!isMxfKernelOp(op))
    return Result<KernelSpec>::failure(
        std::string("'") + (op ? op->getName().getStringRef().str() : std::string("null")) +
        "' is not an mxf kernel op (mxf.rotate_quant, mxf.rotate_quant_moe, "
        "mxf.rotate_quant_gemm, mxf.quant_weight)");
  return llvm::TypeSwitch<Operation *, KernelSpec>(op)
      .Case<dialect::RotateQuantOp, dialect::RotateQuantMoeOp, dialect::RotateQuantGemmOp,
            dialect::QuantWeightOp>([](auto kernel) { return kernel.getKernelSpec(); })
      .Default([](Operation *) { return KernelSpec(); });
}

KernelSpec specFromOp(Operation *op) {
  Result<KernelSpec> spec = trySpecFromOp(op);
  assert(spec.ok() && "specFromOp: not an mxf kernel op");
  if (!spec.ok()) {
    KernelSpec invalid;
    invalid.K = 0; // validateSpec rejects it
    return invalid;
  }
  return spec.value();
}

} // namespace mxf
