//===- main.cpp - The mxforge command-line tool ---------------------------===//
//
// Parses argv with llvm::cl and runs the selected subcommand (commands.h).
// Errors go to stderr as `error: ...`; exit codes are in cli_support.h.
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/cli_support.h"
#include "tools/mxforge/commands.h"

#include "support/interrupt_cleanup.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#ifndef MXFORGE_VERSION
#define MXFORGE_VERSION "unknown"
#endif

namespace cl = llvm::cl;
using namespace mxf::cli;

namespace {

void printVersion(llvm::raw_ostream &out) {
  out << "mxforge " MXFORGE_VERSION "\n"
      << "LLVM " LLVM_VERSION_STRING "\n";
}

/// llvm::cl reports most command-line errors as "<program>: <message>" on the
/// stream it is given; restate them in our "error: " form (later lines of a
/// report, such as "Did you mean", become notes).
void reportParseErrors(llvm::StringRef text, llvm::StringRef program, llvm::raw_ostream &err) {
  llvm::SmallVector<llvm::StringRef, 4> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/false);
  bool first = true;
  for (llvm::StringRef line : lines) {
    line.consume_front(program.str() + ": ");
    err << (first ? "error: " : "note: ") << line << "\n";
    first = false;
  }
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // After LLVM's handlers: ours remove the staged temporaries (quantize's
  // shards, bundles, arrays) and hand the signal on (interrupt_cleanup.h).
  mxf::removeTemporariesOnSignals();
  const Subcommand subcommands[] = {specSubcommand(),    refSubcommand(),     demoSubcommand(),
                                    compileSubcommand(), inspectSubcommand(), runSubcommand(),
                                    bundleSubcommand(),  cacheSubcommand(),   quantizeSubcommand(),
                                    calibrateSubcommand(), launchSubcommand(), benchSubcommand()};
  // libLLVM registers hundreds of options; --help shows only ours.
  cl::HideUnrelatedOptions(mxforgeCategory());
  for (const Subcommand &sub : subcommands)
    cl::HideUnrelatedOptions(mxforgeCategory(), *sub.command);
  cl::SetVersionPrinter(printVersion);

  // LLVM's parser would expand @FILE arguments as response files, reading any
  // file without bound; mxforge documents no response files, so an
  // argument that starts with '@' is refused before parsing.
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] == '@')
      return reportError(llvm::errs(),
                         std::string("argument '") + argv[i] +
                             "' starts with '@': mxforge reads no response files (for a file of "
                             "that name, write ./" + argv[i] + ")",
                         kExitUsage);
  std::string parseErrors;
  llvm::raw_string_ostream parseErrorStream(parseErrors);
  const bool parsed = cl::ParseCommandLineOptions(
      argc, argv,
      "mxforge: fused online rotation + MX quantization kernels for AMD gfx950\n\n"
      "  mxforge spec SPEC...          check specs, print their canonical form\n"
      "  mxforge ref --spec SPEC ...   run the CPU reference on .npy arrays\n"
      "  mxforge demo                  quantization quality of the decode set\n"
      "  mxforge compile --spec SPEC   compile a spec to a gfx950 code object\n"
      "  mxforge inspect FILE          a code object (.hsaco) or bundle (.mxfb): registers, occupancy\n"
      "  mxforge run --spec SPEC       run a kernel on the emulator (or hip), --check it\n"
      "  mxforge launch LAUNCH.json    run any gfx950 code object from a JSON launch file\n"
      "  mxforge bundle --preset NAME  compile a set of specs into an AOT bundle (.mxfb)\n"
      "  mxforge cache ACTION          the kernel cache: stat | ls | clear | verify\n"
      "  mxforge quantize --in CKPT    quantize a safetensors checkpoint's weights\n"
      "  mxforge calibrate --spec SPEC which layers a rotation helps: the layer mask\n"
      "  mxforge bench --preset NAME   check a preset's kernels, then time them (emu: estimates)\n\n"
      "docs/cli.md describes every subcommand, array and exit code.\n",
      &parseErrorStream);
  if (!parsed) {
    reportParseErrors(parseErrors, llvm::sys::path::filename(argv[0]), llvm::errs());
    return kExitUsage;
  }
  for (const Subcommand &sub : subcommands)
    if (*sub.command)
      return sub.run(llvm::outs(), llvm::errs());
  return reportError(llvm::errs(),
                     "no subcommand given; use one of spec, ref, demo, compile, inspect, run, launch, bundle, cache, quantize, calibrate, bench (mxforge --help lists them)",
                     kExitUsage);
}
