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
#include "compiler/dump.h"
#include "spec/kernel_spec.h"
#include "support/file_io.h"
#include "support/output_files.h"
#include "tools/mxforge/cli_support.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

namespace mxf::cli {
namespace {

/// The largest .mlir file `compile --input` reads (a kernel's IR is tens of
/// kilobytes; this only keeps a wrong file from filling memory).
constexpr uint64_t kMaxMlirInputBytes = uint64_t(256) << 20;

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

/// Writes `bytes` to `path` ('-': `out`) through support/output_files.h: a
/// failed write never leaves a truncated code object where a good one was,
/// and a device or FIFO at `path` is written, not replaced.
Status writeOutput(const std::string &path, llvm::StringRef bytes,
                   const std::vector<std::string> &inputs, llvm::raw_ostream &out) {
  if (path == "-") {
    out << bytes;
    out.flush();
    return Status::success();
  }
  return writeOutputFiles({{"output", path, std::vector<uint8_t>(bytes.begin(), bytes.end())}},
                          inputs);
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
  // Before the compile: an -o that names the input would destroy it.
  std::vector<std::string> inputs;
  if (flags.input && *flags.input != "-")
    inputs.push_back(*flags.input);
  if (output != "-")
    if (Status distinct = checkDistinctOutputs({output}, {"output"}, inputs); !distinct.ok())
      return reportError(err, distinct.message());
  std::string stageText;
  options.stageText = &stageText;

  Result<CodeObject> compiled = Result<CodeObject>::failure("not compiled");
  if (flags.spec) {
    Result<KernelSpec> spec = parseSpec(*flags.spec);
    if (!spec.ok())
      return reportError(err, "invalid spec: " + spec.error());
    // Without --dump-dir, MXFORGE_DUMP_DIR as the library's JIT reads it: one
    // folder per kernel under it (docs/runtime.md).
    if (!flags.dumpDir)
      if (Status s = compiler::useDumpRoot(compiler::dumpRootFromEnvironment(), spec.value(),
                                           options.dumpDir);
          !s.ok())
        return reportError(err, s.message());
    compiled = compileSpec(spec.value(), options);
  } else {
    std::string text;
    if (*flags.input == "-") {
      llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> input =
          llvm::MemoryBuffer::getSTDIN();
      if (!input)
        return reportError(err, "cannot read the standard input: " +
                                    input.getError().message());
      text = (*input)->getBuffer().str();
    } else {
      // A regular file of bounded size; a FIFO or device is refused.
      Result<std::vector<uint8_t>> input = readFileBytes(*flags.input, kMaxMlirInputBytes);
      if (!input.ok())
        return reportError(err, "cannot read '" + *flags.input + "': " + input.error());
      text.assign(input.value().begin(), input.value().end());
    }
    const std::string name = *flags.input == "-" ? "<stdin>" : *flags.input;
    compiled = compileMlirText(text, name, options);
  }
  if (!compiled.ok())
    return reportError(err, compiled.error());

  const CodeObject &codeObject = compiled.value();
  llvm::StringRef bytes =
      *stage == CompileStage::Hsaco
          ? llvm::StringRef(reinterpret_cast<const char *>(codeObject.hsaco.data()),
                            codeObject.hsaco.size())
          : llvm::StringRef(stageText);
  if (Status written = writeOutput(output, bytes, inputs, out); !written.ok())
    return reportError(err, written.message());
  if (!namesStandardOutput(output)) {
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
