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
#include "runtime/emu_device.h"
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

using mxf::bench::median;

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
      mxf::runtime::EmuDeviceOptions options;
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
    uint64_t required = 0;
    for (const mxf::KernelOperand &operand : mxf::kernelOperands(spec.value()))
      required += mxf::operandSpanBytes(operand, operand.rowElements());
    const mxf::bench::Mi355xEstimate e = mxf::bench::estimateMi355x(required, report);
    fmt::print("{:<62} {:>12} {:>9.1f} {:>9.2f} {:>10.1f} {:>9.2f} {:>7.2f}x {:>9.2f} {:>11.2f} "
               "{:>7}\n",
               mxf::printSpec(spec.value()).substr(0, 62), instructions, ms[0], rate(ms[0]),
               ms[1], rate(ms[1]), ms[0] / ms[1], e.floorUs, e.estimateUs, e.bound);
  }
  fmt::print("times include loading the code object and copying buffers (the launch as "
             "mxforge run does it).\n");
  return 0;
}
