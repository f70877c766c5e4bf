//===- compile_command.cpp - mxforge compile: spec -> code object ---------===//
//
// mxforge compile --spec SPEC -o FILE.hsaco, or --input FILE.mlir (a module
// holding one gpu.module, for experiments and tests). --emit stops after an
// earlier stage and writes its text instead. Every flag is checked before
// anything is compiled, and nothing is written unless the compile succeeds
// (the output file is replaced atomically).
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/commands.h"

#include "compiler/compiler.h"
#include "spec/kernel_spec.h"
#include "tools/mxforge/cli_support.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

namespace mxf::cli {
namespace {

namespace cl = llvm::cl;

cl::SubCommand compileCommand("compile",
                              "Compile a kernel spec (or an MLIR module) to a gfx950 code object");

cl::opt<std::string> specFlag("spec", cl::sub(compileCommand), cl::value_desc("SPEC"),
                              cl::desc("Kernel spec to compile"), cl::cat(mxforgeCategory()));
cl::opt<std::string> inputFlag("input", cl::sub(compileCommand), cl::value_desc("FILE.mlir"),
                               cl::desc("Compile this MLIR module instead of a spec: one "
                                        "gpu.module with one kernel ('-': stdin)"),
                               cl::cat(mxforgeCategory()));
cl::opt<std::string> outputFlag("o", cl::sub(compileCommand), cl::value_desc("FILE"),
                                cl::desc("Output file, '-' for stdout (required for "
                                         "--emit hsaco; text stages default to stdout)"),
                                cl::cat(mxforgeCategory()));
cl::opt<std::string> emitFlag("emit", cl::sub(compileCommand), cl::value_desc("STAGE"),
                              cl::desc("Stop after this stage and write its output: "
                                       "mxf|gpu|rocdl|llvm|asm|hsaco (default: hsaco)"),
                              cl::cat(mxforgeCategory()));
cl::opt<std::string> dumpDirFlag("dump-dir", cl::sub(compileCommand), cl::value_desc("DIR"),
                                 cl::desc("Write the IR after every stage and pass to DIR as "
                                          "numbered files (00-input.mlir, ...)"),
                                 cl::cat(mxforgeCategory()));
cl::opt<bool> printIrFlag("print-ir-after-all", cl::sub(compileCommand),
                          cl::desc("Print the IR after every pass and stage on stderr"),
                          cl::cat(mxforgeCategory()));
cl::opt<std::string> covFlag("cov", cl::sub(compileCommand), cl::value_desc("5|6"),
                             cl::desc("AMDHSA code object version (default: 5)"),
                             cl::cat(mxforgeCategory()));

struct CompileFlags {
  std::optional<std::string> spec;
  std::optional<std::string> input;
  std::optional<std::string> output;
  std::optional<std::string> emit;
  std::optional<std::string> dumpDir;
  bool printIrAfterAll = false;
  std::optional<std::string> cov;
};

template <typename T> std::optional<T> ifGiven(const cl::opt<T> &flag) {
  return flag.getNumOccurrences() ? std::optional<T>(flag.getValue()) : std::nullopt;
}

/// Writes `bytes` to `path` ('-': `out`) atomically, so that a failed write
/// never leaves a truncated code object where a good one was.
Status writeOutput(const std::string &path, llvm::StringRef bytes, llvm::raw_ostream &out) {
  if (path == "-") {
    out << bytes;
    out.flush();
    return Status::success();
  }
  if (llvm::Error error = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << bytes;
        return llvm::Error::success();
      }))
    return Status::failure("cannot write '" + path + "': " + llvm::toString(std::move(error)));
  return Status::success();
}

