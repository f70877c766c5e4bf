//===- bundle_command.cpp - mxforge bundle: specs -> AOT bundle -----------===//
//
// mxforge bundle --specs FILE | --preset NAME... -o OUT.mxfb [--threads N]
// compiles a list of specs in parallel (through the disk cache unless
// --no-cache) and writes them as one bundle (docs/bundle.md). Nothing is
// written unless every spec compiled; the file is replaced atomically.
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/commands.h"

#include "compiler/jit/in_process_jit.h"
#include "runtime/bundle_writer.h"
#include "spec/presets.h"
#include "spec/spec_list.h"
#include "support/file_io.h"
#include "support/output_files.h"
#include "support/version.h"
#include "abi/versions.h"
#include "tools/mxforge/bundle_extract.h"
#include "tools/mxforge/cli_support.h"
#include "tools/mxforge/spec_sources.h"
#include "tools/mxforge/text_table.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Format.h"

#include <chrono>
#include <cstdlib>
#include <map>
#include <set>

namespace mxf::cli {
namespace {

namespace cl = llvm::cl;

cl::SubCommand bundleCommand("bundle", "Compile a list of specs into one AOT bundle (.mxfb)");

cl::list<std::string> specsFlag("specs", cl::sub(bundleCommand), cl::value_desc("FILE"),
                                cl::desc("File of specs, one per line ('#' comments)"),
                                cl::cat(mxforgeCategory()));
cl::list<std::string> presetFlag("preset", cl::sub(bundleCommand), cl::value_desc("NAME"),
                                 cl::desc("A ready set of specs (see --list-presets)"),
                                 cl::cat(mxforgeCategory()));
cl::opt<std::string> outputFlag("o", cl::sub(bundleCommand), cl::value_desc("OUT.mxfb"),
                                cl::desc("The bundle to write"), cl::cat(mxforgeCategory()));
cl::opt<std::string> threadsFlag("threads", cl::sub(bundleCommand), cl::value_desc("N"),
                                 cl::desc("Compile on N threads (default: one per core)"),
                                 cl::cat(mxforgeCategory()));
cl::opt<std::string> covFlag("cov", cl::sub(bundleCommand), cl::value_desc("5|6"),
                             cl::desc("AMDHSA code object version (default: 5)"),
                             cl::cat(mxforgeCategory()));
cl::opt<bool> noCacheFlag("no-cache", cl::sub(bundleCommand),
                          cl::desc("Compile everything; neither read nor fill the disk cache"),
                          cl::cat(mxforgeCategory()));
cl::opt<bool> listPresetsFlag("list-presets", cl::sub(bundleCommand),
                              cl::desc("List the presets and exit"), cl::cat(mxforgeCategory()));
// `mxforge bundle extract FILE.mxfb [--spec S] -o DIR` (bundle_extract.h).
cl::list<std::string> actionArgs(cl::Positional, cl::sub(bundleCommand),
                                 cl::desc("extract FILE.mxfb: write its code objects"),
                                 cl::cat(mxforgeCategory()));
cl::opt<std::string> extractSpecFlag("spec", cl::sub(bundleCommand), cl::value_desc("SPEC"),
                                     cl::desc("With extract: only this spec's entry"),
                                     cl::cat(mxforgeCategory()));

// lld resets every llvm::cl option when it runs (docs/compiler.md), so the
// values are copied out before the first compile.
struct BundleFlags {
  std::vector<std::string> specFiles;
  std::vector<std::string> presets;
  std::optional<std::string> output;
  std::optional<std::string> threads;
  std::optional<std::string> cov;
  bool noCache = false;
  bool listPresets = false;
};

int listPresets(llvm::raw_ostream &out) {
  TextTable table;
  table.addColumn("preset", TextTable::Align::Left);
  table.addColumn("kernels");
  table.addColumn("covers", TextTable::Align::Left);
  for (const SpecPreset &preset : specPresets())
    table.addRow({preset.name, std::to_string(preset.specs.size()), preset.description});
  out << table.render();
  for (const SpecPreset &preset : specPresets())
    if (!preset.note.empty())
      out << "note: " << preset.name << ": " << preset.note << "\n";
  return kExitSuccess;
}

int runBundle(const BundleFlags &flags, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  if (flags.listPresets)
    return listPresets(out);
  if (flags.specFiles.empty() && flags.presets.empty())
    return reportError(err,
                       "mxforge bundle needs --specs FILE or --preset NAME, e.g. "
                       "mxforge bundle --preset qwen3-8b -o qwen3-8b.mxfb",
                       kExitUsage);
  if (!flags.output || flags.output->empty())
    return reportError(err, "mxforge bundle needs -o OUT.mxfb", kExitUsage);
  unsigned threads = 0;
  if (flags.threads) {
    Result<int> parsed = parseIntFlag("threads", *flags.threads);
    if (!parsed.ok())
      return reportError(err, parsed.error(), kExitUsage);
    if (parsed.value() < 1 || parsed.value() > 256)
      return reportError(err, "--threads '" + *flags.threads + "' must be 1..256", kExitUsage);
    threads = unsigned(parsed.value());
  }
  int cov = 5;
  if (flags.cov) {
    Result<int> parsed = parseIntFlag("cov", *flags.cov);
    if (!parsed.ok())
      return reportError(err, parsed.error(), kExitUsage);
    if (parsed.value() != 5 && parsed.value() != 6)
      return reportError(err, "--cov '" + *flags.cov + "' is not a code object version we "
                              "emit; use 5 or 6",
                         kExitUsage);
    cov = parsed.value();
  }

  // Before any compile: -o must not be one of the spec lists.
  if (Status distinct = checkDistinctOutputs({*flags.output}, {"the bundle"}, flags.specFiles);
      !distinct.ok())
    return reportError(err, distinct.message());

  // Gather specs: files first, then presets; a spec named twice is compiled once.
  bool usage = false;
  Result<std::vector<KernelSpec>> gathered =
      gatherSpecs({flags.specFiles, flags.presets, {}}, err, usage);
  if (!gathered.ok())
    return reportError(err, gathered.error(), usage ? kExitUsage : kExitFailure);
  const std::vector<KernelSpec> &specs = gathered.value();

  KernelTableOptions options;
  options.jit = inProcessJit(cov);
  // A bundle is shipped, so it holds what the compiler made for each spec
  // (compiled now or read from the cache), never a hand-edited
  // MXFORGE_KERNEL_OVERRIDE_DIR file (docs/runtime.md).
  options.jit->overrideCode = nullptr;
  if (const char *overrides = std::getenv("MXFORGE_KERNEL_OVERRIDE_DIR"); overrides && *overrides)
    err << "note: MXFORGE_KERNEL_OVERRIDE_DIR is ignored: a bundle holds compiled code only\n";
  if (!flags.noCache)
    options.cache = cacheLocationFromEnvironment();
  options.warn = [&err](const std::string &line) { err << "warning: " << line << "\n"; };
  KernelTable table(std::move(options));
  const auto start = std::chrono::steady_clock::now();
  std::vector<Result<KernelHandle>> results = table.compileAll(specs, threads);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  size_t failures = 0;
  std::vector<BundleInput> inputs;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!results[i].ok()) {
      ++failures;
      err << "error: " << printSpec(specs[i]) << ": " << results[i].error() << "\n";
      continue;
    }
    const CodeObject &object = results[i].value()->object;
    // The entry is the spec asked for; specs of one tiling class share the
    // code object, which the bundle stores once. Compiled now or read from
    // the cache, it is the compiler's code (no override reaches it, above).
    inputs.push_back({printSpec(specs[i]), object.kernel, object.launch, object.hsaco,
                      BundleCodeOrigin::Compiler});
  }
  if (failures)
    return reportError(err, std::to_string(failures) + " of " + std::to_string(specs.size()) +
                                " specs failed; " + *flags.output + " was not written");

