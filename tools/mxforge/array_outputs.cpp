//===- array_outputs.cpp - The --out arrays of ref and run ----------------===//

#include "tools/mxforge/array_outputs.h"

#include "arrays/npy.h"
#include "support/output_files.h"

namespace mxf::cli {
namespace {

std::string outputWhat(const NamedFile &file) { return "output " + file.name; }

} // namespace

Status checkArrayOutputs(const std::vector<NamedFile> &outputs,
                         const std::vector<std::string> &inputPaths) {
  std::vector<std::string> paths, whats;
  for (const NamedFile &file : outputs) {
    paths.push_back(file.path);
    whats.push_back(outputWhat(file));
  }
  return checkDistinctOutputs(paths, whats, inputPaths);
}

bool writesToStandardOutput(const std::vector<NamedFile> &outputs) {
  for (const NamedFile &file : outputs)
    if (namesStandardOutput(file.path))
      return true;
  return false;
}

Status writeArrayOutputs(const std::vector<NamedFile> &outputs, const arrays::NpyArrays &produced,
                         const arrays::NpyArrays &inputs,
                         const std::vector<std::string> &inputPaths) {
  std::vector<OutputFile> files;
  for (const NamedFile &file : outputs) {
    auto found = produced.find(file.name);
    if (found == produced.end())
      found = inputs.find(file.name);
    if (found == inputs.end())
      return Status::failure(outputWhat(file) + ": the run produced no array of that name");
    Result<std::string> bytes = arrays::encodeNpy(found->second);
    if (!bytes.ok())
      return Status::failure(outputWhat(file) + ": " + bytes.error());
    files.push_back({outputWhat(file), file.path,
                     std::vector<uint8_t>(bytes.value().begin(), bytes.value().end())});
  }
  return writeOutputFiles(files, inputPaths);
}

} // namespace mxf::cli
