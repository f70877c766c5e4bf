//===- run_command.cpp - mxforge run: a kernel on a device ----------------===//
//
// Compiles a spec (or takes --hsaco), runs it on the emulator or a HIP
// device with the arrays `mxforge ref` would use (the same names, shapes and
// .npy conventions; missing inputs drawn from the seed), writes outputs and,
// with --check, compares every byte with the reference. Exit status 1 on any
// mismatch.
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/commands.h"

#include "abi/operands.h"

#include "tools/mxforge/array_outputs.h"

#include "runtime/device_factory.h"
#include "spec/kernel_spec.h"
#include "tools/mxforge/cli_support.h"
#include "tools/mxforge/kernel_run.h"
#include "arrays/random_inputs.h"
#include "arrays/reference_arrays.h"
#include "arrays/reference_runner.h"

#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

namespace mxf::cli {
namespace {

namespace cl = llvm::cl;

cl::SubCommand runCommand("run", "Compile a spec and run its kernel on a device (emu or hip)");

cl::opt<std::string> specFlag("spec", cl::sub(runCommand), cl::value_desc("SPEC"),
                              cl::desc("Kernel spec (required)"), cl::cat(mxforgeCategory()));
cl::opt<std::string> mFlag("M", cl::sub(runCommand), cl::value_desc("m"),
                           cl::desc("Rows to run, 1..the spec's M bucket (default: the bucket; "
                                    "quant_weight: its N)"),
                           cl::cat(mxforgeCategory()));
cl::opt<std::string> deviceFlag("device", cl::sub(runCommand), cl::value_desc("emu|hip"),
                                cl::desc("Where to run: the gfx950 emulator (default) or a HIP "
                                         "device"),
                                cl::init("emu"), cl::cat(mxforgeCategory()));
cl::opt<std::string> hsacoFlag("hsaco", cl::sub(runCommand), cl::value_desc("FILE"),
                               cl::desc("Run this code object instead of compiling the spec"),
                               cl::cat(mxforgeCategory()));
cl::opt<std::string> kernelFlag("kernel", cl::sub(runCommand), cl::value_desc("NAME"),
                                cl::desc("Kernel of --hsaco to run (needed when it has several)"),
                                cl::cat(mxforgeCategory()));
cl::list<std::string> inFlag("in", cl::sub(runCommand), cl::value_desc("NAME=FILE"),
                             cl::desc("Read input NAME from a .npy file (repeatable)"),
                             cl::cat(mxforgeCategory()));
cl::list<std::string> outFlag("out", cl::sub(runCommand), cl::value_desc("NAME=FILE"),
                              cl::desc("Write output (or input) NAME to a .npy file (repeatable)"),
                              cl::cat(mxforgeCategory()));
cl::opt<std::string> seedFlag("seed", cl::sub(runCommand), cl::value_desc("S"),
                              cl::desc("Seed of generated inputs (default: fresh, printed)"),
                              cl::cat(mxforgeCategory()));
cl::opt<std::string> rotateFlag("rotate", cl::sub(runCommand), cl::value_desc("N"),
                                cl::desc("select=flag: the launch's rotate value, nonzero "
                                         "rotates (default: drawn from the seed)"),
                                cl::cat(mxforgeCategory()));
cl::opt<std::string> layerFlag("layer", cl::sub(runCommand), cl::value_desc("N"),
                               cl::desc("select=mask: the launch's layer, an index into "
                                        "layer_mask (default: drawn from the seed)"),
                               cl::cat(mxforgeCategory()));
cl::list<std::string> valueFlag("value", cl::sub(runCommand), cl::value_desc("NAME=V"),
                                cl::desc("An op's by-value value, e.g. eps=1e-5 for "
                                         "rmsnorm_rotate_quant (default: the op's example)"),
                                cl::cat(mxforgeCategory()));
cl::opt<bool> checkFlag("check", cl::sub(runCommand),
                        cl::desc("Compare every output byte with the reference"),
                        cl::cat(mxforgeCategory()));
cl::opt<bool> statsFlag("stats", cl::sub(runCommand),
                        cl::desc("Print the device's launch statistics"),
                        cl::cat(mxforgeCategory()));

int runSelected(llvm::raw_ostream &out, llvm::raw_ostream &err) {
  // Take every flag's value now: linking with lld resets all llvm::cl
  // options to their defaults (lld::lldMain calls ResetAllOptionOccurrences),
  // so flags read after the compile would read as unset.
  const bool check = checkFlag, stats = statsFlag;
  const std::string deviceKind = deviceFlag, hsacoPath = hsacoFlag, kernelName = kernelFlag;
  if (!specFlag.getNumOccurrences())
    return reportError(err, "mxforge run needs --spec SPEC", kExitUsage);
  Result<std::vector<NamedFile>> inputFiles = parseNamedFiles("in", {inFlag.begin(), inFlag.end()});
  if (!inputFiles.ok())
    return reportError(err, inputFiles.error(), kExitUsage);
  Result<std::vector<NamedFile>> outputFiles =
      parseNamedFiles("out", {outFlag.begin(), outFlag.end()});
  if (!outputFiles.ok())
    return reportError(err, outputFiles.error(), kExitUsage);
  // With an array on stdout (`--out q=/dev/stdout`), the report goes to
  // stderr: stdout holds the array's bytes alone.
  llvm::raw_ostream &report = writesToStandardOutput(outputFiles.value()) ? err : out;
  uint64_t seed = arrays::freshSeed();
  if (seedFlag.getNumOccurrences()) {
    Result<uint64_t> parsed = parseU64Flag("seed", seedFlag);
    if (!parsed.ok())
      return reportError(err, parsed.error(), kExitUsage);
    seed = parsed.value();
  }
  Result<KernelSpec> spec = parseSpec(specFlag);
  if (!spec.ok())
    return reportError(err, "invalid spec: " + spec.error());
  // The device first: an unknown --device (or no GPU for hip) fails before
  // any input is read, any reference run or any kernel compiled.
  Result<std::unique_ptr<runtime::Device>> device = runtime::openDevice(deviceKind);
  if (!device.ok())
    return reportError(err, device.error());
  // Selective rotation's launch value: --rotate for select=flag, --layer
  // for select=mask (runReference checks its range and that the spec takes
  // one).
  std::optional<int64_t> selection;
  if (rotateFlag.getNumOccurrences() && layerFlag.getNumOccurrences())
    return reportError(err, "--rotate goes with select=flag, --layer with select=mask: give one",
                       kExitUsage);
  for (auto *flag : {&rotateFlag, &layerFlag}) {
    if (!flag->getNumOccurrences())
      continue;
    const char *name = flag == &rotateFlag ? "rotate" : "layer";
    Result<int> parsed = parseIntFlag(name, *flag);
    if (!parsed.ok())
      return reportError(err, parsed.error(), kExitUsage);
    const char *wanted = selectionArgName(spec.value());
    if (!wanted || std::string(wanted) != name)
      return reportError(err, std::string("--") + name + " is given, but " +
                                  printSpec(spec.value()) +
                                  (wanted ? std::string(" takes --") + wanted
                                          : std::string(" has no select key (it always "
                                                        "rotates)")));
    selection = parsed.value();
  }
  Result<LaunchValues> values = parseValueFlags({valueFlag.begin(), valueFlag.end()});
  if (!values.ok())
    return reportError(err, values.error(), kExitUsage);
  // The bucket, or N for quant_weight (which always runs its N rows; a
  // --M other than N is refused by the launch, naming the rule).
  int m = int(maxLaunchRows(spec.value()));
  if (mFlag.getNumOccurrences()) {
    Result<int> parsed = parseIntFlag("M", mFlag);
    if (!parsed.ok())
      return reportError(err, parsed.error(), kExitUsage);
    m = parsed.value();
  }
  Result<arrays::ReferenceSignature> signature = arrays::referenceSignature(spec.value(), m);
  if (!signature.ok())
    return reportError(err, signature.error());
  for (const NamedFile &file : inputFiles.value())
    if (!signature.value().findInput(file.name))
      return reportError(err, "unknown input '" + file.name + "'; the inputs are: " +
                                  arrays::joinArrayNames(signature.value().inputs));
  for (const NamedFile &file : outputFiles.value())
    if (!signature.value().findOutput(file.name) && !signature.value().findInput(file.name))
      return reportError(err, "unknown output '" + file.name + "'; the outputs are: " +
                                  arrays::joinArrayNames(signature.value().outputs));

  std::vector<std::string> inputPaths;
  for (const NamedFile &file : inputFiles.value())
    inputPaths.push_back(file.path);
  if (!hsacoPath.empty())
    inputPaths.push_back(hsacoPath);
  if (Status distinct = checkArrayOutputs(outputFiles.value(), inputPaths); !distinct.ok())
    return reportError(err, distinct.message());

  arrays::NpyArrays given;
  for (const NamedFile &file : inputFiles.value()) {
    Result<arrays::NpyArray> array = arrays::readNpy(file.path);
    if (!array.ok())
      return reportError(err, "input " + file.name + ": " + array.error());
    given.emplace(file.name, std::move(array.value()));
  }
  // The reference run also validates the given inputs and generates the rest.
  Result<arrays::ReferenceRun> reference =
      arrays::runReference(spec.value(), m, given, seed, selection, values.value());
  if (!reference.ok())
    return reportError(err, reference.error());
  if (!reference.value().generated.empty())
    report << "seed: " << seed << " (generated: " << llvm::join(reference.value().generated, ", ")
        << ")\n";
  if (std::string chosen = arrays::describeSelection(spec.value(), reference.value());
      !chosen.empty())
    report << "selection: " << chosen << (selection ? "" : " (drawn from the seed)") << "\n";
  if (std::string used = arrays::describeValues(reference.value()); !used.empty())
    report << "values: " << used << "\n";

  Result<CompiledKernel> kernel = obtainKernel(spec.value(), hsacoPath, kernelName);
  if (!kernel.ok())
    return reportError(err, kernel.error());
  Result<KernelRun> run =
      runAndCompare(*device.value(), kernel.value(), spec.value(), m, reference.value());
  if (!run.ok())
    return reportError(err, run.error());

  report << fmt::format("ran {} on {} (M={}): {:.1f} ms\n", kernel.value().code.kernel.name,
                     device.value()->description(), m, run.value().launchMs);
  if (stats)
    for (const auto &[counter, value] : run.value().report.counters)
      report << fmt::format("  {:<24} {}\n", counter, value);
  // A failed check writes no --out file: each keeps what it held, rather
  // than being replaced by output the check just called wrong.
  if (!check || run.value().ok()) {
    if (Status written = writeArrayOutputs(outputFiles.value(), run.value().outputs,
                                           reference.value().inputs, inputPaths);
        !written.ok())
      return reportError(err, written.message());
    for (const NamedFile &file : outputFiles.value())
      report << "wrote " << file.name << " to " << file.path << "\n";
  }
  if (!check) {
    report.flush();
    return kExitSuccess;
  }
  if (run.value().ok()) {
    report << "check: ok (every output byte equals the reference; rows past M untouched)\n";
    return kExitSuccess;
  }
  report << fmt::format("check: FAILED: {} bytes differ from the reference, {} bytes past M "
                     "written\n",
                     run.value().mismatches, run.value().untouchedViolations);
  for (const std::string &line : run.value().details)
    report << "  " << line << "\n";
  if (!outputFiles.value().empty())
    report << "no --out file was written (the check failed; without --check they are)\n";
  report.flush();
  return kExitFailure;
}

} // namespace

Subcommand runSubcommand() { return {&runCommand, runSelected}; }

} // namespace mxf::cli