  BundleHeaderInfo header;
  header.mxforgeVersion = mxforgeVersion();
  header.llvmVersion = LLVM_VERSION_STRING;
  Result<std::vector<uint8_t>> bundle = encodeBundle(header, inputs);
  if (!bundle.ok())
    return reportError(err, "cannot write the bundle: " + bundle.error());
  // Through support/output_files.h: -o /dev/null or a FIFO is written, not
  // replaced; a failed write leaves the old bundle in place.
  if (Status written = writeOutputFiles({{"the bundle", *flags.output, std::move(bundle.value())}},
                                        flags.specFiles);
      !written.ok())
    return reportError(err, "cannot write the bundle: " + written.message());
  // What the bundle stores: each distinct code object once.
  uint64_t codeBytes = 0;
  std::set<std::vector<uint8_t>> distinct;
  for (const BundleInput &input : inputs)
    if (distinct.insert(input.hsaco).second)
      codeBytes += input.hsaco.size();
  const KernelTableStats stats = table.stats();
  out << "wrote " << *flags.output << ": " << inputs.size() << " kernels (" << distinct.size()
      << " code objects), "
      << (codeBytes + 1023) / 1024 << " KiB of code; " << stats.compiled << " compiled, "
      << stats.cacheHits << " from the cache, " << stats.sharedCode
      << " sharing another's code object, in " << llvm::format("%.2f", seconds) << " s\n";
  return kExitSuccess;
}

int runBundleCommand(llvm::raw_ostream &out, llvm::raw_ostream &err) {
  if (!actionArgs.empty()) {
    if (actionArgs.size() != 2 || actionArgs[0] != "extract")
      return reportError(err, "mxforge bundle takes no positional arguments except "
                              "'extract FILE.mxfb', e.g. mxforge bundle extract k.mxfb -o dir",
                         kExitUsage);
    if (specsFlag.getNumOccurrences() || presetFlag.getNumOccurrences())
      return reportError(err, "bundle extract reads a bundle; --specs and --preset are for "
                              "writing one",
                         kExitUsage);
    ExtractOptions extract;
    extract.bundle = actionArgs[1];
    extract.outputDirectory = outputFlag.getNumOccurrences() ? outputFlag.getValue() : "";
    if (extractSpecFlag.getNumOccurrences())
      extract.spec = extractSpecFlag.getValue();
    return runBundleExtract(extract, out, err);
  }
  if (extractSpecFlag.getNumOccurrences())
    return reportError(err, "--spec goes with bundle extract; a bundle is written from "
                            "--specs FILE or --preset NAME",
                       kExitUsage);
  BundleFlags flags;
  flags.specFiles.assign(specsFlag.begin(), specsFlag.end());
  flags.presets.assign(presetFlag.begin(), presetFlag.end());
  if (outputFlag.getNumOccurrences())
    flags.output = outputFlag.getValue();
  if (threadsFlag.getNumOccurrences())
    flags.threads = threadsFlag.getValue();
  if (covFlag.getNumOccurrences())
    flags.cov = covFlag.getValue();
  flags.noCache = noCacheFlag;
  flags.listPresets = listPresetsFlag;
  return runBundle(flags, out, err);
}

} // namespace

Subcommand bundleSubcommand() { return {&bundleCommand, runBundleCommand}; }

} // namespace mxf::cli
