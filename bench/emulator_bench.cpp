//===- emulator_bench.cpp - How fast the gfx950 emulator runs our kernels --===//
//
// Prints a table (median of repeats): per kernel, wave-instructions
// executed per launch, wall time and throughput in millions of
// wave-instructions per second, with 1 emulator thread and with all cores,
// and the speed-up of the second over the first (same run, same inputs).
// Emulator speed on this machine, not GPU speed; nothing here asserts.
//
//===----------------------------------------------------------------------===//

#include "bench/bench_support.h"
#include "bench/mi355x_model.h"
#include "abi/operands.h"
#include "compiler/compiler.h"
#include "codeobj/hsaco_reader.h"
#include "runtime/emu_device.h"
#include "runtime/launch_file.h"
#include "support/file_io.h"
#include "runtime/spec_launcher.h"
#include "spec/kernel_spec.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

namespace {

const char *const kSpecs[] = {
    "rotate_quant:K=4096,RS=32,rot=hadamard,M=16,scale=even",
    "rotate_quant:K=4096,RS=32,rot=hadamard_butterfly,M=16,scale=even",
    "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,scale=even",
    "rotate_quant:K=4096,RS=128,rot=learned,M=16,scale=rceil",
    "rotate_quant:K=8192,RS=256,rot=hadamard,M=16,scale=floor",
    "rotate_quant:K=4096,RS=0,M=64,scale=even",
};

/// Triton's gfx950 code objects from the witness corpus (tests/witness),
/// launched from their launch files: the emulator's speed on code we did
/// not write, beside ours.
const char *const kTritonCases[] = {
    "aiter_gemm_afp4wfp4_m16_n512_k2048",
    "aiter_gemm_a16wfp4_m8_n512_k512",
    "aiter_dynamic_mxfp4_quant_m16_n2048",
    "dot_scaled_mxfp4_e2m1",
};

using mxf::bench::median;

/// Median milliseconds of `repeats` launches of corpus case `name` with
/// `threads` emulator threads, and its wave-instructions.
mxf::Result<std::pair<double, uint64_t>> timeTritonCase(const std::string &name, unsigned threads,
                                                       int repeats) {
  using R = mxf::Result<std::pair<double, uint64_t>>;
  const std::string dir = std::string(MXFORGE_WITNESS_CORPUS) + "/" + name;
  mxf::Result<mxf::runtime::LaunchFile> file = mxf::runtime::readLaunchFile(dir + "/launch.json");
  if (!file.ok())
    return file.status();
  mxf::Result<std::vector<uint8_t>> hsaco = mxf::readFileBytes(file.value().codeObjectPath, 64u << 20);
  if (!hsaco.ok())
    return hsaco.status();
  mxf::Result<std::vector<mxf::KernelInfo>> kernels = mxf::codeobj::readKernelInfos(hsaco.value());
  if (!kernels.ok())
    return kernels.status();
  mxf::runtime::EmuDeviceOptions options;
  options.threads = threads;
  std::vector<double> runs;
  uint64_t instructions = 0;
  for (int r = 0; r < repeats; ++r) {
    auto device = mxf::runtime::openEmuDevice(options);
    if (!device.ok())
      return device.status();
    auto start = std::chrono::steady_clock::now();
    auto launched = mxf::runtime::runLaunchFile(*device.value(), file.value(), hsaco.value(),
                                                kernels.value());
    runs.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!launched.ok())
      return R::failure(launched.error());
    instructions = launched.value().report.get("instructions");
  }
  return std::make_pair(median(runs), instructions);
}

} // namespace