int runCompile(const CompileFlags &flags, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  if (flags.spec.has_value() == flags.input.has_value())
    return reportError(err,
                       "mxforge compile needs exactly one of --spec SPEC or --input FILE.mlir, "
                       "e.g. mxforge compile --spec rotate_quant:K=4096 -o k.hsaco",
                       kExitUsage);
  CompileOptions options;
  const std::string emit = flags.emit.value_or("hsaco");
  std::optional<CompileStage> stage = parseCompileStage(emit);
  if (!stage)
    return reportError(err, "--emit '" + emit + "' is not one of " + compileStageList(),
                       kExitUsage);
  options.stopAfter = emit;
  if (flags.cov) {
    Result<int> cov = parseIntFlag("cov", *flags.cov);
    if (!cov.ok())
      return reportError(err, cov.error(), kExitUsage);
    if (cov.value() != 5 && cov.value() != 6)
      return reportError(err, "--cov '" + *flags.cov + "' is not a code object version we "
                              "emit; use 5 or 6",
                         kExitUsage);
    options.codeObjectVersion = cov.value();
  }
  if (!flags.output && *stage == CompileStage::Hsaco)
    return reportError(err, "mxforge compile needs -o FILE.hsaco (or -o - for stdout)",
                       kExitUsage);
  const std::string output = flags.output.value_or("-");
  if (output.empty())
    return reportError(err, "-o needs a file name ('-' for stdout)", kExitUsage);
  if (flags.dumpDir) {
    if (flags.dumpDir->empty())
      return reportError(err, "--dump-dir needs a directory name", kExitUsage);
    options.dumpDir = *flags.dumpDir;
  }
  options.printIrAfterAll = flags.printIrAfterAll;
  options.printStream = &err;
  std::string stageText;
  options.stageText = &stageText;

  Result<CodeObject> compiled = Result<CodeObject>::failure("not compiled");
  if (flags.spec) {
    Result<KernelSpec> spec = parseSpec(*flags.spec);
    if (!spec.ok())
      return reportError(err, "invalid spec: " + spec.error());
    compiled = compileSpec(spec.value(), options);
  } else {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> input =
        llvm::MemoryBuffer::getFileOrSTDIN(*flags.input, /*IsText=*/true);
    if (!input)
      return reportError(err, "cannot read '" + *flags.input + "': " +
                                  input.getError().message());
    const std::string name = *flags.input == "-" ? "<stdin>" : *flags.input;
    llvm::StringRef text = (*input)->getBuffer();
    compiled = compileMlirText(std::string_view(text.data(), text.size()), name, options);
  }
  if (!compiled.ok())
    return reportError(err, compiled.error());

  const CodeObject &codeObject = compiled.value();
  llvm::StringRef bytes =
      *stage == CompileStage::Hsaco
          ? llvm::StringRef(reinterpret_cast<const char *>(codeObject.hsaco.data()),
                            codeObject.hsaco.size())
          : llvm::StringRef(stageText);
  if (Status written = writeOutput(output, bytes, out); !written.ok())
    return reportError(err, written.message());
  if (output != "-") {
    // One line on what was written; stdout stays clean when it is the output.
    out << "wrote " << output << " (" << emit << ", " << bytes.size() << " bytes";
    if (*stage == CompileStage::Hsaco) {
      const KernelInfo &k = codeObject.kernel;
      out << "; kernel " << k.name << ": vgpr " << k.vgprCount << ", agpr " << k.agprCount
          << ", sgpr " << k.sgprCount << ", lds " << k.ldsBytes << " B, scratch "
          << k.scratchBytes << " B, kernarg " << k.kernargSize << " B";
    }
    out << ")\n";
    out.flush();
  }
  return kExitSuccess;
}

int runSelected(llvm::raw_ostream &out, llvm::raw_ostream &err) {
  CompileFlags flags;
  flags.spec = ifGiven(specFlag);
  flags.input = ifGiven(inputFlag);
  flags.output = ifGiven(outputFlag);
  flags.emit = ifGiven(emitFlag);
  flags.dumpDir = ifGiven(dumpDirFlag);
  flags.printIrAfterAll = printIrFlag;
  flags.cov = ifGiven(covFlag);
  return runCompile(flags, out, err);
}

} // namespace

Subcommand compileSubcommand() { return {&compileCommand, runSelected}; }

} // namespace mxf::cli
