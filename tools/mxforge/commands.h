//===- commands.h - The mxforge subcommands -----------------------*- C++ -*-===//
//
// Each subcommand lives in its own file: its llvm::cl options (file-scope
// statics bound to its cl::SubCommand, as LLVM tools do) and a run function
// that takes plain values, so the logic can be called without a command line.
// main.cpp parses argv and calls the selected one.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TOOLS_MXFORGE_COMMANDS_H
#define MXFORGE_TOOLS_MXFORGE_COMMANDS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace mxf::weights {
struct QuantizeOptions; // weights/checkpoint/checkpoint_quantizer.h
} // namespace mxf::weights

namespace mxf::cli {

/// A subcommand as main.cpp sees it: the cl object that says whether it was
/// selected, and what runs it with the parsed options. Returns an ExitCode.
struct Subcommand {
  llvm::cl::SubCommand *command;
  int (*run)(llvm::raw_ostream &out, llvm::raw_ostream &err);
};
Subcommand specSubcommand();
Subcommand refSubcommand();
Subcommand demoSubcommand();
Subcommand compileSubcommand(); // compile_command.cpp (links the compiler)
Subcommand inspectSubcommand(); // inspect_command.cpp (links codeobj/)
Subcommand runSubcommand();     // run_command.cpp (compiler + runtime)
Subcommand bundleSubcommand();  // bundle_command.cpp (kernel table + JIT)
Subcommand cacheSubcommand();   // cache_command.cpp (runtime/cache, no MLIR)
Subcommand quantizeSubcommand(); // quantize_command.cpp (weights/checkpoint/)
Subcommand calibrateSubcommand(); // calibrate_command.cpp (arrays/, weights/: no MLIR)
Subcommand launchSubcommand();  // launch_command.cpp (codeobj/ + runtime: no MLIR)
Subcommand benchSubcommand();   // bench_command.cpp (compiler + emu + the MI355X model)

/// mxforge spec SPEC...: prints each spec's canonical form.
int runSpec(llvm::ArrayRef<std::string> specs, llvm::raw_ostream &out, llvm::raw_ostream &err);

struct RefOptions {
  std::optional<std::string> spec;
  std::optional<std::string> m;
  std::vector<std::string> inputs;  // NAME=FILE
  std::vector<std::string> outputs; // NAME=FILE
  std::optional<std::string> seed;
};
/// mxforge ref: runs the reference and writes the requested arrays.
int runRef(const RefOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err);

struct DemoOptions {
  std::vector<std::string> specs; // empty: the default decode set
  std::optional<std::string> seed;
};
/// mxforge demo: the quality table of rotate_quant specs on random inputs.
int runDemo(const DemoOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err);

struct CacheOptions {
  std::string action;             // stat | ls | clear | verify
  std::optional<std::string> dir; // --dir; default: cacheLocationFromEnvironment()
  bool remove = false;            // verify --remove
};
/// mxforge cache: shows, verifies or clears the kernel cache (docs/cache.md).
int runCache(const CacheOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err);

/// mxforge quantize: a safetensors checkpoint in, a quantized one out
/// (weights/checkpoint/), on the host path (`device` "host") or with the
/// quant_weight kernel on the emulator ("emu"; the same bytes).
int runQuantize(const weights::QuantizeOptions &options, const std::string &device,
                llvm::raw_ostream &out, llvm::raw_ostream &err);

} // namespace mxf::cli

#endif // MXFORGE_TOOLS_MXFORGE_COMMANDS_H
