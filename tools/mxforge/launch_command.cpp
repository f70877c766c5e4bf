//===- launch_command.cpp - mxforge launch: any code object, from JSON ----===//
//
// Runs a gfx950 code object that mxforge did not compile (Triton's, say)
// from a launch file (runtime/launch_file.h, docs/cli.md): the generic entry
// that scripts outside the project use to drive the emulator, and the
// witness corpus's runner (tests/witness/). Outputs are written all or none,
// never over an input.
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/commands.h"

#include "arrays/npy.h"
#include "codeobj/hsaco_reader.h"
#include "runtime/device_factory.h"
#include "runtime/launch_file.h"
#include "support/file_io.h"
#include "support/output_files.h"
#include "tools/mxforge/cli_support.h"

#include <fmt/format.h>

namespace mxf::cli {
namespace {

namespace cl = llvm::cl;

cl::SubCommand launchCommand("launch",
                             "Launch any gfx950 code object described by a JSON launch file");
cl::opt<std::string> launchFileArg(cl::Positional, cl::sub(launchCommand),
                                   cl::value_desc("LAUNCH.json"),
                                   cl::desc("<LAUNCH.json>"), cl::cat(mxforgeCategory()));
cl::opt<std::string> launchDeviceFlag("device", cl::sub(launchCommand), cl::value_desc("emu|hip"),
                                      cl::desc("Where to run: the gfx950 emulator (default) or "
                                               "a HIP device"),
                                      cl::init("emu"), cl::cat(mxforgeCategory()));
cl::opt<bool> launchStatsFlag("stats", cl::sub(launchCommand),
                              cl::desc("Print the device's launch statistics"),
                              cl::cat(mxforgeCategory()));

/// The largest code object read (Triton's are tens of KiB; ours below 1 MiB).
constexpr uint64_t kMaxCodeObjectBytes = 256ull << 20;

int runLaunch(llvm::raw_ostream &out, llvm::raw_ostream &err) {
  const std::string path = launchFileArg, deviceKind = launchDeviceFlag;
  const bool stats = launchStatsFlag;
  if (path.empty())
    return reportError(err, "mxforge launch needs a launch file: mxforge launch LAUNCH.json",
                       kExitUsage);
  // The device first: an unknown --device fails before any file is read.
  Result<std::unique_ptr<runtime::Device>> device = runtime::openDevice(deviceKind);
  if (!device.ok())
    return reportError(err, device.error());
  Result<runtime::LaunchFile> file = runtime::readLaunchFile(path);
  if (!file.ok())
    return reportError(err, file.error());
  std::vector<std::string> outputPaths, outputWhat;
  for (const runtime::LaunchFileArg &arg : file.value().args)
    if (!arg.outPath.empty()) {
      outputPaths.push_back(arg.outPath);
      outputWhat.push_back("output '" + arg.buffer + "'");
    }
  if (Status s = checkDistinctOutputs(outputPaths, outputWhat, file.value().inputPaths()); !s.ok())
    return reportError(err, path + ": " + s.message());
  Result<std::vector<uint8_t>> hsaco =
      readFileBytes(file.value().codeObjectPath, kMaxCodeObjectBytes);
  if (!hsaco.ok())
    return reportError(err, hsaco.error());
  Result<std::vector<KernelInfo>> kernels = codeobj::readKernelInfos(hsaco.value());
  if (!kernels.ok())
    return reportError(err, file.value().codeObjectPath + ": " + kernels.error());
  Result<runtime::LaunchFileResult> result =
      runtime::runLaunchFile(*device.value(), file.value(), hsaco.value(), kernels.value());
  if (!result.ok())
    return reportError(err, result.error());

  std::vector<OutputFile> outputs;
  for (const runtime::LaunchFileOutput &o : result.value().outputs) {
    Result<std::string> npy = arrays::encodeNpy(
        arrays::NpyArray::of<uint8_t>({o.bytes.size()}, o.bytes));
    if (!npy.ok())
      return reportError(err, npy.error());
    outputs.push_back({"output '" + o.buffer + "'", o.path,
                       std::vector<uint8_t>(npy.value().begin(), npy.value().end())});
  }
  if (Status s = writeOutputFiles(outputs, file.value().inputPaths()); !s.ok())
    return reportError(err, s.message());
  const runtime::Dim3 &g = file.value().grid, &b = file.value().block;
  out << fmt::format("launched {} on {}: grid [{}, {}, {}], block [{}, {}, {}], dynamic LDS {}\n",
                     result.value().kernel, device.value()->description(), g.x, g.y, g.z, b.x,
                     b.y, b.z, file.value().dynamicLds);
  if (stats)
    for (const auto &[counter, value] : result.value().report.counters)
      out << fmt::format("  {:<24} {}\n", counter, value);
  for (const runtime::LaunchFileOutput &o : result.value().outputs)
    out << fmt::format("wrote {} ({} bytes) to {}\n", o.buffer, o.bytes.size(), o.path);
  out.flush();
  return kExitSuccess;
}

} // namespace

Subcommand launchSubcommand() { return {&launchCommand, runLaunch}; }

} // namespace mxf::cli
