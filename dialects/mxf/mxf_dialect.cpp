//===- mxf_dialect.cpp - The mxf dialect: syntax and verifier of its ops --===//
//
// Every kernel op has one implementation, driven by its KernelOp: the custom
// form spells the spec's keys (`<K = 4096, RS = 64, ...>`, each key and value
// as the spec text writes it) and names each buffer as the ABI does
// (`x(%x : memref<...>)`); the verifier parses the spec with the spec's own
// parser and validation (spec/kernel_spec.h: one set of rules for specs
// typed on the CLI and ops written in IR), then checks each operand against
// the type kernelOperands() derives from the spec. Nothing here names a
// family or a key, so a new family or key changes nothing in this file.
// Every diagnostic names the key or operand, the value, and what would be
// valid.
//
//===----------------------------------------------------------------------===//

#include "dialects/mxf/mxf_dialect.h"

#include "abi/operands.h"
#include "dialects/mxf/mxf_api.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include <string>
#include <vector>

using namespace mlir;

#include "dialects/mxf/mxf_dialect.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/mxf/mxf_ops.cpp.inc"

namespace mxf::dialect {

void MxfDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/mxf/mxf_ops.cpp.inc"
      >();
}

namespace {

/// Name of the operand that follows the buffers on ops that take it.
constexpr const char kRowsOperandName[] = "rows";

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

MemRefType memrefOf(MLIRContext *ctx, const KernelOperand &operand) {
  return MemRefType::get(operand.shape, elementType(ctx, operand.element));
}

/// A type as IR text, unquoted: diagnostics quote streamed types, but
/// "must be memref<16x2048xi8>, got memref<16x1024xi8>" reads better bare.
std::string str(Type type) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << type;
  return out;
}

/// The operand names a spec takes, in order: its buffers (kernelOperands),
/// then the row count where the op has one.
std::vector<std::string> operandNames(const KernelSpec &spec,
                                      const std::vector<KernelOperand> &buffers) {
  std::vector<std::string> names;
  for (const KernelOperand &operand : buffers)
    names.push_back(operand.name);
  if (kernelHasRowsOperand(spec.op))
    names.push_back(kRowsOperandName);
  return names;
}

std::string joined(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &name : names)
    out += (out.empty() ? "" : ", ") + name;
  return out;
}

/// `name(%v : type)` of the operand the spec takes at `index`, for "add ..."
/// hints.
std::string operandSyntax(MLIRContext *ctx, const std::vector<KernelOperand> &buffers,
                          size_t index) {
  if (index >= buffers.size())
    return std::string(kRowsOperandName) + "(%rows)";
  return std::string(buffers[index].name) + "(%" + buffers[index].name + " : " +
         str(memrefOf(ctx, buffers[index])) + ") for " + buffers[index].derivation;
}

/// The spec's items as the custom form spells them: "K = 4096".
std::vector<std::pair<std::string, std::string>> specItems(const std::string &canonical) {
  std::vector<std::pair<std::string, std::string>> items;
  size_t at = canonical.find(':') + 1;
  while (at > 0 && at < canonical.size()) {
    size_t comma = canonical.find(',', at);
    if (comma == std::string::npos)
      comma = canonical.size();
    const std::string item = canonical.substr(at, comma - at);
    const size_t eq = item.find('=');
    items.push_back({item.substr(0, eq), item.substr(eq + 1)});
    at = comma + 1;
  }
  return items;
}

//===----------------------------------------------------------------------===//
// Custom form
//===----------------------------------------------------------------------===//

/// `<key = value, ...>` into spec text "op:key=value,...". A value is a
/// decimal integer or a bare word (fp4, f32, gfx950: words MLIR lexes as
/// keywords are read the same way). The text is not validated here: the
/// verifier reports an invalid spec with the spec parser's message.
ParseResult parseSpecText(OpAsmParser &parser, KernelOp op, std::string &text) {
  text = std::string(kernelOpName(op)) + ":";
  if (parser.parseLess())
    return failure();
  if (succeeded(parser.parseOptionalGreater()))
    return success();
  bool first = true;
  do {
    StringRef key;
    if (failed(parser.parseOptionalKeyword(&key)))
      return parser.emitError(parser.getCurrentLocation(),
                              "expected a spec key (such as K, RS or fmt)");
    if (parser.parseEqual())
      return failure();
    std::string value;
    int64_t number = 0;
    OptionalParseResult integer = parser.parseOptionalInteger(number);
    if (integer.has_value()) {
      if (failed(*integer))
        return failure();
      value = std::to_string(number);
    } else {
      StringRef word;
      if (failed(parser.parseOptionalKeyword(&word)))
        return parser.emitError(parser.getCurrentLocation(),
                                "expected the value of " + key.str() +
                                    ": a decimal number or a word such as fp4");
      value = word.str();
    }
    text += (first ? "" : ",") + key.str() + "=" + value;
    first = false;
  } while (succeeded(parser.parseOptionalComma()));
  return parser.parseGreater();
}

