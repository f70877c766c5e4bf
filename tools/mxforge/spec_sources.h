//===- spec_sources.h - The specs a command is given: lists, presets, specs -*- C++ -*-===//
//
// `mxforge bundle` and `mxforge bench` take spec-list files (--specs), model
// presets (--preset) and, for bench, single specs (--spec): one gathering for
// both, each spec once, in the order first named.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TOOLS_MXFORGE_SPEC_SOURCES_H
#define MXFORGE_TOOLS_MXFORGE_SPEC_SOURCES_H

#include "spec/kernel_spec.h"
#include "support/status.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mxf::cli {

struct SpecSources {
  std::vector<std::string> files;   // spec lists, one spec per line
  std::vector<std::string> presets; // preset names (spec/presets.h)
  std::vector<std::string> specs;   // spec texts
};

/// The files' specs, then the presets', then the single specs, each once;
/// a list's notes (repeated lines) go to `notes`. On failure `usage` says
/// whether the problem is a name the user gave (an unknown preset, an
/// invalid spec: a usage error) rather than a file that cannot be read.
Result<std::vector<KernelSpec>> gatherSpecs(const SpecSources &sources, llvm::raw_ostream &notes,
                                            bool &usage);

} // namespace mxf::cli

#endif // MXFORGE_TOOLS_MXFORGE_SPEC_SOURCES_H
