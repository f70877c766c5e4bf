//===- gemm_bench.cpp - rotate_quant_gemm: emulated counts, MI355X estimate -===//
//
// Issue 13's table: for decode layers at m in {1, 4, 16, 32, 64}, the fused
// rotate_quant_gemm (RS=64 Hadamard, AITER's weight layouts) against the
// unfused pair (rotate_quant's own launch, then the GEMM with RS=0, which
// quantizes the activation itself), each compiled, run once on the emulator
// and counted: weight bytes, bytes per global load instruction, bytes of
// weight loads in flight per CU, workgroups, wave-instructions, and the
// MI355X estimate of bench/mi355x_model.h (with its latency term from the
// emulator's timeline) beside the floor
// (weight bytes / 8 TB/s) and the published figures issue 13 cites. A third
// row per m is the W6A16 GEMM (fmt=fp6_e2m3, seed 003's w6a16_16x128 tiles,
// the same rotation) against its own floor: 6-bit weights read 1.5x the
// bytes of A4W4's and half of the bf16 weights it lets an engine drop.
// Nothing here asserts; the e2e suite checks the bytes.
//
//   gemm_bench [--all]   (default: Qwen3-8B's layers, 4608x8192 and the
//                         published 8448x7168; --all adds Qwen3-32B,
//                         8192x2048 and DeepSeek-V3's dense MLP)
//
//===----------------------------------------------------------------------===//

#include "bench/bench_support.h"
#include "bench/mi355x_model.h"
#include "bench/peers/aiter_f4gemm.h"

#include "abi/operands.h"
#include "compiler/compiler.h"
#include "runtime/emu_device.h"
#include "runtime/spec_launcher.h"
#include "spec/buckets.h"
#include "spec/kernel_spec.h"
#include "templates/rotate_quant_gemm/tiling.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

namespace {

struct Layer {
  int n, k;
  const char *what;
  bool always; // in the default set
};

const Layer kLayers[] = {
    {6144, 4096, "Qwen3-8B qkv", true},         {4096, 4096, "Qwen3-8B o", true},
    {24576, 4096, "Qwen3-8B gate_up", true},    {4096, 12288, "Qwen3-8B down", true},
    {4608, 8192, "Qwen3.8 in_proj (TP8)", true}, {8448, 7168, "published A4W4 shape", true},
    {10240, 5120, "Qwen3-32B qkv", false},      {5120, 8192, "Qwen3-32B o", false},
    {51200, 5120, "Qwen3-32B gate_up", false},  {5120, 25600, "Qwen3-32B down", false},
    {8192, 2048, "Qwen3.8 out_proj (TP8)", false}, {18432, 7168, "DeepSeek-V3 up", false},
    {7168, 18432, "DeepSeek-V3 down", false},
};

constexpr int kCus = 256;

struct Counted {
  mxf::runtime::LaunchReport report;
  uint64_t required = 0; // the operands once
  uint32_t workgroups = 0, waves = 0;
  double emulatedSeconds = 0;
};

mxf::Result<Counted> run(const std::string &text, int m) {
  mxf::Result<mxf::KernelSpec> spec = mxf::parseSpec(text);
  if (!spec.ok())
    return spec.status();
  mxf::Result<mxf::CodeObject> code = mxf::compileSpec(spec.value(), {});
  if (!code.ok())
    return code.status();
  std::mt19937 rng(11);
  mxf::runtime::HostArrays inputs;
  Counted counted;
  counted.required = mxf::kernelRequiredBytes(spec.value(), m);
  for (const mxf::KernelOperand &operand : mxf::kernelOperands(spec.value(), m)) {
    const uint64_t bytes = mxf::operandSpanBytes(operand, operand.rowElements());
    if (operand.written || operand.workspace) // the launcher zeroes a workspace
      continue;
    // w_s: E8M0 bytes near 2^0 (no NaN scales); x, and w_q, whose any bytes
    // are fp4 codes: normal bf16 bit patterns.
    inputs[operand.name] = std::string(operand.name) == "w_s"
                               ? std::vector<uint8_t>(bytes, 124)
                               : mxf::bench::normalBf16(bytes, 1.0f, rng);
  }
  // Every core of this machine, with the model's latency timeline; one
  // column group emulated (one workgroup, or the `chains` workgroups that
  // split it, the last of which adds their partials), its counts scaled to
  // the grid (a GEMM's column groups run the same instruction stream: every
  // one reads the same K).
  mxf::runtime::EmuDeviceOptions options = mxf::bench::mi355xEmuOptions();
  const uint32_t perGroup =
      uint32_t(mxf::chooseRotateQuantGemmTiling(spec.value()).workgroupsPerGroup);
  options.runsWorkgroup = [perGroup](const std::array<uint32_t, 3> &id) {
    return id[0] < perGroup && id[1] == 0 && id[2] == 0;
  };
  auto device = mxf::runtime::openEmuDevice(options);
  if (!device.ok())
    return device.status();
  const auto start = mxf::bench::Clock::now();
  auto launched = mxf::runtime::launchSpec(*device.value(), code.value().hsaco,
                                           code.value().kernel, code.value().launch, spec.value(),
                                           m, inputs);
  counted.emulatedSeconds = mxf::bench::millisSince(start) / 1e3;
  if (!launched.ok())
    return launched.status();
  const auto &grid = launched.value().grid;
  counted.workgroups = grid.x * grid.y * grid.z;
  counted.report = mxf::bench::scaledToGrid(
      launched.value().report, std::min<uint64_t>(perGroup, counted.workgroups), counted.workgroups);
  counted.waves = uint32_t(counted.report.get("waves"));
  return counted;
}

/// AITER's hand-written A4W4 GEMM (bench/peers: the kernel vLLM calls for
/// M <= 64 on MI355X), through the same emulator and model at the same
/// shape: no rotation, and the activation arrives quantized (its own
/// quantization is a separate launch, not counted here).
void printAiterPeer(const Layer &layer, int m, double floorUs) {
  const mxf::bench::F4GemmRow row{m, layer.n, layer.k, "32x128", 0};
  if (layer.n % 128 != 0 || layer.k % 256 != 0)
    return;
  auto counted = mxf::bench::countF4Gemm(row, MXFORGE_PEERS_DIR "/aiter_f4gemm",
                                         mxf::bench::mi355xTimelineCosts());
  if (!counted.ok()) {
    fmt::print("{:<22} aiter: {}\n", "", counted.error());
    return;
  }
  const mxf::runtime::LaunchReport &r = counted.value().report;
  const mxf::bench::Mi355xEstimate e = mxf::bench::estimateMi355x(counted.value().requiredBytes, r);
  fmt::print("{:<22} {:>12} {:>3} {:<7} {:>8} {:>7} {:>9} {:>5} {:>11} {:>6.2f} {:>9.2f} {:>9.2f} "
             "{:>9.2f} {:>9.2f} {:>6.1f}x {:>8}\n",
             "", "", m, "aiter", "", "", "", counted.value().workgroups, r.get("instructions"),
             e.latencyUs, floorUs, e.memoryUs, e.issueUs, e.estimateUs, e.estimateUs / floorUs,
             e.bound);
}

} // namespace

