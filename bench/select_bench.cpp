//===- select_bench.cpp - Selective rotation's two paths, counted ---------===//
//
// Seed 000's selective rotation (issue 18): one kernel that rotates or not
// per launch. For each rotation, the table puts side by side the emulated
// counts of the always-rotating kernel (select=off), the quant-only kernel
// (RS=0), and both paths of the select=flag and select=mask kernels, so that
// what the side not taken costs (the branch, the flag or the mask entry) is
// visible: the difference per wave against the single-purpose kernel. The
// MI355X estimate is docs/estimate.md's model (bench/mi355x_model.h),
// labelled as such. Counts are deterministic; the ms column (median of the
// repeats, 1 emulator thread) is emulator time on this machine. Nothing here
// asserts; the e2e matrix checks the bytes of both paths.
//
//   select_bench [repeats]   (default 3)
//
//===----------------------------------------------------------------------===//

#include "bench/bench_support.h"
#include "bench/mi355x_model.h"
#include "abi/operands.h"
#include "compiler/compiler.h"
#include "runtime/emu_device.h"
#include "runtime/spec_launcher.h"
#include "spec/kernel_spec.h"

#include <fmt/core.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace {

// The rotations of the decode set (K=4096, 16 rows), each way of rotating.
const char *const kRotations[] = {
    "RS=32,rot=hadamard",
    "RS=32,rot=hadamard_butterfly",
    "RS=64,rot=hadamard",
    "RS=128,rot=learned",
    "RS=256,rot=hadamard",
};
constexpr int kLayers = 48;

struct Counted {
  uint64_t instructions = 0, waves = 0, branches = 0;
  uint32_t vgprs = 0;
  double ms = 0, estimateUs = 0, floorUs = 0;
};

mxf::Result<Counted> count(const std::string &text, std::optional<int64_t> selection,
                           bool maskEntry, int repeats) {
  mxf::Result<mxf::KernelSpec> parsed = mxf::parseSpec(text);
  if (!parsed.ok())
    return parsed.status();
  const mxf::KernelSpec &spec = parsed.value();
  mxf::Result<mxf::CodeObject> code = mxf::compileSpec(spec, {});
  if (!code.ok())
    return code.status();
  std::mt19937 rng(7);
  mxf::runtime::HostArrays inputs;
  for (const char *name : {"x", "r"}) {
    mxf::Result<uint64_t> bytes = mxf::runtime::operandBytes(spec, spec.M, name);
    if (bytes.ok())
      inputs[name] = mxf::bench::normalBf16(bytes.value(), name[0] == 'r' ? 0.1f : 1.0f, rng);
  }
  if (spec.select == mxf::RotationSelect::Mask) {
    // Every other layer rotates; the launched layer's entry is `maskEntry`.
    std::vector<int32_t> mask(kLayers);
    for (int i = 0; i < kLayers; ++i)
      mask[size_t(i)] = i % 2;
    mask[size_t(*selection)] = maskEntry ? 1 : 0;
    std::vector<uint8_t> &bytes = inputs["layer_mask"];
    bytes.resize(mask.size() * 4);
    std::memcpy(bytes.data(), mask.data(), bytes.size());
  }
  mxf::runtime::EmuDeviceOptions options;
  options.threads = 1;
  options.timeline = mxf::bench::mi355xTimelineCosts();
  auto device = mxf::runtime::openEmuDevice(options);
  if (!device.ok())
    return device.status();
  mxf::runtime::SpecLaunchOptions launchOptions;
  launchOptions.selection = selection;
  Counted out;
  std::vector<double> times;
  mxf::runtime::LaunchReport report;
  for (int r = 0; r < repeats; ++r) {
    const auto start = mxf::bench::Clock::now();
    auto launched = mxf::runtime::launchSpec(*device.value(), code.value().hsaco,
                                             code.value().kernel, code.value().launch, spec,
                                             spec.M, inputs, launchOptions);
    times.push_back(mxf::bench::millisSince(start));
    if (!launched.ok())
      return launched.status();
    report = launched.value().report;
  }
  out.instructions = report.get("instructions");
  out.waves = report.get("waves");
  out.branches = report.get("instructions.branch");
  out.vgprs = code.value().kernel.vgprCount;
  out.ms = mxf::bench::median(times);
  const mxf::bench::Mi355xEstimate e =
      mxf::bench::estimateMi355x(mxf::kernelRequiredBytes(spec, spec.M), report);
  out.estimateUs = e.estimateUs;
  out.floorUs = e.floorUs;
  return out;
}

} // namespace

int main(int argc, char **argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  fmt::print("selective rotation: both paths of one kernel against the single-purpose kernels "
             "(K=4096, M=16, fp4, scale=even; one launch of 16 rows, median of {} emulator "
             "runs)\n{}\n\n",
             repeats, mxf::bench::mi355xModelLegend());
  fmt::print("{:<30} {:<22} {:>11} {:>9} {:>10} {:>7} {:>6} {:>8} {:>11}\n", "rotation",
             "kernel / path", "wave-instr", "per wave", "vs alone", "branch", "VGPRs", "emu ms",
             "estimate us");
  const std::string base = "rotate_quant:K=4096,M=16,scale=even,";
  for (const char *rotation : kRotations) {
    struct Row {
      std::string label, spec;
      std::optional<int64_t> selection;
      bool maskEntry;
      int aloneIndex; // the single-purpose row this path is compared with
    };
    const std::string layers = fmt::format("select=mask,layers={}", kLayers);
    const std::vector<Row> rows = {
        {"select=off (rotates)", base + rotation, std::nullopt, false, -1},
        {"RS=0 (quant only)", base + "RS=0", std::nullopt, false, -1},
        {"flag, rotate=1", base + rotation + ",select=flag", 1, false, 0},
        {"flag, rotate=0", base + rotation + ",select=flag", 0, false, 1},
        {"mask, entry 1", base + rotation + "," + layers, 7, true, 0},
        {"mask, entry 0", base + rotation + "," + layers, 7, false, 1},
    };
    std::vector<Counted> counted;
    for (const Row &row : rows) {
      mxf::Result<Counted> c = count(row.spec, row.selection, row.maskEntry, repeats);
      if (!c.ok()) {
        fmt::print(stderr, "error: {}: {}\n", row.spec, c.error());
        return 1;
      }
      counted.push_back(c.value());
      const Counted &k = c.value();
      std::string versus = "-";
      if (row.aloneIndex >= 0) {
        const Counted &alone = counted[size_t(row.aloneIndex)];
        versus = fmt::format("{:+.1f}%", 100.0 * (double(k.instructions) / double(alone.instructions) - 1));
      }
      fmt::print("{:<30} {:<22} {:>11} {:>9.1f} {:>10} {:>7} {:>6} {:>8.1f} {:>11.3f}\n",
                 &row == &rows[0] ? rotation : "", row.label, k.instructions,
                 double(k.instructions) / double(k.waves), versus, k.branches, k.vgprs, k.ms,
                 k.estimateUs);
    }
  }
  fmt::print("\nvs alone: wave-instructions of the launch against the single-purpose kernel of "
             "the same path (select=off for the rotating path, RS=0 for the quant-only path; the "
             "quant-only path keeps the rotation's RS-channel units and waves, where RS=0 takes "
             "64 channels a wave, so its per-wave set-up is paid K/RS times instead of K/64). "
             "branch: the emulator's branch counter. Estimates, not measurements.\n");
  return 0;
}
