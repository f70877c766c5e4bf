//===- spec_command.cpp - mxforge spec: canonical spec text ---------------===//

#include "tools/mxforge/commands.h"

#include "spec/kernel_spec.h"
#include "templates/registry.h"
#include "tools/mxforge/cli_support.h"

namespace mxf::cli {
namespace {

llvm::cl::SubCommand specCommand("spec", "Check kernel specs and print their canonical form");

llvm::cl::list<std::string> specTexts(llvm::cl::Positional, llvm::cl::sub(specCommand),
                                      llvm::cl::desc("<spec>..."),
                                      llvm::cl::cat(mxforgeCategory()));

int runSelected(llvm::raw_ostream &out, llvm::raw_ostream &err) {
  return runSpec(specTexts, out, err);
}

} // namespace

Subcommand specSubcommand() { return {&specCommand, runSelected}; }

int runSpec(llvm::ArrayRef<std::string> specs, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  if (specs.empty())
    return reportError(err, "mxforge spec needs a spec, e.g. mxforge spec rotate_quant:K=4096",
                       kExitUsage);
  int status = kExitSuccess;
  for (const std::string &text : specs) {
    Result<KernelSpec> spec = parseSpec(text);
    if (!spec.ok()) {
      // Keep going: one bad spec in a list should not hide the others' verdicts.
      out.flush();
      status = reportError(err, "invalid spec: " + spec.error());
      continue;
    }
    out << printSpec(spec.value()) << "\n";
    // Valid is not compilable: say which template takes it, or why none does.
    if (Status compilable = checkCompilable(spec.value()); !compilable.ok()) {
      out.flush();
      err << "note: " << compilable.message() << "\n";
    }
  }
  out.flush();
  return status;
}

} // namespace mxf::cli
