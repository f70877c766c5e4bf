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

using namespace mlir;

namespace mxf {
namespace {

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

/// "mxf.rotate_quant, mxf.rotate_quant_moe, ...": every kernel op.
std::string kernelOpList() {
  std::string out;
  for (KernelOp op : kAllKernelOps)
    out += std::string(out.empty() ? "" : ", ") + "mxf." + kernelOpName(op);
  return out;
}

/// The spec's op, over the entry block's arguments (kernelOperands(spec)
/// in order, then the row count): one generic creation for every family,
/// by the op's name.
void createKernelOp(OpBuilder &b, Location loc, const KernelSpec &spec,
                    Block::BlockArgListType args) {
  OperationState state(loc, std::string("mxf.") + kernelOpName(spec.op));
  state.addAttribute("spec", b.getStringAttr(printSpec(spec)));
  state.addOperands(ValueRange(args));
  b.create(state);
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
  // Every op of the dialect is a kernel op (one per family).
  return op && isa_and_nonnull<dialect::MxfDialect>(op->getDialect());
}

Result<KernelSpec> trySpecFromOp(Operation *op) {
  if (!isMxfKernelOp(op))
    return Result<KernelSpec>::failure(
        std::string("'") + (op ? op->getName().getStringRef().str() : std::string("null")) +
        "' is not an mxf kernel op (" + kernelOpList() + ")");
  auto text = op->getAttrOfType<StringAttr>("spec");
  if (!text)
    return Result<KernelSpec>::failure("'" + op->getName().getStringRef().str() +
                                       "' has no spec attribute");
  return parseSpec(text.getValue().str());
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
