//===- inspect_bundle.cpp - mxforge inspect of AOT bundles ----------------===//
//
// The table comes from the manifest alone (what the runtime will use to
// launch: its KernelInfos, not the code objects' notes), so it is cheap for
// bundles of thousands of kernels. --kernels reads every code object as
// inspect does for a .hsaco file, and warns where the manifest's KernelInfo
// disagrees with the code object's own metadata: such a bundle would launch
// with the wrong kernarg layout or register budget in mind.
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/inspect_bundle.h"

#include "support/printable.h"

#include "codeobj/hsaco_reader.h"
#include "codeobj/occupancy.h"
#include "runtime/bundle.h"
#include "tools/mxforge/cli_support.h"
#include "tools/mxforge/text_table.h"

#include "llvm/Support/Path.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <cstring>

namespace mxf::cli {
namespace {

std::string orDash(const std::string &text) { return text.empty() ? "-" : text; }

void printHeader(llvm::StringRef path, const Bundle &bundle, llvm::raw_ostream &out) {
  const BundleHeaderInfo &header = bundle.header();
  out << llvm::sys::path::filename(path) << ": mxforge bundle, " << bundle.size()
      << (bundle.size() == 1 ? " kernel, " : " kernels, ") << bundle.bytes().size() << " bytes\n";
  out << fmt::format("  format version:     {}\n", header.formatVersion);
  out << fmt::format("  kernel ABI:         {}\n", header.kernelAbiVersion);
  out << fmt::format("  template revision:  {}\n", header.templateRevision);
  // Free text from the file: escaped (support/printable.h), as bundle.md says.
  out << fmt::format("  mxforge version:    {}\n", orDash(printable(header.mxforgeVersion)));
  out << fmt::format("  LLVM version:       {}\n", orDash(printable(header.llvmVersion)));
  out << fmt::format("  target:             {}\n", printable(header.target));
}

void printKernelTable(const Bundle &bundle, llvm::raw_ostream &out) {
  if (bundle.size() == 0)
    return;
  // Numbers first, where they line up; the long texts last.
  TextTable table;
  table.addColumn("#");
  table.addColumn("VGPRs");
  table.addColumn("AGPRs");
  table.addColumn("SGPRs");
  table.addColumn("LDS");
  table.addColumn("scratch");
  table.addColumn("waves/SIMD");
  table.addColumn("bytes");
  // The launch record: workgroup size, grid x, rows per workgroup along y
  // (the grid's y is ceil(rows / that)), and the most rows it serves.
  table.addColumn("wg");
  table.addColumn("grid.x");
  table.addColumn("rows/wg");
  table.addColumn("max m");
  // Entries of one tiling class share one stored code object: the first
  // entry that holds it.
  table.addColumn("code");
  // Where the writer got the code: "compiler" from `mxforge bundle` (never an
  // override file); "unknown" for format 2 bundles and other writers.
  table.addColumn("origin", TextTable::Align::Left);
  table.addColumn("sha256", TextTable::Align::Left);
  table.addColumn("spec", TextTable::Align::Left);
  table.addColumn("kernel", TextTable::Align::Left);
  std::map<const uint8_t *, size_t> firstHolder;
  for (size_t i = 0; i < bundle.size(); ++i) {
    const Bundle::Kernel &kernel = bundle.kernels()[i];
    const KernelInfo &info = kernel.kernel;
    const LaunchRecord &launch = kernel.launch;
    const size_t holder = firstHolder.emplace(kernel.hsaco, i).first->second;
    codeobj::Occupancy occupancy = codeobj::computeOccupancy(
        {info.vgprCount, info.sgprCount, info.ldsBytes, info.maxWorkgroupSize});
    table.addRow({std::to_string(i), std::to_string(info.vgprCount), std::to_string(info.agprCount),
                  std::to_string(info.sgprCount), std::to_string(info.ldsBytes),
                  std::to_string(info.scratchBytes), std::to_string(occupancy.wavesPerSimd),
                  std::to_string(kernel.hsacoSize), std::to_string(launch.workgroupSize),
                  std::to_string(launch.gridX), std::to_string(launch.rowsPerWorkgroup) +
                  (launch.rowPadding > 1 ? "/" + std::to_string(launch.rowPadding) : ""),
                  std::to_string(launch.maxRows),
                  holder == i ? std::string("#") + std::to_string(i)
                              : "=#" + std::to_string(holder),
                  bundleCodeOriginName(kernel.origin), kernel.checksum.hex().substr(0, 12),
                  printable(kernel.spec), printable(info.name)});
  }
  out << "\n";
  const std::string text = table.render();
  llvm::StringRef rendered(text);
  while (!rendered.empty()) {
    auto [line, rest] = rendered.split('\n');
    out << "  " << line << "\n";
    rendered = rest;
  }
}

/// Differences between the manifest's KernelInfo and the code object's own
/// metadata, one "field manifest vs code object" item each.
std::vector<std::string> manifestDifferences(const KernelInfo &manifest, const KernelInfo &object) {
  std::vector<std::string> differences;
  auto compare = [&](const char *field, uint64_t a, uint64_t b) {
    if (a != b)
      differences.push_back(fmt::format("{} {} vs {}", field, a, b));
  };
  compare("kernarg size", manifest.kernargSize, object.kernargSize);
  compare("VGPRs", manifest.vgprCount, object.vgprCount);
  compare("AGPRs", manifest.agprCount, object.agprCount);
  compare("SGPRs", manifest.sgprCount, object.sgprCount);
  compare("LDS bytes", manifest.ldsBytes, object.ldsBytes);
  compare("scratch bytes", manifest.scratchBytes, object.scratchBytes);
  compare("max workgroup size", manifest.maxWorkgroupSize, object.maxWorkgroupSize);
  compare("arguments", manifest.args.size(), object.args.size());
  for (size_t i = 0; i < std::min(manifest.args.size(), object.args.size()); ++i) {
    const KernelArgInfo &a = manifest.args[i], &b = object.args[i];
    if (a.valueKind != b.valueKind || a.offset != b.offset || a.size != b.size)
      differences.push_back(fmt::format("argument {} {} at {} ({} bytes) vs {} at {} ({} bytes)", i,
                                        a.valueKind, a.offset, a.size, b.valueKind, b.offset,
                                        b.size));
  }
  return differences;
}

/// The full report of one bundled code object; false if it is not valid.
bool printBundledCodeObject(llvm::StringRef path, size_t index, const Bundle::Kernel &kernel,
                            bool disassembly, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  llvm::ArrayRef<uint8_t> hsaco(kernel.hsaco, kernel.hsacoSize);
  out << "\n";
  Status printed =
      printCodeObject(fmt::format("[{}] {}", index, kernel.spec), hsaco, disassembly, out);
  if (!printed.ok()) {
    out.flush();
    reportError(err, "'" + path + "' kernel " + std::to_string(index) + " ('" + kernel.spec +
                         "') is not a valid gfx950 code object: " + printed.message());
    return false;
  }
  Result<std::vector<KernelInfo>> infos = codeobj::readKernelInfos(hsaco);
  if (!infos.ok()) { // printCodeObject has read it: cannot happen, but say so if it does
    reportError(err, "'" + path + "' kernel " + std::to_string(index) + ": " + infos.error());
    return false;
  }
  auto found =
      std::find_if(infos.value().begin(), infos.value().end(),
                   [&](const KernelInfo &info) { return info.name == kernel.kernel.name; });
  if (found == infos.value().end()) {
    out << "  WARNING: the manifest names kernel '" << printable(kernel.kernel.name)
        << "', which this code object does not hold\n";
    return true;
  }
  out << "  launch (manifest): " << kernel.launch.describe() << "\n";
  if (Status agrees = kernel.launch.checkAgainst(*found); !agrees.ok())
    out << "  WARNING: the manifest's launch record disagrees with the code object: "
        << agrees.message() << "\n";
  std::vector<std::string> differences = manifestDifferences(kernel.kernel, *found);
  if (!differences.empty()) {
    out << "  WARNING: the manifest's KernelInfo differs from the code object's:";
    for (size_t i = 0; i < differences.size(); ++i)
      out << (i ? "; " : " ") << printable(differences[i]);
    out << "\n";
  }
  return true;
}

} // namespace

bool isBundle(llvm::ArrayRef<uint8_t> bytes) {
  size_t compared = std::min(bytes.size(), sizeof kBundleMagic);
  return compared > 0 && std::memcmp(bytes.data(), kBundleMagic, compared) == 0;
}

int inspectBundle(llvm::StringRef path, llvm::ArrayRef<uint8_t> bytes,
                  const InspectOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  // The same checks, order and messages as the runtime's Bundle::load.
  Result<Bundle> loaded = Bundle::fromBytes(std::vector<uint8_t>(bytes.begin(), bytes.end()));
  if (!loaded.ok()) {
    out.flush();
    return reportError(err, path + ": " + loaded.error());
  }
  const Bundle &bundle = loaded.value();
  printHeader(path, bundle, out);
  printKernelTable(bundle, out);
  int status = kExitSuccess;
  if (options.kernels || options.disassembly)
    for (size_t i = 0; i < bundle.size(); ++i)
      if (!printBundledCodeObject(path, i, bundle.kernels()[i], options.disassembly, out, err))
        status = kExitFailure;
  out.flush();
  return status;
}

} // namespace mxf::cli
