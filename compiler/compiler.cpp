//===- compiler.cpp - Spec or MLIR module -> gfx950 code object -----------===//
//
// Drives one compile through its stages (compiler.h), turns every failure
// into one message that names the stage and what was being compiled. Specs
// become IR through the mxf dialect and are lowered by their template
// family (templates/registry.h), which the compiler links directly.
//
//===----------------------------------------------------------------------===//

#include "compiler/compiler.h"

#include "abi/operands.h"
#include "codeobj/hsaco_reader.h"
#include "compiler/dump.h"
#include "compiler/frontend.h"
#include "compiler/object_pool.h"
#include "compiler/pipeline.h"
#include "compiler/serializer.h"
#include "dialects/mxf/mxf_api.h"
#include "spec/kernel_spec.h"
#include "support/fork_gate.h"
#include "templates/lower_mxf_to_gpu.h"
#include "templates/registry.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

namespace mxf {
namespace {

using compiler::StageDumper;

constexpr CompileStage kAllStages[] = {CompileStage::Mxf,  CompileStage::Gpu,
                                       CompileStage::Rocdl, CompileStage::Llvm,
                                       CompileStage::Asm,  CompileStage::Hsaco};

//===----------------------------------------------------------------------===//
// Contexts
//===----------------------------------------------------------------------===//

void registerDialectsFor(mlir::DialectRegistry &registry) {
  compiler::registerPipelineDialects(registry);
  registerMxfDialect(registry);
}

std::unique_ptr<mlir::MLIRContext> createContext() {
  mlir::DialectRegistry registry;
  registerDialectsFor(registry);
  return std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
}

/// An MLIRContext in the pool, with what it was made for.
struct PooledContext {
  std::unique_ptr<mlir::MLIRContext> context;
  unsigned compiles = 0;
};

/// Leaked on purpose: destroying contexts during static destruction at exit
/// could run after MLIR's own statics are gone; the OS reclaims the memory.
compiler::ObjectPool<PooledContext> &contextPool() {
  static auto *pool = new compiler::ObjectPool<PooledContext>();
  return *pool;
}

/// The MLIRContext of one compile, lent from the pool (object_pool.h).
///
/// Why: a fresh context has to load every dialect the compile touches
/// (amdgpu, rocdl and llvm alone register several hundred ops) and tear them
/// down again, about 2 ms of a 20 ms compile. Nothing of one compile reaches
/// the next: its module is erased before the lease ends and diagnostic
/// handlers are scoped, so what a context keeps is loaded dialects and
/// uniqued attributes and types, none of which changes the code (the spec
/// matrix compiles to identical bytes either way; docs/compiler.md,
/// "Compile time"). The uniqued attributes do accumulate, but slowly: one
/// context through all 322 specs of the matrix held under 1 MB more than
/// fresh contexts did. Replacing a context after kContextCompiles compiles
/// bounds that for templates that make bigger constants.
class ContextLease {
public:
  ContextLease() {
    pooled_ = contextPool().take([](const PooledContext &) { return true; });
    if (!pooled_ || pooled_->compiles >= kContextCompiles) {
      pooled_.reset(); // before the new one: peak memory stays one context
      pooled_ = std::make_unique<PooledContext>();
      pooled_->context = createContext();
    }
    ++pooled_->compiles;
  }
  ~ContextLease() { contextPool().give(std::move(pooled_)); }
  ContextLease(const ContextLease &) = delete;
  ContextLease &operator=(const ContextLease &) = delete;

