//===- bundle_extract.h - mxforge bundle extract ------------------*- C++ -*-===//
//
// Takes a bundle apart for an engine that launches kernels itself or hands
// them to another runtime: each distinct code object as <kernel>.hsaco (it
// carries its own launch record, docs/abi.md; <kernel>.entry<i>.hsaco when
// different code objects carry one name), and launch_records.tsv with
// one line per entry: the spec, its kernel and file, and the manifest's
// launch record.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TOOLS_MXFORGE_BUNDLE_EXTRACT_H
#define MXFORGE_TOOLS_MXFORGE_BUNDLE_EXTRACT_H

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mxf::cli {

struct ExtractOptions {
  std::string bundle;
  std::string outputDirectory;
  std::optional<std::string> spec; // only this spec's entry
};

int runBundleExtract(const ExtractOptions &options, llvm::raw_ostream &out,
                     llvm::raw_ostream &err);

} // namespace mxf::cli

#endif // MXFORGE_TOOLS_MXFORGE_BUNDLE_EXTRACT_H
