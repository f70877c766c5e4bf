//===- startup_bench.cpp - Cache, bundle and parallel JIT at start-up -----===//
//
// Prints one table (median of repeats) of what an engine waits for at
// start-up, against the targets of docs/jit.md:
//  - cold compile: one spec in a fresh process, one thread, no cache (the
//    baseline every other row is compared with);
//  - cache hit: key + load + verify of one entry, per kernel;
//  - bundle load: reading and verifying a bundle of 100 kernels;
//  - preset cold: `qwen3-8b` compiled from nothing in a fresh process with
//    1 and 2 threads (the whole process, LLVM initialization included), and
//    what the bundle holds (kernels, distinct code objects, bytes);
//  - launch overhead per call on the emu device, split into the host-side
//    work (the launcher's checks, kernarg packing) and the emulation.
// Timings are this machine's; nothing here asserts.
//
//===----------------------------------------------------------------------===//

#include "bench/bench_support.h"
#include "compiler/compiler.h"
#include "compiler/jit/in_process_jit.h"
#include "runtime/emu_device.h"
#include "runtime/kernel_args.h"
#include "runtime/spec_launcher.h"
#include "runtime/bundle_writer.h"
#include "spec/buckets.h"
#include "spec/presets.h"
#include "support/file_io.h"
#include "support/version.h"

#include "llvm/Config/llvm-config.h"

#include <fmt/core.h>

#include <algorithm>
#include <set>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using mxf::bench::Clock;
using mxf::bench::median;
using mxf::bench::millisSince;

struct LaunchOverhead {
  double totalUs = 0, hostUs = 0, emulationUs = 0;
};

/// Per-call cost of launching the smallest kernel (K=256, no rotation,
/// m=1) through the spec launcher on the emu device. The emulation is the
/// same launch handed straight to the device, less the kernarg packing it
/// does (timed on its own); the host side is the rest: the launcher's
/// checks, the argument list and the packing.
LaunchOverhead launchOverhead() {
  const mxf::KernelSpec spec = mxf::parseSpec("rotate_quant:K=256,M=1").value();
  mxf::Result<mxf::CodeObject> code = mxf::compileSpec(spec, {});
  auto device = mxf::runtime::openEmuDevice({});
  if (!code.ok() || !device.ok())
    std::exit((std::fprintf(stderr, "error: cannot set up the launch benchmark\n"), 1));
  mxf::runtime::Device &emu = *device.value();
  auto module = emu.loadCodeObject(code.value().hsaco, {code.value().kernel});
  auto kernel = emu.getKernel(module.value(), code.value().kernel.name);
  std::vector<mxf::runtime::ScopedBuffer> buffers;
  std::vector<mxf::runtime::KernelArg> operands;
  for (const char *name : {"x", "q", "s"}) {
    buffers.push_back(std::move(mxf::runtime::ScopedBuffer::allocate(
        emu, mxf::runtime::operandBytes(spec, 1, name).value()).value()));
    operands.push_back(mxf::runtime::KernelArg::buffer(buffers.back().get()));
  }
  mxf::runtime::KernelArgs args;
  for (const mxf::runtime::KernelArg &arg : operands)
    args.add(arg);
  args.value(int32_t(1)).value(int32_t(256)).value(int32_t(128));
  const mxf::runtime::LaunchConfig config = mxf::runtime::launchConfigFor(code.value().launch, 1);
  const mxf::runtime::LaunchGeometry geometry{config.grid, config.workgroup, 0};
  constexpr int kCalls = 200;
  auto perCallUs = [&](auto &&call) {
    std::vector<double> rounds;
    for (int round = 0; round < 5; ++round) {
      Clock::time_point start = Clock::now();
      for (int i = 0; i < kCalls; ++i)
        call();
      rounds.push_back(millisSince(start) * 1000.0 / kCalls);
    }
    return median(rounds);
  };
  LaunchOverhead out;
  out.totalUs = perCallUs([&] {
    (void)mxf::runtime::launchSpecKernel(emu, kernel.value(), spec, code.value().launch, 1,
                                         operands);
  });
  out.emulationUs = perCallUs([&] { (void)emu.launch(kernel.value(), config, args); });
  const double packUs = perCallUs(
      [&] { (void)mxf::runtime::packKernelArgs(code.value().kernel, args, geometry); });
  // The device packs the arguments itself: that part of its time is host work.
  out.emulationUs = std::max(0.0, out.emulationUs - packUs);
  out.hostUs = std::max(0.0, out.totalUs - out.emulationUs);
  return out;
}


