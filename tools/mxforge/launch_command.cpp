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
#include "bench/mi355x_model.h"
#include "runtime/device_factory.h"
#include "runtime/emu_device.h"
#include "runtime/launch_file.h"
#include "support/file_io.h"
#include "support/output_files.h"
#include "tools/mxforge/cli_support.h"

#include <fmt/format.h>

#include <algorithm>

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

cl::opt<bool> launchEstimateFlag(
    "estimate", cl::sub(launchCommand),
    cl::desc("Emulate for the MI355X model only (docs/estimate.md): run with the latency "
             "timeline, accept float modes the emulator does not model, write no outputs, and "
             "print the model's estimate"),
    cl::cat(mxforgeCategory()));

/// The largest code object read (Triton's are tens of KiB; ours below 1 MiB).
constexpr uint64_t kMaxCodeObjectBytes = 256ull << 20;

/// The emu device as the model needs it: the timeline on, float modes let
/// through (outputs are not kept, so nothing can be misread).
Result<std::unique_ptr<runtime::Device>> estimateDevice() {
  runtime::EmuDeviceOptions options = bench::mi355xEmuOptions();
  options.countsOnly = true;
  return runtime::openEmuDevice(options);
}

int printEstimate(llvm::raw_ostream &out, const runtime::LaunchFileResult &result, bool stats) {
  const uint64_t required = result.bufferBytes;
  const bench::Mi355xEstimate e = bench::estimateMi355x(required, result.report);
  out << fmt::format("{} on the emulator, for the MI355X model (outputs not kept):\n",
                     result.kernel);
  if (stats)
    for (const auto &[counter, value] : result.report.counters)
      out << fmt::format("  {:<24} {}\n", counter, value);
  out << fmt::format("  buffers            {} bytes (each once: the floor's bytes)\n", required);
  out << fmt::format("  occupancy          {} workgroup(s) per CU, {} round(s)\n",
                     e.workgroupsPerCu, e.rounds);
  out << fmt::format("  terms (us)         memory {:.2f}, issue {:.2f}, latency {:.2f}, fixed "
                     "{:.2f}\n",
                     e.memoryUs, e.issueUs, e.latencyUs, e.fixedUs);
  out << fmt::format("  estimate           {:.2f} us ({}-bound), floor {:.2f} us, {:.1f}x the "
                     "floor\n",
                     e.estimateUs, e.bound, e.floorUs, e.estimateUs / std::max(e.floorUs, 1e-9));
  out << "  " << bench::mi355xModelLegend() << "\n";
  out.flush();
  return kExitSuccess;
}

int runLaunch(llvm::raw_ostream &out, llvm::raw_ostream &err) {
  const std::string path = launchFileArg, deviceKind = launchDeviceFlag;
  const bool stats = launchStatsFlag, estimate = launchEstimateFlag;
  if (path.empty())
    return reportError(err, "mxforge launch needs a launch file: mxforge launch LAUNCH.json",
                       kExitUsage);
  if (estimate && deviceKind != "emu")
    return reportError(err, "--estimate runs the emulator: it takes no --device " + deviceKind,
                       kExitUsage);
  // The device first: an unknown --device fails before any file is read.
  Result<std::unique_ptr<runtime::Device>> device =
      estimate ? estimateDevice() : runtime::openDevice(deviceKind);
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

  const runtime::Dim3 &g = file.value().grid, &b = file.value().block;
  if (estimate)
    return printEstimate(out, result.value(), stats);

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
