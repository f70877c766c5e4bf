//===- compile_bench.cpp - How long a spec takes to become a code object --===//
//
// Prints a table (median of repeats) of compile time per spec:
//  - cold: the first compile in a fresh process (the benchmark re-runs
//    itself with --child so that one-time LLVM initialization is counted);
//  - again: the same spec compiled again in the same process;
//  - warm: a later compile of the spec in the same process, each right
//    after a compile of another spec (slower than `again` by 2-3 ms: less
//    of what the compile touches is still in the CPU's caches and in the
//    pooled MLIR context);
//  - by stage: the warm time to stop after each stage (mxf, gpu, rocdl,
//    llvm, hsaco); the differences are the cost of each stage; one row per
//    family at least (rotate_quant's rotations, the MoE front end, the GEMM
//    in A4W4 and W6A16, the weight pass);
//  - over all 322 kernels of the spec matrix: cold and warm, and the warm
//    time split into the part before LLVM (template and MLIR passes) and
//    LLVM's part (translation, O3, code generation, lld).
// Timings are for this machine and a single thread; nothing here asserts.
//
//===----------------------------------------------------------------------===//

#include "bench/bench_support.h"
#include "compiler/compiler.h"
#include "spec/kernel_spec.h"
#include "tests/support/spec_matrix.h"

#include <fmt/core.h>

#include "llvm/Support/CommandLine.h"

#include <algorithm>
#include <map>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using mxf::bench::Clock;
using mxf::bench::median;
using mxf::bench::millisSince;
using mxf::bench::percentile;


/// The first compile of `text` in a fresh process (this program, --child).
double coldCompile(const char *self, const std::string &text) {
  std::string command = std::string(self) + " --child '" + text + "'";
  FILE *child = popen(command.c_str(), "r");
  double ms = -1;
  if (child && std::fscanf(child, "%lf", &ms) != 1)
    ms = -1;
  if (child)
    pclose(child);
  return ms;
}

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
    // One of each other family (issue 32's table): the MoE front end, the
    // fused GEMM (A4W4 and W6A16) and the weight pass.
    "rotate_quant_moe:K=2048,RS=0,topk=8,E=128",
    "rotate_quant_moe:K=2048,RS=128,topk=8,E=128",
    "rotate_quant_gemm:K=8192,N=4608,RS=64,M=16",
    "rotate_quant_gemm:K=8192,N=4608,RS=0,M=16",
    "rotate_quant_gemm:K=8192,N=4608,RS=64,M=16,fmt=fp6_e2m3,wlayout=w6a16_16x128",
    "quant_weight:K=4096,N=4096,RS=64,wlayout=preshuffle_16x16,layout=a4w4_shuffle",
};
// No "asm" stage: stopping there prints assembly with a pipeline built for
// the purpose, while a full compile runs the pooled target's kept pipeline
// (compiler/gfx950_target.h); their difference would mean nothing. The
// hsaco column is code generation, object emission and the link.
const char *const kStages[] = {"mxf", "gpu", "rocdl", "llvm", "hsaco"};

/// Cold and warm compile time over every kernel of the spec matrix (the
/// 322 specs the tests compile and emulate), each compiled once: the median
/// kernel, not only the five above.
bool printMatrixSummary(const char *self) {
  const std::vector<mxf::KernelSpec> specs = mxf::testing::rotateQuantSpecMatrix();
  std::vector<double> cold, warm, warmMlir, warmLlvm;
  std::map<int, std::vector<double>> warmByRs;
  timeCompile(specs.front(), "hsaco"); // one-time initialization out of the warm numbers
  for (const mxf::KernelSpec &spec : specs) {
    const std::string text = mxf::printSpec(spec);
    // The MLIR part of the warm time: the same compile stopped after the
    // rocdl stage. It runs first, with a cold child in between, so the full
    // compile still meets LLVM's code generation right after another
    // spec's (the matrix median moved by 0.2 ms when this was added).
    double mlirMs = timeCompile(spec, "rocdl");
    double coldMs = coldCompile(self, text), warmMs = timeCompile(spec, "hsaco");
    if (coldMs < 0 || warmMs < 0 || mlirMs < 0) {
      fmt::print(stderr, "error: {} did not compile\n", text);
      return false;
    }
    cold.push_back(coldMs);
    warm.push_back(warmMs);
    warmMlir.push_back(mlirMs);
    warmLlvm.push_back(warmMs - mlirMs);
    warmByRs[spec.RS].push_back(warmMs);
    if (std::getenv("MXFORGE_BENCH_EACH"))
      fmt::print(stderr, "{:8.1f} {:8.1f} {}\n", coldMs, warmMs, text);
  }
  auto share = [](const std::vector<double> &values, double limit) {
    return 100.0 * double(std::count_if(values.begin(), values.end(),
                                        [&](double v) { return v <= limit; })) /
           double(values.size());
  };
  fmt::print("\nthe {} kernels of the spec matrix, each compiled once (ms)\n", specs.size());
  fmt::print("{:<6} {:>7} {:>7} {:>7} {:>7} {:>9} {:>10}\n", "", "median", "p10", "p90", "max",
             "target", "within");
  fmt::print("{:<6} {:>7.1f} {:>7.1f} {:>7.1f} {:>7.1f} {:>9} {:>9.0f}%\n", "cold", median(cold),
             percentile(cold, 0.1), percentile(cold, 0.9), percentile(cold, 1.0), "<= 30",
             share(cold, 30));
  fmt::print("{:<6} {:>7.1f} {:>7.1f} {:>7.1f} {:>7.1f} {:>9} {:>9.0f}%\n", "warm", median(warm),
             percentile(warm, 0.1), percentile(warm, 0.9), percentile(warm, 1.0), "<= 15",
             share(warm, 15));
  // Where the warm time goes: everything up to the rocdl stage (template,
  // mxf lowering, MLIR conversions) is ours to shape; the rest is LLVM's
  // (translation to LLVM IR, O3, AMDGPU code generation, lld). When the
  // LLVM row alone is above the target, no work before it can meet it.
  fmt::print("{:<6} {:>7.1f} {:>7.1f} {:>7.1f} {:>7.1f}   warm up to rocdl: template, MLIR passes\n",
             "  mlir", median(warmMlir), percentile(warmMlir, 0.1), percentile(warmMlir, 0.9),
             percentile(warmMlir, 1.0));
  fmt::print("{:<6} {:>7.1f} {:>7.1f} {:>7.1f} {:>7.1f} {:>9} {:>9.0f}%   warm minus that: "
             "translation, O3, codegen, lld\n",
             "  llvm", median(warmLlvm), percentile(warmLlvm, 0.1), percentile(warmLlvm, 0.9),
             percentile(warmLlvm, 1.0), "<= 15", share(warmLlvm, 15));
  fmt::print("warm median by RS:");
  for (const auto &[rs, times] : warmByRs)
    fmt::print("  RS={} {:.1f} ({} kernels)", rs, median(times), times.size());
  fmt::print("\ncold: each in a fresh process; warm: in this process, in matrix order, so each "
             "right after another spec.\n");
  return true;
}