  mlir::MLIRContext &get() { return *pooled_->context; }

private:
  static constexpr unsigned kContextCompiles = 256;
  std::unique_ptr<PooledContext> pooled_;
};

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

std::string formatLocation(mlir::Location loc) {
  if (auto fileLoc = loc->findInstanceOf<mlir::FileLineColLoc>())
    return (fileLoc.getFilename().getValue() + ":" + llvm::Twine(fileLoc.getLine()) + ":" +
            llvm::Twine(fileLoc.getColumn()))
        .str();
  if (llvm::isa<mlir::UnknownLoc>(loc))
    return "<unknown>";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << loc;
  return text;
}

const char *severityName(mlir::DiagnosticSeverity severity) {
  switch (severity) {
  case mlir::DiagnosticSeverity::Error:
    return "error";
  case mlir::DiagnosticSeverity::Warning:
    return "warning";
  case mlir::DiagnosticSeverity::Remark:
    return "remark";
  case mlir::DiagnosticSeverity::Note:
    return "note";
  }
  return "note";
}

/// Captures the MLIR diagnostics of one compile (so that nothing reaches
/// stderr behind the caller's back) and hands the errors, with their notes,
/// to the failure message.
class DiagnosticCollector {
public:
  DiagnosticCollector(mlir::MLIRContext *context, llvm::raw_ostream *echo)
      : echo_(echo), handler_(context, [this](mlir::Diagnostic &diag) {
          record(diag);
          return mlir::success();
        }) {}

