//===- quant_weight_bench.cpp - The weight kernel: emulated counts, MI355X estimate -===//
//
// For real weight shapes (4096 x 4096, Llama-70B's 8192 x 28672 MLP), per
// spec: compile, run once on the emulator (all cores), and print what it
// counted per launch (wave-instructions, MFMAs, bytes moved against the
// bytes the operation must move), the emulator's wall time (this machine,
// not a GPU), and the MI355X estimate of bench/mi355x_model.h beside its
// floor (required bytes at peak bandwidth), with their ratio. Nothing here
// asserts; the e2e suite checks the bytes.
//
//   quant_weight_bench [--small]   (--small: 4096 x 4096 only)
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

#include <cstring>
#include <random>
#include <string>

namespace {

struct Case {
  int n, k;
  const char *keys; // spec keys beyond K and N
};

const Case kCases[] = {
    {4096, 4096, "RS=0"},
    {4096, 4096, "RS=64,rot=hadamard,layout=a4w4_shuffle,wlayout=preshuffle_16x16"},
    {4096, 4096, "RS=128,rot=learned,layout=a4w4_shuffle,wlayout=preshuffle_16x16"},
    {4096, 4096, "RS=64,rot=learned_per_block"},
    {4096, 4096, "RS=64,rot=hadamard,fmt=fp6_e2m3,scale=even126,wlayout=w6a16_16x128"},
    {8192, 28672, "RS=64,rot=hadamard,layout=a4w4_shuffle,wlayout=preshuffle_16x16"},
    {8192, 28672, "RS=0,fmt=fp6_e2m3,scale=even126,wlayout=w6a16_16x128"},
};

} // namespace

int main(int argc, char **argv) {
  const bool small = argc > 1 && std::strcmp(argv[1], "--small") == 0;
  fmt::print("quant_weight on the gfx950 emulator: counts per launch, one launch each\n{}\n\n",
             mxf::bench::mi355xModelLegend());
  fmt::print("{:<13} {:<70} {:>11} {:>9} {:>9} {:>9} {:>8} {:>9} {:>11} {:>7} {:>7}\n",
             "N x K", "keys", "wave-instr", "MFMA", "req MB", "moved MB", "emu s", "floor us",
             "estimate us", "ratio", "bound");
  for (const Case &c : kCases) {
    if (small && c.n * int64_t(c.k) > 4096 * 4096)
      continue;
    const std::string text =
        fmt::format("quant_weight:K={},N={},{}", c.k, c.n, c.keys);
    mxf::Result<mxf::KernelSpec> spec = mxf::parseSpec(text);
    mxf::Result<mxf::CodeObject> code =
        spec.ok() ? mxf::compileSpec(spec.value(), {}) : spec.status();
    if (!code.ok()) {
      fmt::print(stderr, "error: {}: {}\n", text, code.error());
      return 1;
    }
    std::mt19937 rng(7);
    mxf::runtime::HostArrays inputs;
    uint64_t required = 0;
    for (const mxf::KernelOperand &operand : mxf::kernelOperands(spec.value())) {
      const uint64_t bytes = mxf::operandSpanBytes(operand, operand.rowElements());
      required += bytes;
      if (!operand.written)
        inputs[operand.name] =
            mxf::bench::normalBf16(bytes, operand.name[0] == 'r' ? 0.1f : 1.0f, rng);
    }
    auto device = mxf::runtime::openEmuDevice(mxf::bench::mi355xEmuOptions());
    if (!device.ok()) {
      fmt::print(stderr, "error: {}\n", device.error());
      return 1;
    }
    const auto start = mxf::bench::Clock::now();
    auto launched = mxf::runtime::launchSpec(*device.value(), code.value().hsaco,
                                             code.value().kernel, code.value().launch,
                                             spec.value(), spec.value().N, inputs);
    const double seconds = mxf::bench::millisSince(start) / 1e3;
    if (!launched.ok()) {
      fmt::print(stderr, "error: {}\n", launched.error());
      return 1;
    }
    const mxf::runtime::LaunchReport &report = launched.value().report;
    const mxf::bench::Mi355xEstimate e = mxf::bench::estimateMi355x(required, report);
    const double moved =
        double(report.get("global_bytes_read") + report.get("global_bytes_written"));
    fmt::print("{:<13} {:<70} {:>11} {:>9} {:>9.1f} {:>9.1f} {:>8.1f} {:>9.1f} {:>11.1f} "
               "{:>6.2f}x {:>7}\n",
               fmt::format("{} x {}", c.n, c.k), c.keys, report.get("instructions"),
               report.get("mfma"), double(required) / 1e6, moved / 1e6, seconds, e.floorUs,
               e.estimateUs, e.estimateUs / e.floorUs, e.bound);
  }
  fmt::print("\nreq MB: the operands once (w, r, q, s); moved MB: what the emulated loads and "
             "stores moved. ratio = estimate / floor.\n");
  return 0;
}