/// Wall time of a shell command in milliseconds; exits on failure.
double timeCommand(const std::string &command) {
  Clock::time_point start = Clock::now();
  int status = std::system(command.c_str());
  double ms = millisSince(start);
  if (status != 0) {
    std::fprintf(stderr, "error: '%s' failed\n", command.c_str());
    std::exit(1);
  }
  return ms;
}

std::string scratchDirectory() {
  char pattern[] = "/tmp/mxforge-startup-bench-XXXXXX";
  if (!::mkdtemp(pattern)) {
    std::perror("mkdtemp");
    std::exit(1);
  }
  return pattern;
}

/// --child-compile SPEC: one compile in this fresh process, no cache.
int childCompile(const char *specText) {
  Clock::time_point start = Clock::now();
  mxf::KernelTableOptions options;
  options.jit = mxf::inProcessJit();
  mxf::KernelTable table(std::move(options));
  mxf::Result<mxf::KernelHandle> kernel = table.get(std::string_view(specText));
  if (!kernel.ok()) {
    std::fprintf(stderr, "error: %s\n", kernel.error().c_str());
    return 1;
  }
  std::printf("%.3f\n", millisSince(start));
  return 0;
}

double coldCompileMs(const char *self, const char *spec, int repeats) {
  std::vector<double> samples;
  for (int i = 0; i < repeats; ++i) {
    std::string command = std::string("'") + self + "' --child-compile '" + spec + "'";
    FILE *pipe = ::popen(command.c_str(), "r");
    double ms = -1;
    if (!pipe || std::fscanf(pipe, "%lf", &ms) != 1 || ::pclose(pipe) != 0 || ms < 0) {
      std::fprintf(stderr, "error: the cold-compile child failed\n");
      std::exit(1);
    }
    samples.push_back(ms);
  }
  return median(samples);
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 3 && std::string(argv[1]) == "--child-compile")
    return childCompile(argv[2]);
  const std::string tool = argc > 1 ? argv[1] : "";
  if (tool.empty() || argc > 2) {
    std::fprintf(stderr, "usage: startup_bench PATH/TO/mxforge\n");
    return 2;
  }
  const char *kSpec = "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,scale=even";
  const std::string dir = scratchDirectory();

  // 1. The baseline: one cold compile.
  const double coldMs = coldCompileMs(argv[0], kSpec, 5);

  // 100 real kernels: the three presets' distinct specs, compiled once into a
  // scratch cache (not timed; their cold cost is row 4's business).
  std::vector<mxf::KernelSpec> specs;
  std::set<std::string> seen; // presets share widths (K=4096)
  for (const mxf::SpecPreset &preset : mxf::specPresets())
    for (const mxf::KernelSpec &spec : preset.specs)
      if (specs.size() < 100 && seen.insert(mxf::printSpec(spec)).second)
        specs.push_back(spec);
  // Topped up to 100 with RS=128 Hadamard kernels (the presets hold 90).
  for (int bucket : mxf::kMBuckets)
    for (int k : {4096, 5120})
      if (specs.size() < 100) {
        mxf::KernelSpec spec = specs.front();
        spec.K = k;
        spec.RS = 128;
        spec.M = bucket;
        if (seen.insert(mxf::printSpec(spec)).second)
          specs.push_back(spec);
      }
  mxf::KernelTableOptions options;
  options.jit = mxf::inProcessJit();
  options.cache = {true, dir + "/cache", "bench"};
  std::vector<mxf::BundleInput> inputs;
  {
    mxf::KernelTable table(options);
    std::vector<mxf::Result<mxf::KernelHandle>> kernels = table.compileAll(specs, 2);
    for (size_t i = 0; i < kernels.size(); ++i) {
      if (!kernels[i].ok()) {
        std::fprintf(stderr, "error: %s\n", kernels[i].error().c_str());
        return 1;
      }
      const mxf::CodeObject &object = kernels[i].value()->object;
      inputs.push_back({mxf::printSpec(specs[i]), object.kernel, object.launch, object.hsaco});
    }
  }

  // 2. Cache hits: a fresh table per round, so every get() goes to disk.
  std::vector<double> hitSamples;
  for (int round = 0; round < 5; ++round) {
    mxf::KernelTable table(options);
    Clock::time_point start = Clock::now();
    for (const mxf::KernelSpec &spec : specs)
      if (!table.get(spec).ok() || table.stats().cacheHits == 0)
        return std::fprintf(stderr, "error: expected a cache hit\n"), 1;
    hitSamples.push_back(millisSince(start) / double(specs.size()));
  }

  // 3. Bundle load of the 100 kernels.
  mxf::BundleHeaderInfo header;
  header.mxforgeVersion = mxf::mxforgeVersion();
  header.llvmVersion = LLVM_VERSION_STRING;
  const std::string bundlePath = dir + "/hundred.mxfb";
  if (mxf::Status written = mxf::writeBundleFile(bundlePath, header, inputs); !written.ok())
    return std::fprintf(stderr, "error: %s\n", written.message().c_str()), 1;
  std::vector<double> bundleSamples;
  uint64_t bundleBytes = 0;
  for (int round = 0; round < 20; ++round) {
    Clock::time_point start = Clock::now();
    mxf::Result<mxf::Bundle> bundle = mxf::Bundle::load(bundlePath);
    bundleSamples.push_back(millisSince(start));
    if (!bundle.ok() || bundle.value().size() != specs.size())
      return std::fprintf(stderr, "error: bundle load failed\n"), 1;
    bundleBytes = bundle.value().bytes().size();
  }

  // 4. The qwen3-8b preset from nothing, in a fresh process.
  std::vector<double> preset1, preset2;
  for (int round = 0; round < 3; ++round) {
    for (int threads : {1, 2}) {
      std::string command = "'" + tool + "' bundle --preset qwen3-8b --no-cache --threads " +
                            std::to_string(threads) + " -o '" + dir + "/preset.mxfb' >/dev/null";
      (threads == 1 ? preset1 : preset2).push_back(timeCommand(command));
    }
  }
  const size_t presetKernels = mxf::findSpecPreset("qwen3-8b").value().specs.size();
  // What the preset's bundle holds: entries, distinct code objects, bytes.
  size_t presetCodeObjects = 0;
  uint64_t presetBundleBytes = 0;
  {
    mxf::Result<mxf::Bundle> preset = mxf::Bundle::load(dir + "/preset.mxfb");
    if (!preset.ok())
      return std::fprintf(stderr, "error: %s\n", preset.error().c_str()), 1;
    std::set<const uint8_t *> distinct;
    for (const mxf::Bundle::Kernel &kernel : preset.value().kernels())
      distinct.insert(kernel.hsaco);
    presetCodeObjects = distinct.size();
    presetBundleBytes = preset.value().bytes().size();
  }
  const LaunchOverhead launch = launchOverhead();

  (void)std::system(("rm -rf '" + dir + "'").c_str());

  fmt::print("start-up costs on this machine (median; {} hardware threads)\n\n",
             std::max(1u, std::thread::hardware_concurrency()));
  fmt::print("{:<44} {:>12} {:>12} {:>14}\n", "case", "median", "target", "vs cold compile");
  auto row = [&](const std::string &name, double ms, const std::string &target) {
    fmt::print("{:<44} {:>9.3f} ms {:>12} {:>13.3f}x\n", name, ms, target, ms / coldMs);
  };
  row("cold compile, 1 kernel, fresh process", coldMs, "-");
  row("cache hit (key + load + verify), per kernel", median(hitSamples), "<= 0.5 ms");
  row(fmt::format("bundle load, {} kernels ({} KiB)", specs.size(), bundleBytes / 1024),
      median(bundleSamples), "<= 20 ms");
  row(fmt::format("qwen3-8b preset cold ({} kernels), 1 thread", presetKernels), median(preset1),
      "-");
  row(fmt::format("qwen3-8b preset cold ({} kernels), 2 threads", presetKernels),
      median(preset2), "<= 2000 ms");
  fmt::print("\n2-thread speed-up on the preset: {:.2f}x\n", median(preset1) / median(preset2));
  fmt::print("qwen3-8b bundle: {} kernels, {} distinct code objects, {} bytes\n", presetKernels,
             presetCodeObjects, presetBundleBytes);
  fmt::print("launch on emu (K=256, m=1), per call: {:.1f} us = host side {:.1f} us "
             "(checks, argument list, kernarg packing) + emulation {:.1f} us\n",
             launch.totalUs, launch.hostUs, launch.emulationUs);
  return 0;
}