int main(int argc, char **argv) {
  const bool all = argc > 1 && std::strcmp(argv[1], "--all") == 0;
  fmt::print("rotate_quant_gemm on the gfx950 emulator, one launch per row (its first column "
             "group emulated: one workgroup, or the 4 that split its chains, the last of which "
             "adds their partials; counts scaled to the grid); the unfused pair is rotate_quant "
             "(RS=64) then rotate_quant_gemm with RS=0\n{}\n\n",
             mxf::bench::mi355xModelLegend());
  fmt::print("{:<22} {:>12} {:>3} {:<7} {:>8} {:>7} {:>9} {:>5} {:>11} {:>6} {:>9} {:>9} {:>9} "
             "{:>9} {:>7} {:>8} {:>6}\n",
             "layer", "N x K", "m", "kernel", "W MB", "B/load", "KiB/CU", "WGs", "wave-instr",
             "lat. us", "floor us", "memory us", "issue us", "estim. us", "ratio", "bound", "emu s");
  for (const Layer &layer : kLayers) {
    if (!layer.always && !all)
      continue;
    const double scaleBytes = double(layer.n) * layer.k / 32;
    const double weightBytes = double(layer.n) * layer.k / 2 + scaleBytes;
    const double floorUs = weightBytes / 8e12 * 1e6;
    const double w6WeightBytes = double(layer.n) * layer.k * 3 / 4 + scaleBytes;
    for (int m : {1, 4, 16, 32, 64}) {
      const int bucket = mxf::smallestBucketAtLeast(m).value();
      const std::string common = fmt::format("K={},M={},scale=even", layer.k, bucket);
      const std::string gemmLayouts = "layout=a4w4_shuffle,wlayout=preshuffle_16x16";
      struct Part {
        const char *kernel;
        std::string spec;
      };
      const Part fused{"fused", fmt::format("rotate_quant_gemm:N={},RS=64,rot=hadamard,{},{}",
                                            layer.n, common, gemmLayouts)};
      const Part quant{"rq", fmt::format("rotate_quant:RS=64,rot=hadamard,{}", common)};
      const Part plain{"gemm0", fmt::format("rotate_quant_gemm:N={},RS=0,{},{}", layer.n, common,
                                            gemmLayouts)};
      const Part w6a16{"w6a16", fmt::format("rotate_quant_gemm:N={},RS=64,rot=hadamard,K={},M={},"
                                            "fmt=fp6_e2m3,scale=even126,layout=a4w4_shuffle,"
                                            "wlayout=w6a16_16x128",
                                            layer.n, layer.k, bucket)};
      double pairEstimate = 0;
      uint64_t pairInstructions = 0;
      for (const Part *part : {&fused, &quant, &plain, &w6a16}) {
        mxf::Result<Counted> counted = run(part->spec, m);
        if (!counted.ok()) {
          fmt::print(stderr, "error: {}: {}\n", part->spec, counted.error());
          return 1;
        }
        const mxf::KernelSpec spec = mxf::parseSpec(part->spec).value();
        const bool gemm = spec.op == mxf::KernelOp::RotateQuantGemm;
        const mxf::runtime::LaunchReport &r = counted.value().report;
        const mxf::bench::Mi355xEstimate e =
            mxf::bench::estimateMi355x(counted.value().required, r);
        const uint64_t vmem = std::max<uint64_t>(1, r.get("instructions.vmem"));
        const double bytesPerLoad =
            double(r.get("global_bytes_read") + r.get("global_bytes_written")) / double(vmem);
        // Weight loads in flight per CU: resident waves per CU x the loads a
        // wave keeps in flight (the tiling's own count: one chunk of one
        // tile each) x 1 KiB (64 lanes x 16 bytes); the rotate_quant launch
        // reads no weights.
        const bool w6 = part == &w6a16;
        const double inFlightKiB =
            gemm ? std::ceil(double(counted.value().waves) / kCus) *
                       mxf::chooseRotateQuantGemmTiling(spec).weightLoadsInFlight *
                       (w6 ? 1.5 : 1.0)
                 : 0;
        const double partWeightBytes = w6 ? w6WeightBytes : weightBytes;
        const double partFloorUs = partWeightBytes / 8e12 * 1e6;
        fmt::print("{:<22} {:>12} {:>3} {:<7} {:>8.2f} {:>7.1f} {:>9.0f} {:>5} {:>11} {:>6.2f} "
                   "{:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>6.1f}x {:>8} {:>6.1f}\n",
                   part == &fused ? layer.what : "", fmt::format("{}x{}", layer.n, layer.k), m,
                   part->kernel, gemm ? partWeightBytes / 1e6 : 0.0, bytesPerLoad, inFlightKiB,
                   counted.value().workgroups, r.get("instructions"), e.latencyUs, partFloorUs,
                   e.memoryUs, e.issueUs, e.estimateUs, e.estimateUs / partFloorUs, e.bound,
                   counted.value().emulatedSeconds);
        if (part == &quant || part == &plain) { // the pair's two launches, summed below
          pairEstimate += e.estimateUs;
          pairInstructions += r.get("instructions");
        }
        if (part == &plain) { // the pair's row, the peer's, then the W6A16 GEMM's
          fmt::print("{:<22} {:>12} {:>3} {:<7} {:>8} {:>7} {:>9} {:>5} {:>11} {:>6} {:>9.2f} "
                     "{:>9} {:>9} {:>9.2f} {:>6.1f}x {:>8}\n",
                     "", "", m, "pair", "", "", "", "", pairInstructions, "", floorUs, "",
                     "", pairEstimate, pairEstimate / floorUs, "sum");
          printAiterPeer(layer, m, floorUs);
        }
      }
    }
    if (layer.n == 8448 && layer.k == 7168)
      fmt::print("{:<22} published decode A4W4 kernels at 8448x7168, m=1: 17.9-23.2 us "
                 "(issue 13's figures, measured on MI355X by their authors)\n",
                 "");
  }
  fmt::print("\nW MB: weight codes + scales; B/load: global bytes per wave-level load or store "
             "instruction; KiB/CU: weight bytes in flight per CU (resident waves x the weight "
             "loads a wave keeps in flight x 1 KiB, 1.5 KiB for fp6); lat.: the latency term (rounds x one "
             "workgroup's timeline); ratio = estimate / floor (each kernel's own weight bytes / 8 TB/s); "
             "aiter = AITER's f4gemm_bf16_per1x32Fp4_BpreShuffle_32x128 (bench/peers; no rotation, x already "
             "quantized: its activation quantization is another launch), same emulator and model; "
             "pair = rotate_quant + GEMM(RS=0), two launches summed (each with the model's "
             "fixed time); w6a16 = the W6A16 GEMM (fmt=fp6_e2m3, w6a16_16x128), whose bf16 weights "
             "would read 2 bytes a weight (a floor 2.56x its own).\n");
  return 0;
}
