//===- array_outputs.h - The --out arrays of ref and run -------*- C++ -*-===//
//
// `ref` and `run` write the arrays named by --out all together through
// support/output_files.h: checked for identity against each other and the
// command's input files before any work, encoded, then written all or none.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TOOLS_MXFORGE_ARRAY_OUTPUTS_H
#define MXFORGE_TOOLS_MXFORGE_ARRAY_OUTPUTS_H

#include "arrays/reference_runner.h"
#include "support/status.h"
#include "tools/mxforge/cli_support.h"

#include <string>
#include <vector>

namespace mxf::cli {

/// No two --out files are one file and none is an input (by identity, not
/// spelling). Run before reading or computing anything.
Status checkArrayOutputs(const std::vector<NamedFile> &outputs,
                         const std::vector<std::string> &inputPaths);

/// True if an --out file is standard output ("-", /dev/stdout, its file):
/// the command then prints its report on stderr, not among the bytes.
bool writesToStandardOutput(const std::vector<NamedFile> &outputs);

/// Writes each --out array, taken from `produced` or else `inputs` (an input
/// may be written back, e.g. the generated x), all or none.
Status writeArrayOutputs(const std::vector<NamedFile> &outputs, const arrays::NpyArrays &produced,
                         const arrays::NpyArrays &inputs,
                         const std::vector<std::string> &inputPaths);

} // namespace mxf::cli

#endif // MXFORGE_TOOLS_MXFORGE_ARRAY_OUTPUTS_H
