//===- a6w6_tiles_bench.cpp - AITER's A6W6 tiles from the kernel, counted -===//
//
// Issue 18: rotate_quant writes AITER's mxfp6_c0c1_256_padk2 operand tiles
// itself. The tiles hold 256 rows and K padded to 128 plus two guard tiles
// whatever m is, and mxforge writes every byte of them (padding rows, K
// padding and guards: codes 0, scales 127, as AITER's torch packer writes
// them; docs/a6w6.md). This table puts the A6W6 contract (RS=32 Hadamard,
// fp6_e2m3, scale=a6w6, round=rna) in plain rows beside the same kernel
// writing the tiles, at decode and full row tiles, so the price of the
// padding is visible: wave-instructions, bytes written and the MI355X
// estimate of docs/estimate.md's model (bench/mi355x_model.h), labelled as
// such. The floor is each launch's own operand bytes at peak bandwidth (for
// the tiles, the whole padded buffer). Counts are deterministic; ms is
// emulator time on this machine (median of the repeats, 1 thread). Nothing
// here asserts; the e2e matrix checks the bytes.
//
//   a6w6_tiles_bench [repeats]   (default 3)
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
#include <string>
#include <vector>

namespace {

struct Counted {
  uint64_t instructions = 0, waves = 0, bytesWritten = 0;
  uint32_t vgprs = 0;
  double ms = 0, estimateUs = 0, floorUs = 0;
  const char *bound = "";
};

mxf::Result<Counted> count(const std::string &text, int m, int repeats) {
  mxf::Result<mxf::KernelSpec> parsed = mxf::parseSpec(text);
  if (!parsed.ok())
    return parsed.status();
  const mxf::KernelSpec &spec = parsed.value();
  mxf::Result<mxf::CodeObject> code = mxf::compileSpec(spec, {});
  if (!code.ok())
    return code.status();
  std::mt19937 rng(7);
  mxf::runtime::HostArrays inputs;
  mxf::Result<uint64_t> xBytes = mxf::runtime::operandBytes(spec, m, "x");
  if (!xBytes.ok())
    return xBytes.status();
  inputs["x"] = mxf::bench::normalBf16(xBytes.value(), 1.0f, rng);
  mxf::runtime::EmuDeviceOptions options;
  options.threads = 1;
  options.timeline = mxf::bench::mi355xTimelineCosts();
  auto device = mxf::runtime::openEmuDevice(options);
  if (!device.ok())
    return device.status();
  Counted out;
  std::vector<double> times;
  mxf::runtime::LaunchReport report;
  for (int r = 0; r < repeats; ++r) {
    const auto start = mxf::bench::Clock::now();
    auto launched = mxf::runtime::launchSpec(*device.value(), code.value().hsaco,
                                             code.value().kernel, code.value().launch, spec, m,
                                             inputs, {});
    times.push_back(mxf::bench::millisSince(start));
    if (!launched.ok())
      return launched.status();
    report = launched.value().report;
  }
  out.instructions = report.get("instructions");
  out.waves = report.get("waves");
  out.bytesWritten = report.get("global_bytes_written");
  out.vgprs = code.value().kernel.vgprCount;
  out.ms = mxf::bench::median(times);
  const mxf::bench::Mi355xEstimate e =
      mxf::bench::estimateMi355x(mxf::kernelRequiredBytes(spec, m), report);
  out.estimateUs = e.estimateUs;
  out.floorUs = e.floorUs;
  out.bound = e.bound;
  return out;
}

} // namespace

int main(int argc, char **argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  fmt::print("AITER's A6W6 contract (RS=32 Hadamard, fp6_e2m3, scale=a6w6, round=rna): plain "
             "rows against the kernel writing mxfp6_c0c1_256_padk2 tiles (median of {} emulator "
             "runs)\n{}\n\n",
             repeats, mxf::bench::mi355xModelLegend());
  fmt::print("{:>6} {:>4} {:>5} {:<22} {:>11} {:>9} {:>6} {:>13} {:>9} {:>17} {:>9} {:>8}\n",
             "K", "M", "m", "layout", "wave-instr", "per wave", "VGPRs", "bytes written",
             "floor us", "estimate us", "x plain", "emu ms");
  struct Shape {
    int k, bucket, m;
  };
  // Qwen3-8B's hidden size and down projection, a published A4W4 K, and a K
  // that is not a multiple of 128 (K padding inside the last K tile); decode
  // rows, and a full 256-row tile.
  const Shape shapes[] = {{4096, 16, 1},  {4096, 16, 16}, {4096, 256, 256}, {7168, 16, 16},
                          {12288, 16, 1}, {12288, 16, 16}, {4064, 16, 16}};
  for (const Shape &shape : shapes) {
    const std::string base =
        fmt::format("rotate_quant:K={},RS=32,rot=hadamard,M={},fmt=fp6_e2m3,scale=a6w6,round=rna",
                    shape.k, shape.bucket);
    Counted plain;
    for (const char *layout : {"plain", "mxfp6_c0c1_256_padk2"}) {
      mxf::Result<Counted> c = count(base + ",layout=" + layout, shape.m, repeats);
      if (!c.ok()) {
        fmt::print(stderr, "error: {}: {}\n", base, c.error());
        return 1;
      }
      const Counted &k = c.value();
      const bool isPlain = layout[0] == 'p';
      if (isPlain)
        plain = k;
      fmt::print("{:>6} {:>4} {:>5} {:<22} {:>11} {:>9.1f} {:>6} {:>13} {:>9.3f} {:>8.3f} ({:<6}) "
                 "{:>9} {:>8.1f}\n",
                 shape.k, shape.bucket, shape.m, layout, k.instructions,
                 double(k.instructions) / double(k.waves), k.vgprs, k.bytesWritten, k.floorUs,
                 k.estimateUs, k.bound,
                 isPlain ? std::string("-")
                         : fmt::format("{:.2f}x", k.estimateUs / plain.estimateUs),
                 k.ms);
    }
  }
  fmt::print("\nx plain: the tiled launch's estimate against the plain launch's. The tiles' bytes "
             "are the whole padded buffer (256 rows, K padded to 128 + 256 guard channels), "
             "written by the kernel. Estimates, not measurements.\n");
  return 0;
}
