//===- bundle_extract.cpp - mxforge bundle extract ------------------------===//

#include "tools/mxforge/bundle_extract.h"

#include "runtime/bundle.h"
#include "spec/kernel_spec.h"
#include "support/directory_lock.h"
#include "support/file_io.h"
#include "support/output_files.h"
#include "support/printable.h"
#include "tools/mxforge/cli_support.h"

#include <map>
#include <set>
#include <vector>

namespace mxf::cli {
namespace {

/// A kernel name as a file name: the loader accepts any text, so anything
/// but [A-Za-z0-9_.-] is replaced (our names never need it).
std::string fileNameFor(const std::string &kernel) {
  return kernel.empty() ? "kernel" : fileNameSafe(kernel);
}

/// The file of each entry: `<kernel>.hsaco`, one per distinct code object
/// (entries of one tiling class share one). When different code objects
/// would get one name (two kernels of one name, or names that differ only
/// in characters fileNameFor replaces), each of them is named
/// `<kernel>.entry<i>.hsaco` instead, after the first bundle entry holding
/// it: never one file for two entries' code.
std::vector<std::string> fileNamesFor(const Bundle &bundle,
                                      const std::vector<const Bundle::Kernel *> &entries) {
  std::map<std::string, std::set<std::string>> codesByName; // base name -> SHA-256s
  for (const Bundle::Kernel &kernel : bundle.kernels())
    codesByName[fileNameFor(kernel.kernel.name)].insert(kernel.checksum.hex());
  std::map<std::pair<std::string, std::string>, std::string> fileOfCode;
  for (size_t i = 0; i < bundle.kernels().size(); ++i) {
    const Bundle::Kernel &kernel = bundle.kernels()[i];
    const std::string base = fileNameFor(kernel.kernel.name);
    const std::string file = codesByName[base].size() > 1
                                 ? base + ".entry" + std::to_string(i) + ".hsaco"
                                 : base + ".hsaco";
    fileOfCode.emplace(std::make_pair(base, kernel.checksum.hex()), file);
  }
  std::vector<std::string> files;
  for (const Bundle::Kernel *kernel : entries)
    files.push_back(
        fileOfCode.at({fileNameFor(kernel->kernel.name), kernel->checksum.hex()}));
  return files;
}

} // namespace

int runBundleExtract(const ExtractOptions &options, llvm::raw_ostream &out,
                     llvm::raw_ostream &err) {
  if (options.outputDirectory.empty())
    return reportError(err, "mxforge bundle extract needs -o DIR", kExitUsage);
  Result<Bundle> bundle = Bundle::load(options.bundle);
  if (!bundle.ok())
    return reportError(err, "cannot read the bundle: " + bundle.error());

  std::vector<const Bundle::Kernel *> entries;
  if (options.spec) {
    Result<KernelSpec> spec = parseSpec(*options.spec);
    if (!spec.ok())
      return reportError(err, "invalid spec: " + spec.error());
    const Bundle::Kernel *found = bundle.value().find(printSpec(spec.value()));
    if (!found)
      return reportError(err, "'" + printSpec(spec.value()) + "' is not in " + options.bundle +
                                  " (" + std::to_string(bundle.value().size()) +
                                  " kernels; mxforge inspect lists them)");
    entries.push_back(found);
  } else {
    for (const Bundle::Kernel &kernel : bundle.value().kernels())
      entries.push_back(&kernel);
  }

  if (Status made = createDirectories(options.outputDirectory); !made.ok())
    return reportError(err, made.message());
  // One writer per folder (support/directory_lock.h): two extracts into DIR
  // cannot leave one's code objects beside the other's launch_records.tsv.
  Result<DirectoryLock> lock =
      DirectoryLock::tryLock(options.outputDirectory, "mxforge bundle extract -o " +
                                                          options.outputDirectory);
  if (!lock.ok())
    return reportError(err, lock.error());
  std::vector<OutputFile> files;
  std::set<std::string> written; // entries of one tiling class share a code object
  std::string records =
      "spec\tkernel\tfile\tabi\tworkgroup\tgrid_x\trows_per_workgroup\trow_padding\tlds_bytes\t"
      "max_rows\n";
  const std::vector<std::string> fileNames = fileNamesFor(bundle.value(), entries);
  for (size_t i = 0; i < entries.size(); ++i) {
    const Bundle::Kernel *kernel = entries[i];
    const std::string &file = fileNames[i];
    if (written.insert(file).second)
      files.push_back({"code object " + file, options.outputDirectory + "/" + file,
                       std::vector<uint8_t>(kernel->hsaco, kernel->hsaco + kernel->hsacoSize),
                       ExistingLink::Refuse});
    const LaunchRecord &launch = kernel->launch;
    records += kernel->spec + "\t" + printable(kernel->kernel.name) + "\t" + file + "\t" +
               std::to_string(launch.abiVersion) + "\t" + std::to_string(launch.workgroupSize) +
               "\t" + std::to_string(launch.gridX) + "\t" +
               std::to_string(launch.rowsPerWorkgroup) + "\t" +
               std::to_string(launch.rowPadding) + "\t" + std::to_string(launch.ldsBytes) + "\t" +
               std::to_string(launch.maxRows) + "\n";
  }
  // Names we chose inside DIR: a symlink already there is refused, never
  // followed out of it (support/output_files.h).
  files.push_back({"launch_records.tsv", options.outputDirectory + "/launch_records.tsv",
                   std::vector<uint8_t>(records.begin(), records.end()), ExistingLink::Refuse});
  if (Status done = writeOutputFiles(files, {options.bundle}); !done.ok())
    return reportError(err, done.message());
  out << "extracted " << entries.size() << (entries.size() == 1 ? " kernel" : " kernels") << " ("
      << written.size() << (written.size() == 1 ? " code object" : " code objects") << ") to "
      << options.outputDirectory << "\n";
  return kExitSuccess;
}

} // namespace mxf::cli