  std::vector<std::string> takeErrors() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(errors_, {});
  }

private:
  void record(mlir::Diagnostic &diag) {
    std::string text = formatLocation(diag.getLocation()) + ": " +
                       severityName(diag.getSeverity()) + ": " + diag.str();
    for (mlir::Diagnostic &note : diag.getNotes()) {
      std::string noteText = note.str();
      // "see current operation" notes print whole functions; the dump
      // directory has the full IR for whoever needs it.
      constexpr size_t kMaxNote = 2000;
      if (noteText.size() > kMaxNote)
        noteText = noteText.substr(0, kMaxNote) + " ...";
      text += "\n    " + formatLocation(note.getLocation()) + ": note: " + noteText;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (echo_)
      *echo_ << text << "\n";
    if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
      errors_.push_back(std::move(text));
  }

  std::mutex mutex_; // diagnostics may come from pass-manager threads
  std::vector<std::string> errors_;
  llvm::raw_ostream *echo_;
  mlir::ScopedDiagnosticHandler handler_; // last: its callback uses the above
};

Result<CodeObject> stageFailure(CompileStage stage, const std::string &specText,
                                const std::string &what, DiagnosticCollector *diagnostics) {
  std::string message = std::string("[stage ") + compileStageName(stage) + "] ";
  if (!specText.empty())
    message += specText + ": ";
  message += what;
  if (diagnostics)
    for (const std::string &line : diagnostics->takeErrors())
      message += "\n  " + line;
  return Result<CodeObject>::failure(message);
}

//===----------------------------------------------------------------------===//
// The stages
//===----------------------------------------------------------------------===//

Status validateOptions(const CompileOptions &options, CompileStage &stop) {
  std::optional<CompileStage> parsed = parseCompileStage(options.stopAfter);
  if (!parsed)
    return Status::failure("invalid compile options: stop-after stage '" + options.stopAfter +
                           "' is not one of " + compileStageList());
  stop = *parsed;
  if (options.codeObjectVersion != 5 && options.codeObjectVersion != 6)
    return Status::failure("invalid compile options: code object version " +
                           std::to_string(options.codeObjectVersion) + " is not 5 or 6");
  if (stop != CompileStage::Hsaco && !options.stageText)
    return Status::failure("invalid compile options: stopping after stage '" + options.stopAfter +
                           "' needs somewhere to put its text (CompileOptions::stageText)");
  return Status::success();
}

bool holdsDialect(mlir::ModuleOp module, llvm::StringRef dialectNamespace) {
  if (dialectNamespace.empty())
    return false;
  bool found = false;
  module->walk([&](mlir::Operation *op) {
    if (op->getName().getDialectNamespace() != dialectNamespace)
      return mlir::WalkResult::advance();
    found = true;
    return mlir::WalkResult::interrupt();
  });
  return found;
}

/// mxf -> gpu: each mxf op's template family builds its gpu.func.
compiler::Lowering templateLowering() {
  compiler::Lowering lowering;
  lowering.addPasses = [](mlir::OpPassManager &pm) { pm.addPass(createMxfLowerToGpuPass()); };
  return lowering;
}

std::string printModule(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// `launch`, when given (a spec's compile), is embedded in the code object
/// and must read back from it unchanged.
Result<CodeObject> runStages(mlir::ModuleOp module, const CompileOptions &options,
                             const std::string &specText, const compiler::Lowering &lowering,
                             DiagnosticCollector &diagnostics,
                             const LaunchRecord *launch = nullptr,
                             const std::vector<std::string> *argumentNames = nullptr) {
  CompileStage stop = CompileStage::Hsaco;
  if (Status valid = validateOptions(options, stop); !valid.ok())
    return Result<CodeObject>::failure(valid.message());
  llvm::raw_ostream *print =
      options.printIrAfterAll ? (options.printStream ? options.printStream : &llvm::errs())
                              : nullptr;
  StageDumper dumper(options.dumpDir, print);
  if (Status opened = dumper.open(); !opened.ok())
    return stageFailure(CompileStage::Mxf, specText, opened.message(), nullptr);
  auto fail = [&](CompileStage stage, const std::string &what) {
    return stageFailure(stage, specText, what, &diagnostics);
  };
  // Stopping early: the stage's text goes to the caller, no code object.
  auto stopWith = [&](std::string text) {
    *options.stageText = std::move(text);
    CodeObject partial;
    partial.spec = specText;
    return Result<CodeObject>(std::move(partial));
  };
  auto dumpModule = [&](llvm::StringRef name, llvm::StringRef header) {
    dumper.emit(name, "mlir", header, [&](llvm::raw_ostream &os) { module->print(os); });
  };

  // mxf: the module as given.
  if (mlir::failed(mlir::verify(module)))
    return fail(CompileStage::Mxf, "the input module does not verify");
  dumpModule("input", "IR Dump of the input");
  if (Status written = dumper.status(); !written.ok())
    return fail(CompileStage::Mxf, written.message());
  if (stop == CompileStage::Mxf)
    return stopWith(printModule(module));

  // gpu: the frontend's lowering (nothing to do for gpu-level input).
  const bool verifyEachPass = options.verifyEachPass || dumper.active();
  if (Status lowered = compiler::runLowering(module, lowering, dumper, verifyEachPass);
      !lowered.ok())
    return fail(CompileStage::Gpu, lowered.message());
  if (Status written = dumper.status(); !written.ok())
    return fail(CompileStage::Gpu, written.message());
  if (stop == CompileStage::Gpu)
    return stopWith(printModule(module));

  // rocdl: the conversions.
  if (Status converted = compiler::runRocdlConversion(module, dumper, verifyEachPass);
      !converted.ok())
    return fail(CompileStage::Rocdl, converted.message());
  if (Status written = dumper.status(); !written.ok())
    return fail(CompileStage::Rocdl, written.message());
  if (stop == CompileStage::Rocdl)
    return stopWith(printModule(module));

  // llvm, asm, hsaco: the serializer.
  compiler::SerializeOptions serializeOptions;
  serializeOptions.codeObjectVersion = options.codeObjectVersion;
  serializeOptions.stopAfter = stop;
  serializeOptions.dumper = &dumper;
  serializeOptions.diagnosticStream = options.diagnosticStream;
  serializeOptions.freshCodeGenPipeline = options.freshCodeGenPipeline;
  serializeOptions.launchRecord = launch;
  serializeOptions.argumentNames = argumentNames;
  compiler::SerializeOutput serialized;
  if (Status status = compiler::serializeGpuModule(module, serializeOptions, serialized);
      !status.ok())
    return fail(serialized.failedStage, status.message());
  if (Status written = dumper.status(); !written.ok())
    return fail(stop, written.message());
  if (stop != CompileStage::Hsaco)
    return stopWith(std::move(serialized.text));

  // The launch facts come from the code object itself, never from what we
  // meant to emit.
  Result<std::vector<KernelInfo>> kernels = codeobj::readKernelInfos(serialized.hsaco);
  if (!kernels.ok())
    return fail(CompileStage::Hsaco, "the linked code object does not read back: " +
                                         kernels.error());
  if (kernels.value().size() != 1)
    return fail(CompileStage::Hsaco, "the linked code object holds " +
                                         std::to_string(kernels.value().size()) +
                                         " kernels; expected exactly one");
  Result<std::optional<LaunchRecord>> embedded = codeobj::readLaunchRecord(serialized.hsaco);
  if (!embedded.ok())
    return fail(CompileStage::Hsaco, "the linked code object's launch record does not read "
                                     "back: " + embedded.error());
  if (embedded.value().has_value() != (launch != nullptr) ||
      (launch && *embedded.value() != *launch))
    return fail(CompileStage::Hsaco, "internal error: the code object's embedded launch record "
                                     "is not the one the template gave");
  CodeObject result;
  result.hsaco = std::move(serialized.hsaco);
  result.kernel = std::move(kernels.value().front());
  if (launch)
    result.launch = *launch;
  result.spec = specText;
  return result;
}

Result<mlir::OwningOpRef<mlir::ModuleOp>> parseWith(std::string_view text,
                                                    const std::string &bufferName,
                                                    mlir::MLIRContext &context) {
  mlir::ParserConfig config(&context);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(
      llvm::StringRef(text.data(), text.size()), config, bufferName);
  if (!module)
    return Result<mlir::OwningOpRef<mlir::ModuleOp>>::failure("cannot parse '" + bufferName +
                                                              "'");
  return module;
}

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

const char *compileStageName(CompileStage stage) {
  switch (stage) {
  case CompileStage::Mxf:
    return "mxf";
  case CompileStage::Gpu:
    return "gpu";
  case CompileStage::Rocdl:
    return "rocdl";
  case CompileStage::Llvm:
    return "llvm";
  case CompileStage::Asm:
    return "asm";
  case CompileStage::Hsaco:
    return "hsaco";
  }
  return "?";
}

std::optional<CompileStage> parseCompileStage(std::string_view name) {
  for (CompileStage stage : kAllStages)
    if (name == compileStageName(stage))
      return stage;
  return std::nullopt;
}

std::string compileStageList() {
  std::string list;
  for (CompileStage stage : kAllStages)
    list += (list.empty() ? "" : "|") + std::string(compileStageName(stage));
  return list;
}

void registerCompilerDialects(mlir::DialectRegistry &registry) { registerDialectsFor(registry); }

std::unique_ptr<mlir::MLIRContext> createCompilerContext() { return createContext(); }

Result<mlir::OwningOpRef<mlir::ModuleOp>> parseMlirModule(std::string_view text,
                                                          const std::string &bufferName,
                                                          mlir::MLIRContext &context) {
  DiagnosticCollector diagnostics(&context, nullptr);
  Result<mlir::OwningOpRef<mlir::ModuleOp>> parsed = parseWith(text, bufferName, context);
  std::string message = parsed.ok() ? "" : parsed.error();
  if (parsed.ok() && mlir::failed(mlir::verify(parsed.value().get())))
    message = "'" + bufferName + "' does not verify";
  if (message.empty())
    return parsed;
  for (const std::string &line : diagnostics.takeErrors())
    message += "\n  " + line;
  return Result<mlir::OwningOpRef<mlir::ModuleOp>>::failure(message);
}

Result<CodeObject> compileModule(mlir::ModuleOp module, const CompileOptions &options,
                                 const std::string &specText) {
  ForkGate::Scope noForkInside; // support/fork_gate.h: a fork waits for this compile
  mlir::MLIRContext *context = module->getContext();
  // The caller's context may lack the interfaces and translations the
  // pipeline relies on; adding what is already there is a no-op.
  mlir::DialectRegistry registry;
  registerDialectsFor(registry);
  context->appendDialectRegistry(registry);
  DiagnosticCollector diagnostics(context, options.diagnosticStream);
  compiler::Lowering lowering;
  if (!options.loweringPipeline.empty())
    lowering.pipeline = options.loweringPipeline;
  else if (holdsDialect(module, "mxf"))
    lowering = templateLowering();
  return runStages(module, options, specText, lowering, diagnostics);
}

Result<CodeObject> compileMlirText(std::string_view text, const std::string &bufferName,
                                   const CompileOptions &options, const std::string &specText) {
  ForkGate::Scope noForkInside; // support/fork_gate.h: a fork waits for this compile
  const std::string name = specText.empty() ? bufferName : specText;
  CompileStage stop;
  if (Status valid = validateOptions(options, stop); !valid.ok())
    return Result<CodeObject>::failure(valid.message());
  // Declared before the module: the module must go before its context does.
  ContextLease context;
  Result<mlir::OwningOpRef<mlir::ModuleOp>> parsed = [&] {
    DiagnosticCollector diagnostics(&context.get(), options.diagnosticStream);
    Result<mlir::OwningOpRef<mlir::ModuleOp>> module = parseWith(text, bufferName, context.get());
    if (!module.ok())
      return Result<mlir::OwningOpRef<mlir::ModuleOp>>(
          stageFailure(CompileStage::Mxf, name, "cannot parse the input", &diagnostics)
              .status());
    return module;
  }();
  if (!parsed.ok())
    return Result<CodeObject>::failure(parsed.error());
  return compileModule(parsed.value().get(), options, name);
}

Result<CodeObject> compileSpec(const KernelSpec &spec, const CompileOptions &options) {
  ForkGate::Scope noForkInside; // support/fork_gate.h: a fork waits for this compile
  // Options first: a typo in them should not cost a template build.
  CompileStage stop;
  if (Status valid = validateOptions(options, stop); !valid.ok())
    return Result<CodeObject>::failure(valid.message());
  if (Status valid = validateSpec(spec); !valid.ok())
    return Result<CodeObject>::failure("invalid spec: " + valid.message());
  const TemplateFamily *family = findTemplateFamily(spec.op);
  if (!family)
    return stageFailure(CompileStage::Mxf, printSpec(spec),
                        std::string("no kernel template is registered for ") +
                            kernelOpName(spec.op),
                        nullptr);
  if (Status supported = family->rules.checkSupported(spec); !supported.ok())
    return stageFailure(CompileStage::Mxf, printSpec(spec), supported.message(), nullptr);
  // What the code depends on: specs of one tiling class compile to the
  // same code object, named and cached by this spec.
  const KernelSpec codeSpec = family->rules.codeSpec(spec);
  const std::string specText = printSpec(codeSpec);
  // Declared before the module: the module must go before its context does.
  ContextLease context;
  DiagnosticCollector diagnostics(&context.get(), options.diagnosticStream);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (Status built = tryBuildMxfModule(codeSpec, context.get(), module); !built.ok())
    return stageFailure(CompileStage::Mxf, specText,
                        "building the mxf module failed: " + built.message(), &diagnostics);
  const LaunchRecord launch = family->rules.launchRecord(codeSpec);
  // The arguments abi/operands.h declares, in order: the code object's
  // metadata names them.
  std::vector<std::string> argumentNames;
  for (const KernelOperand &operand : kernelOperands(codeSpec))
    argumentNames.push_back(operand.name);
  for (const ScalarArg &scalar : kernelScalarArgs(codeSpec))
    argumentNames.push_back(scalar.name);
  Result<CodeObject> compiled = runStages(module.get(), options, specText, templateLowering(),
                                          diagnostics, &launch, &argumentNames);
  if (!compiled.ok() || stop != CompileStage::Hsaco)
    return compiled;
  CodeObject &code = compiled.value();
  // The record and the code come from one template; if they ever disagree,
  // nothing may launch it.
  if (Status agrees = code.launch.checkAgainst(code.kernel); !agrees.ok())
    return stageFailure(CompileStage::Hsaco, specText,
                        "internal error: the launch record disagrees with the code object: " +
                            agrees.message(),
                        nullptr);
  return compiled;
}

} // namespace mxf