/// MXFORGE_BENCH_LLVM_OPTIONS (e.g. "-amdgpu-sdwa-peephole=false"): LLVM
/// command-line options for this process and its cold children, to measure
/// what an LLVM option would save. The library never sets such options
/// itself: they are process-wide and change the code (docs/compiler.md).
/// An option LLVM does not know ends the program with LLVM's message.
const char *applyLlvmOptions(const char *self) {
  constexpr const char *kVariable = "MXFORGE_BENCH_LLVM_OPTIONS";
  const char *options = std::getenv(kVariable);
  if (!options || !*options)
    return nullptr;
  const char *argv[] = {self};
  llvm::cl::ParseCommandLineOptions(1, argv, "", nullptr, nullptr, kVariable);
  return options;
}

} // namespace

int main(int argc, char **argv) {
  const char *llvmOptions = applyLlvmOptions(argv[0]);
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
  if (llvmOptions)
    fmt::print("with LLVM options (MXFORGE_BENCH_LLVM_OPTIONS): {}\n", llvmOptions);
  fmt::print("{:<78} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}\n", "spec", "cold", "again",
             "warm", "mxf", "+gpu", "+rocdl", "+llvm", "+hsaco");
  // MXFORGE_BENCH_ONLY=text: only the rows whose spec contains it, and no
  // matrix (a quick before/after of one family while working on it).
  const char *only = std::getenv("MXFORGE_BENCH_ONLY");
  for (size_t row = 0; row < std::size(kSpecs); ++row) {
    const char *text = kSpecs[row];
    if (only && !std::strstr(text, only))
      continue;
    // Before each warm compile, one of another spec: what a start-up JIT
    // does, and nothing of this spec's own compile is left to find.
    mxf::Result<mxf::KernelSpec> other = mxf::parseSpec(kSpecs[(row + 1) % std::size(kSpecs)]);
    mxf::Result<mxf::KernelSpec> spec = mxf::parseSpec(text);
    if (!spec.ok() || !other.ok()) {
      fmt::print(stderr, "error: {}\n", spec.ok() ? other.error() : spec.error());
      return 1;
    }
    std::vector<double> cold;
    for (int i = 0; i < repeats; ++i)
      cold.push_back(coldCompile(argv[0], text));
    timeCompile(spec.value(), "hsaco"); // one-time initialization out of the warm numbers
    std::vector<double> again;
    for (int i = 0; i < repeats; ++i)
      again.push_back(timeCompile(spec.value(), "hsaco"));
    std::vector<double> cumulative;
    for (const char *stage : kStages) {
      std::vector<double> runs;
      for (int i = 0; i < repeats; ++i) {
        timeCompile(other.value(), "hsaco");
        runs.push_back(timeCompile(spec.value(), stage));
      }
      cumulative.push_back(median(runs));
    }
    fmt::print("{:<78} {:>7.1f} {:>7.1f} {:>7.1f}", mxf::printSpec(spec.value()).substr(0, 78),
               median(cold), median(again), cumulative.back());
    double previous = 0;
    for (double c : cumulative) {
      fmt::print(" {:>7.1f}", c - previous);
      previous = c;
    }
    fmt::print("\n");
  }
  fmt::print("cold: fresh process, first compile. again: the same spec compiled again in that "
             "process. warm: a later compile in the same process, right after one of another "
             "spec.\nstage columns: warm time of each stage (time to "
             "stop after it minus the one before); +hsaco is AMDGPU code generation, object "
             "emission and the link.\n");
  if (only) {
    fmt::print("rows containing \"{}\" only (MXFORGE_BENCH_ONLY), no matrix\n", only);
    return 0;
  }
  return printMatrixSummary(argv[0]) ? 0 : 1;
}
