//===- ref_command.cpp - mxforge ref: the reference on .npy arrays --------===//
//
// Reads the inputs a user gives, generates the rest from a seed, runs the
// reference and writes the arrays asked for. Everything that can be checked
// before running (names, flags, files) is checked first, so a typo costs no
// reference run and writes nothing.
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/commands.h"

#include "tools/mxforge/array_outputs.h"

#include "abi/operands.h"
#include "spec/kernel_spec.h"
#include "tools/mxforge/cli_support.h"
#include "arrays/random_inputs.h"
#include "arrays/reference_arrays.h"
#include "arrays/reference_runner.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

#include <set>

namespace mxf::cli {
namespace {

namespace cl = llvm::cl;

cl::SubCommand refCommand("ref", "Run the CPU reference of a kernel spec on .npy arrays");

cl::opt<std::string> specFlag("spec", cl::sub(refCommand), cl::value_desc("SPEC"),
                              cl::desc("Kernel spec (required)"), cl::cat(mxforgeCategory()));
cl::opt<std::string> mFlag("M", cl::sub(refCommand), cl::value_desc("m"),
                           cl::desc("Rows to run, 1..the spec's M bucket (default: the bucket; "
                                    "quant_weight ignores it and runs N rows)"),
                           cl::cat(mxforgeCategory()));
cl::list<std::string> inFlag("in", cl::sub(refCommand), cl::value_desc("NAME=FILE"),
                             cl::desc("Read input NAME from a .npy file (repeatable); inputs not "
                                      "given are generated from the seed"),
                             cl::cat(mxforgeCategory()));
cl::list<std::string> outFlag("out", cl::sub(refCommand), cl::value_desc("NAME=FILE"),
                              cl::desc("Write output (or input) NAME to a .npy file (repeatable)"),
                              cl::cat(mxforgeCategory()));
cl::opt<std::string> seedFlag("seed", cl::sub(refCommand), cl::value_desc("S"),
                              cl::desc("Seed of generated inputs and of round=sr (default: a "
                                       "fresh one, printed)"),
                              cl::cat(mxforgeCategory()));

template <typename T> std::optional<T> ifGiven(const cl::opt<T> &flag) {
  return flag.getNumOccurrences() ? std::optional<T>(flag.getValue()) : std::nullopt;
}

int runSelected(llvm::raw_ostream &out, llvm::raw_ostream &err) {
  RefOptions options;
  options.spec = ifGiven(specFlag);
  options.m = ifGiven(mFlag);
  options.inputs.assign(inFlag.begin(), inFlag.end());
  options.outputs.assign(outFlag.begin(), outFlag.end());
  options.seed = ifGiven(seedFlag);
  return runRef(options, out, err);
}

std::string unknownNameMessage(const char *what, llvm::StringRef name, const KernelSpec &spec,
                               const arrays::ReferenceSignature &sig) {
  std::string message =
      std::string("unknown ") + what + " '" + name.str() + "' for " + kernelOpName(spec.op);
  if (name == "r" && !isLearned(spec.rot))
    message += std::string(" (rot=") + rotationKindName(spec.rot) + " takes no matrix)";
  if (llvm::StringRef(what) == "input")
    return message + "; its inputs are: " + arrays::joinArrayNames(sig.inputs);
  return message + "; its outputs are: " + arrays::joinArrayNames(sig.outputs) +
         " (inputs can be written too: " + arrays::joinArrayNames(sig.inputs) + ")";
}

void printSeedLine(llvm::raw_ostream &out, uint64_t seed, const arrays::ReferenceRun &run,
                   const KernelSpec &spec) {
  std::vector<std::string> uses;
  if (!run.generated.empty())
    uses.push_back("generated: " + llvm::join(run.generated, ", "));
  // rotate_quant and rotate_quant_moe take round=sr's seed as the input
  // `seed` (generated from this seed unless given); the other ops round
  // with this seed itself.
  if (spec.round == Rounding::Sr && !run.inputs.count("seed"))
    uses.push_back("round=sr");
  if (!uses.empty())
    out << "seed: " << seed << " (" << llvm::join(uses, "; ") << ")\n";
  if (std::string chosen = arrays::describeSelection(spec, run); !chosen.empty())
    out << "selection: " << chosen << " (drawn from the seed)\n";
  if (std::string used = arrays::describeValues(run); !used.empty())
    out << "values: " << used << "\n";
}

} // namespace

Subcommand refSubcommand() { return {&refCommand, runSelected}; }

int runRef(const RefOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  // Command-line shape first (exit 2), then content (exit 1).
  if (!options.spec)
    return reportError(err, "mxforge ref needs --spec SPEC", kExitUsage);
  Result<std::vector<NamedFile>> inputFiles = parseNamedFiles("in", options.inputs);
  if (!inputFiles.ok())
    return reportError(err, inputFiles.error(), kExitUsage);
  Result<std::vector<NamedFile>> outputFiles = parseNamedFiles("out", options.outputs);
  if (!outputFiles.ok())
    return reportError(err, outputFiles.error(), kExitUsage);
  // With an array on stdout (`--out q=/dev/stdout`), the report goes to
  // stderr: stdout holds the array's bytes alone.
  llvm::raw_ostream &report = writesToStandardOutput(outputFiles.value()) ? err : out;
  std::optional<uint64_t> givenSeed;
  if (options.seed) {
    Result<uint64_t> seed = parseU64Flag("seed", *options.seed);
    if (!seed.ok())
      return reportError(err, seed.error(), kExitUsage);
    givenSeed = seed.value();
  }
  std::optional<int> givenM;
  if (options.m) {
    Result<int> m = parseIntFlag("M", *options.m);
    if (!m.ok())
      return reportError(err, m.error(), kExitUsage);
    givenM = m.value();
  }

  Result<KernelSpec> parsed = parseSpec(*options.spec);
  if (!parsed.ok())
    return reportError(err, "invalid spec: " + parsed.error());
  const KernelSpec &spec = parsed.value();
  if (givenM && !kernelHasRowsOperand(spec.op))
    err << "note: " << kernelOpName(spec.op) << " always processes its N=" << spec.N
        << " rows; --M is ignored\n";
  const int m = givenM.value_or(spec.M);
  Result<arrays::ReferenceSignature> sig = arrays::referenceSignature(spec, m);
  if (!sig.ok())
    return reportError(err, sig.error());
  for (const NamedFile &file : inputFiles.value())
    if (!sig.value().findInput(file.name))
      return reportError(err, unknownNameMessage("input", file.name, spec, sig.value()));
  for (const NamedFile &file : outputFiles.value())
    if (!sig.value().findOutput(file.name) && !sig.value().findInput(file.name))
      return reportError(err, unknownNameMessage("output", file.name, spec, sig.value()));
  std::vector<std::string> inputPaths;
  for (const NamedFile &file : inputFiles.value())
    inputPaths.push_back(file.path);
  if (Status distinct = checkArrayOutputs(outputFiles.value(), inputPaths); !distinct.ok())
    return reportError(err, distinct.message());

  arrays::NpyArrays given;
  for (const NamedFile &file : inputFiles.value()) {
    Result<arrays::NpyArray> array = arrays::readNpy(file.path);
    if (!array.ok())
      return reportError(err, "input " + file.name + ": " + array.error());
    given.emplace(file.name, std::move(array.value()));
  }
  const uint64_t seed = givenSeed ? *givenSeed : arrays::freshSeed();
  Result<arrays::ReferenceRun> run = arrays::runReference(spec, m, given, seed);
  if (!run.ok())
    return reportError(err, run.error());
  printSeedLine(report, seed, run.value(), spec);

  if (Status written = writeArrayOutputs(outputFiles.value(), run.value().outputs,
                                         run.value().inputs, inputPaths);
      !written.ok()) {
    report.flush();
    return reportError(err, written.message());
  }
  for (const NamedFile &file : outputFiles.value()) {
    const arrays::NpyArrays &from =
        run.value().outputs.count(file.name) ? run.value().outputs : run.value().inputs;
    const arrays::NpyArray &array = from.at(file.name);
    report << "wrote " << file.name << " " << arrays::describeArray(array.dtype(), array.shape)
        << " to " << file.path << "\n";
  }
  if (outputFiles.value().empty()) {
    report << "outputs (nothing written; use --out NAME=FILE):\n";
    for (const arrays::ArraySpec &array : sig.value().outputs)
      report << fmt::format("  {:<18} {:<20} {}\n", array.name,
                         arrays::describeArray(array.dtype, array.shape), array.meaning);
  }
  report.flush();
  return kExitSuccess;
}

} // namespace mxf::cli