int main(int argc, char **argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  fmt::print("gfx950 emulator throughput, median of {} launches (Mwi/s = million "
             "wave-instructions per second)\n",
             repeats);
  fmt::print("{}\n", mxf::bench::mi355xModelLegend());
  fmt::print("{:<62} {:>12} {:>9} {:>9} {:>10} {:>9} {:>8} {:>9} {:>11} {:>7}\n", "spec",
             "wave-instr", "1T ms", "1T Mwi/s", fmt::format("{}T ms", cores),
             fmt::format("{}T Mwi/s", cores), "speed-up", "floor us", "estimate us", "bound");
  for (const char *text : kSpecs) {
    mxf::Result<mxf::KernelSpec> spec = mxf::parseSpec(text);
    mxf::Result<mxf::CodeObject> code =
        spec.ok() ? mxf::compileSpec(spec.value(), {}) : spec.status();
    if (!code.ok()) {
      fmt::print(stderr, "error: {}\n", code.error());
      return 1;
    }
    // Inputs: normal bf16 activations and, for learned R, random bf16.
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    mxf::runtime::HostArrays inputs;
    for (const char *name : {"x", "r"}) {
      mxf::Result<uint64_t> bytes = mxf::runtime::operandBytes(spec.value(), spec.value().M, name);
      if (!bytes.ok())
        continue;
      std::vector<uint8_t> data(bytes.value());
      for (size_t i = 0; i + 1 < data.size(); i += 2) {
        float v = normal(rng) * (name[0] == 'r' ? 0.1f : 1.0f);
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        data[i] = uint8_t(bits >> 16);
        data[i + 1] = uint8_t(bits >> 24);
      }
      inputs[name] = std::move(data);
    }
    double ms[2] = {0, 0};
    uint64_t instructions = 0;
    mxf::runtime::LaunchReport report;
    for (int mode = 0; mode < 2; ++mode) {
      // The model's timeline on: its estimate below reads it.
      mxf::runtime::EmuDeviceOptions options = mxf::bench::mi355xEmuOptions();
      options.threads = mode == 0 ? 1 : 0;
      auto device = mxf::runtime::openEmuDevice(options);
      if (!device.ok()) {
        fmt::print(stderr, "error: {}\n", device.error());
        return 1;
      }
      std::vector<double> runs;
      for (int r = 0; r < repeats; ++r) {
        auto start = std::chrono::steady_clock::now();
        auto launched = mxf::runtime::launchSpec(*device.value(), code.value().hsaco,
                                                 code.value().kernel, code.value().launch,
                                                 spec.value(),
                                                 spec.value().M, inputs);
        runs.push_back(std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - start)
                           .count());
        if (!launched.ok()) {
          fmt::print(stderr, "error: {}\n", launched.error());
          return 1;
        }
        instructions = launched.value().report.get("instructions");
        report = launched.value().report;
      }
      ms[mode] = median(runs);
    }
    auto rate = [&](double t) { return double(instructions) / (t * 1e3); };
    const uint64_t required = mxf::kernelRequiredBytes(spec.value(), spec.value().M);
    const mxf::bench::Mi355xEstimate e = mxf::bench::estimateMi355x(required, report);
    fmt::print("{:<62} {:>12} {:>9.1f} {:>9.2f} {:>10.1f} {:>9.2f} {:>7.2f}x {:>9.2f} {:>11.2f} "
               "{:>7}\n",
               mxf::printSpec(spec.value()).substr(0, 62), instructions, ms[0], rate(ms[0]),
               ms[1], rate(ms[1]), ms[0] / ms[1], e.floorUs, e.estimateUs, e.bound);
  }
  for (const char *name : kTritonCases) {
    auto one = timeTritonCase(name, 1, repeats);
    auto all = timeTritonCase(name, 0, repeats);
    if (!one.ok() || !all.ok()) {
      fmt::print(stderr, "error: {}\n", one.ok() ? all.error() : one.error());
      return 1;
    }
    const uint64_t instructions = one.value().second;
    auto rate = [&](double t) { return double(instructions) / (t * 1e3); };
    fmt::print("{:<62} {:>12} {:>9.1f} {:>9.2f} {:>10.1f} {:>9.2f} {:>7.2f}x {:>9} {:>11} {:>7}\n",
               std::string("triton: ") + name, instructions, one.value().first,
               rate(one.value().first), all.value().first, rate(all.value().first),
               one.value().first / all.value().first, "-", "-", "-");
  }
  fmt::print("times include loading the code object and copying buffers (the launch as "
             "mxforge run and mxforge launch do it); triton rows: tests/witness corpus cases, "
             "no model estimate here (docs/estimate.md).\n");
  return 0;
}
