//===- compile_bench.cpp - How long a spec takes to become a code object --===//
//
// Prints a table (median of repeats) of compile time per spec:
//  - cold: the first compile in a fresh process (the benchmark re-runs
//    itself with --child so that one-time LLVM initialization is counted);
//  - warm: a further compile of the same spec in the same process;
//  - by stage: the warm time to stop after each stage (mxf, gpu, rocdl,
//    llvm, asm, hsaco); the differences are the cost of each stage.
// Timings are for this machine and a single thread; nothing here asserts.
//
//===----------------------------------------------------------------------===//

#include "bench/bench_support.h"
#include "compiler/compiler.h"
#include "compiler/default_frontend.h"
#include "spec/kernel_spec.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using mxf::bench::Clock;
using mxf::bench::median;
using mxf::bench::millisSince;


/// Compiles `spec` up to `stage` once; returns milliseconds, or -1 on error.
double timeCompile(const mxf::KernelSpec &spec, const char *stage) {
  mxf::CompileOptions options;
  options.stopAfter = stage;
  std::string text;
  options.stageText = &text;
  Clock::time_point start = Clock::now();
  mxf::Result<mxf::CodeObject> result = mxf::compileSpec(spec, options);
  double ms = millisSince(start);
  if (!result.ok()) {
    std::fprintf(stderr, "error: %s\n", result.error().c_str());
    return -1;
  }
  return ms;
}

const char *const kSpecs[] = {
    "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,scale=even",
    "rotate_quant:K=4096,RS=32,rot=hadamard,M=1,scale=rceil",
    "rotate_quant:K=4096,RS=128,rot=learned,M=16,scale=even",
    "rotate_quant:K=8192,RS=256,rot=hadamard,M=64,scale=floor,layout=a4w4_shuffle",
    "rotate_quant:K=2048,RS=0,M=16,scale=even",
};
const char *const kStages[] = {"mxf", "gpu", "rocdl", "llvm", "asm", "hsaco"};

} // namespace

int main(int argc, char **argv) {
  mxf::installDefaultSpecFrontend();
  // Child mode: one cold compile, print its time.
  if (argc == 3 && std::string(argv[1]) == "--child") {
    mxf::Result<mxf::KernelSpec> spec = mxf::parseSpec(argv[2]);
    if (!spec.ok())
      return 1;
    double ms = timeCompile(spec.value(), "hsaco");
    std::printf("%.3f\n", ms);
    return ms < 0;
  }
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
  fmt::print("compile time per kernel, single thread, median of {} runs (ms)\n", repeats);
  fmt::print("{:<78} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}\n", "spec", "cold", "warm",
             "mxf", "+gpu", "+rocdl", "+llvm", "+asm", "+hsaco");
  for (const char *text : kSpecs) {
    mxf::Result<mxf::KernelSpec> spec = mxf::parseSpec(text);
    if (!spec.ok()) {
      fmt::print(stderr, "error: {}\n", spec.error());
      return 1;
    }
    std::vector<double> cold;
    for (int i = 0; i < repeats; ++i) {
      std::string command = std::string(argv[0]) + " --child '" + text + "'";
      FILE *child = popen(command.c_str(), "r");
      double ms = -1;
      if (child && std::fscanf(child, "%lf", &ms) != 1)
        ms = -1;
      if (child)
        pclose(child);
      cold.push_back(ms);
    }
    timeCompile(spec.value(), "hsaco"); // one-time initialization out of the warm numbers
    std::vector<double> cumulative;
    for (const char *stage : kStages) {
      std::vector<double> runs;
      for (int i = 0; i < repeats; ++i)
        runs.push_back(timeCompile(spec.value(), stage));
      cumulative.push_back(median(runs));
    }
    fmt::print("{:<78} {:>7.1f} {:>7.1f}", mxf::printSpec(spec.value()).substr(0, 78),
               median(cold), cumulative.back());
    double previous = 0;
    for (double c : cumulative) {
      fmt::print(" {:>7.1f}", c - previous);
      previous = c;
    }
    fmt::print("\n");
  }
  fmt::print("stage columns: warm time of each stage (time to stop after it minus the one "
             "before); cold: fresh process, first compile.\n");
  return 0;
}