/// The spec, then the named operands `name(%v : type)` and the row count as
/// `rows(%v)`, by the ABI's names in its order: a missing, extra or
/// misplaced buffer is named here, where the names still exist. An invalid
/// spec is reported here too, as the verifier would (its operands cannot be
/// known).
ParseResult parseKernelOp(OpAsmParser &parser, OperationState &result, KernelOp op) {
  const SMLoc opLoc = parser.getNameLoc();
  std::string text;
  if (parseSpecText(parser, op, text))
    return failure();
  Result<KernelSpec> spec = parseSpec(text);
  if (!spec.ok())
    return parser.emitError(opLoc) << "has an invalid spec: " << spec.error();
  result.addAttribute("spec", parser.getBuilder().getStringAttr(printSpec(spec.value())));

  MLIRContext *ctx = parser.getContext();
  const std::vector<KernelOperand> buffers = kernelOperands(spec.value());
  const std::vector<std::string> expected = operandNames(spec.value(), buffers);
  // Only the spec's names are read as operand names, so that the next op's
  // name (`return`) is never taken for one.
  const std::vector<StringRef> allowed(expected.begin(), expected.end());
  const std::string order = " (" + printSpec(spec.value()) + " takes " + joined(expected) +
                            ", in this order)";
  for (size_t index = 0; index < expected.size(); ++index) {
    const SMLoc loc = parser.getCurrentLocation();
    StringRef name;
    if (failed(parser.parseOptionalKeyword(&name, allowed))) {
      if (succeeded(parser.parseOptionalKeyword(&name)))
        return parser.emitError(loc)
               << "expected operand " << operandSyntax(ctx, buffers, index) << ", got '"
               << name << "'" << order;
      return parser.emitError(loc)
             << "missing operand " << operandSyntax(ctx, buffers, index) << order;
    }
    if (name != expected[index])
      return parser.emitError(loc) << "operand '" << name << "' given where the spec takes "
                                   << operandSyntax(ctx, buffers, index) << order;
    OpAsmParser::UnresolvedOperand value;
    Type type = IntegerType::get(ctx, 32); // rows
    if (parser.parseLParen() || parser.parseOperand(value))
      return failure();
    if (name != kRowsOperandName && parser.parseColonType(type))
      return failure();
    if (parser.parseRParen() || parser.resolveOperand(value, type, result.operands))
      return failure();
  }
  return parser.parseOptionalAttrDict(result.attributes);
}

void printKernelOp(OpAsmPrinter &printer, Operation *op, StringRef specText) {
  Result<KernelSpec> spec = parseSpec(specText.str());
  if (!spec.ok()) { // only an unverified op; keep the text as it is
    printer << " <\"" << specText << "\">";
    printer.printOptionalAttrDict(op->getAttrs());
    return;
  }
  printer << " <";
  bool first = true;
  for (const auto &[key, value] : specItems(printSpec(spec.value()))) {
    printer << (first ? "" : ", ") << key << " = " << value;
    first = false;
  }
  printer << ">";
  const std::vector<std::string> names =
      operandNames(spec.value(), kernelOperands(spec.value()));
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    printer << ' ' << (index < names.size() ? names[index] : std::string("extra")) << '(';
    printer.printOperand(operand);
    if (index + 1 != names.size() || !kernelHasRowsOperand(spec.value().op))
      printer << " : " << operand.getType();
    printer << ')';
  }
  printer.printOptionalAttrDict(op->getAttrs(), /*elidedAttrs=*/{"spec"});
}

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

/// The spec, then the operand count and the type of every operand, then
/// the enclosing function's mxf.spec.
LogicalResult verifyKernelOp(Operation *op, KernelOp kind, StringRef specText) {
  Result<KernelSpec> parsed = parseSpec(specText.str());
  if (!parsed.ok())
    return op->emitOpError() << "has an invalid spec: " << parsed.error();
  const KernelSpec &spec = parsed.value();
  if (spec.op != kind)
    return op->emitOpError() << "holds a " << kernelOpName(spec.op) << " spec (\"" << specText
                             << "\"); it computes " << kernelOpName(kind);
  MLIRContext *ctx = op->getContext();
  const std::vector<KernelOperand> buffers = kernelOperands(spec);
  const std::vector<std::string> names = operandNames(spec, buffers);
  if (op->getNumOperands() != names.size())
    return op->emitOpError() << "takes " << names.size() << " operands for "
                             << printSpec(spec) << " (" << joined(names) << "), got "
                             << op->getNumOperands();
  for (size_t index = 0; index < buffers.size(); ++index) {
    const KernelOperand &want = buffers[index];
    Type got = op->getOperand(index).getType();
    MemRefType wantType = memrefOf(ctx, want);
    if (got != wantType)
      return op->emitOpError() << "operand #" << index << " (" << want.name << ") must be "
                               << str(wantType) << " for " << want.derivation << ", got "
                               << str(got);
  }
  if (kernelHasRowsOperand(spec.op) && !op->getOperand(buffers.size()).getType().isInteger(32))
    return op->emitOpError() << "operand #" << buffers.size()
                             << " (rows) must be i32, the launch's row count, got "
                             << str(op->getOperand(buffers.size()).getType());
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

} // namespace

// Each family's op shares the implementation above.
#define MXF_FAMILY(Name, folder)                                                                   \
  ParseResult Name##Op::parse(OpAsmParser &parser, OperationState &result) {                         \
    return parseKernelOp(parser, result, kKernelOp);                                               \
  }                                                                                                \
  void Name##Op::print(OpAsmPrinter &printer) { printKernelOp(printer, *this, getSpec()); }         \
  LogicalResult Name##Op::verify() { return verifyKernelOp(*this, kKernelOp, getSpec()); }           \
  KernelSpec Name##Op::getKernelSpec() {                                                             \
    Result<KernelSpec> spec = parseSpec(getSpec().str());                                          \
    return spec.ok() ? spec.value() : KernelSpec{};                                                \
  }
#include "templates/families.def"
#undef MXF_FAMILY

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
