//===- spec_sources.cpp - The specs a command is given ---------------------===//

#include "tools/mxforge/spec_sources.h"

#include "spec/presets.h"
#include "spec/spec_list.h"
#include "support/file_io.h"

#include <set>

namespace mxf::cli {

Result<std::vector<KernelSpec>> gatherSpecs(const SpecSources &sources, llvm::raw_ostream &notes,
                                            bool &usage) {
  using R = Result<std::vector<KernelSpec>>;
  usage = false;
  std::vector<KernelSpec> specs;
  std::set<std::string> seen;
  auto add = [&](const KernelSpec &spec) {
    if (seen.insert(printSpec(spec)).second)
      specs.push_back(spec);
  };
  for (const std::string &file : sources.files) {
    Result<std::vector<uint8_t>> bytes = readFileBytes(file, uint64_t(64) << 20);
    if (!bytes.ok())
      return R::failure("cannot read the spec list: " + bytes.error());
    Result<SpecList> list = parseSpecList(
        std::string_view(reinterpret_cast<const char *>(bytes.value().data()),
                         bytes.value().size()),
        file);
    if (!list.ok())
      return list.status();
    for (const std::string &note : list.value().notes)
      notes << "note: " << note << "\n";
    for (const KernelSpec &spec : list.value().specs)
      add(spec);
  }
  for (const std::string &name : sources.presets) {
    Result<SpecPreset> preset = findSpecPreset(name);
    if (!preset.ok()) {
      usage = true;
      return preset.status();
    }
    for (const KernelSpec &spec : preset.value().specs)
      add(spec);
  }
  for (const std::string &text : sources.specs) {
    Result<KernelSpec> spec = parseSpec(text);
    if (!spec.ok()) {
      usage = true;
      return R::failure("--spec '" + text + "': " + spec.error());
    }
    add(spec.value());
  }
  return specs;
}

} // namespace mxf::cli
