//===- demo_command.cpp - mxforge demo: the decode set, compiled and checked -===//
//
// The main job: compiles rotate_quant specs (by default the decode set:
// K=4096, RS=64 Hadamard, M buckets 1..16, fp4 with the even scale rule) for
// gfx950 in process, runs each kernel on the emulator with random
// activations with outliers, compares every output byte with the reference
// and prints a kernel table; then the quality table of quality_report.h
// (rotation against plain RTN); then, for the default set, the fused decode
// GEMM of a Qwen3-8B o_proj on the same activations (rotate_quant_gemm,
// weights prepared by quant_weight's reference) against its RTN twin (RS=0):
// bit-exact on the emulator, and the error of each against x.W^T. Exits 1
// if any kernel mismatches or any quality row fails its round-trip check.
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/commands.h"

#include "spec/kernel_spec.h"
#include "codeobj/occupancy.h"
#include "runtime/device_factory.h"
#include "templates/registry.h"
#include "tools/mxforge/cli_support.h"
#include "tools/mxforge/kernel_run.h"
#include "tools/mxforge/text_table.h"
#include "tools/mxforge/quality_report.h"
#include "arrays/random_inputs.h"
#include "numerics/formats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace mxf::cli {
namespace {

namespace cl = llvm::cl;

cl::SubCommand demoCommand("demo", "Compile the decode set for gfx950, run it on the emulator, "
                                   "check it against the reference, print a summary");

cl::list<std::string> specFlag("spec", cl::sub(demoCommand), cl::value_desc("SPEC"),
                               cl::desc("A rotate_quant spec to run at its M bucket "
                                        "(repeatable; default: the decode set)"),
                               cl::cat(mxforgeCategory()));
cl::opt<std::string> seedFlag("seed", cl::sub(demoCommand), cl::value_desc("S"),
                              cl::desc("Seed of the activations (default: a fresh one, printed)"),
                              cl::cat(mxforgeCategory()));

/// Activations: N(0, 1) with one element per 32 scaled by this factor, the
/// outlier channels that make plain MX quantization lose precision.
constexpr double kOutlierFactor = 16.0;
constexpr size_t kOutlierBlock = 32;

/// The decode GEMM the demo runs after the set (Qwen3-8B's o_proj in
/// AITER's weight layouts), at this bucket, with its RTN twin (RS=0).
const char *const kDecodeGemm = "rotate_quant_gemm:K=4096,N=4096,RS=64,rot=hadamard,M=4,"
                                "fmt=fp4,scale=even,layout=a4w4_shuffle,wlayout=preshuffle_16x16";
const char *const kDecodeGemmRtn = "rotate_quant_gemm:K=4096,N=4096,RS=0,rot=none,M=4,"
                                   "fmt=fp4,scale=even,layout=a4w4_shuffle,"
                                   "wlayout=preshuffle_16x16";

const char *const kDecodeSet[] = {
    "rotate_quant:K=4096,RS=64,rot=hadamard,M=1,fmt=fp4,scale=even",
    "rotate_quant:K=4096,RS=64,rot=hadamard,M=2,fmt=fp4,scale=even",
    "rotate_quant:K=4096,RS=64,rot=hadamard,M=4,fmt=fp4,scale=even",
    "rotate_quant:K=4096,RS=64,rot=hadamard,M=8,fmt=fp4,scale=even",
    "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=even",
};

int runSelected(llvm::raw_ostream &out, llvm::raw_ostream &err) {
  DemoOptions options;
  options.specs.assign(specFlag.begin(), specFlag.end());
  if (seedFlag.getNumOccurrences())
    options.seed = seedFlag.getValue();
  return runDemo(options, out, err);
}

/// `rows` rows of K activations: N(0, 1) bf16 with block outliers, drawn
/// row by row from one stream, so that with equal K a bucket's x is the
/// first rows of every larger bucket's x (and the GEMM's rows are the set's).
std::vector<uint16_t> drawActivations(uint64_t seed, int rows, int k) {
  arrays::RandomStream stream(seed, "x");
  std::vector<uint16_t> x;
  for (int row = 0; row < rows; ++row) {
    std::vector<uint16_t> values = arrays::randomNormalBf16(stream, static_cast<size_t>(k));
    arrays::addBlockOutliers(stream, values, kOutlierBlock, kOutlierFactor);
    x.insert(x.end(), values.begin(), values.end());
  }
  return x;
}

/// quant_weight's spec for a GEMM's weights: the same K, N, rotation, rule
/// and layouts.
KernelSpec weightSpecOf(const KernelSpec &gemm) {
  KernelSpec weights = gemm;
  weights.op = KernelOp::QuantWeight;
  weights.M = KernelSpec().M; // not a quant_weight key: its default
  return weights;
}

/// The fused GEMM and its RTN twin on the first M rows of the set's
/// activations, against x.W^T in double; one table row each. Returns the
/// number of kernels that differ from the reference, or an error.
Result<size_t> runGemmSection(runtime::Device &device, uint64_t seed, llvm::raw_ostream &out) {
  TextTable table;
  for (const char *header : {"kernel (gfx950, on the emulator)", "M", "compile ms", "VGPRs",
                             "instructions", "emu ms", "check", "rel rms vs x.W^T"})
    table.addColumn(header, std::string(header).rfind("kernel", 0) == 0 ||
                                    std::string(header) == "check"
                                ? TextTable::Align::Left
                                : TextTable::Align::Right);
  size_t failures = 0;
  // Short labels keep the table within 120 columns; the legend below gives
  // each one's spec.
  const std::pair<const char *, const char *> gemms[] = {{"A4W4 rotated", kDecodeGemm},
                                                         {"A4W4 RTN", kDecodeGemmRtn}};
  std::string legend;
  for (const auto &[label, text] : gemms) {
    const KernelSpec spec = parseSpec(text).value();
    legend += fmt::format("  {}: {}\n", label, printSpecShort(spec));
    const size_t m = size_t(spec.M), k = size_t(spec.K), n = size_t(spec.N);
    const std::vector<uint16_t> x = drawActivations(seed, spec.M, spec.K);
    // W: N(0, 1) rows, the same for both specs (one stream per seed).
    arrays::RandomStream stream(seed, "w");
    const std::vector<uint16_t> w = arrays::randomNormalBf16(stream, n * k);
    arrays::NpyArrays weightInputs;
    weightInputs.emplace("w", arrays::NpyArray::of<uint16_t>({n, k}, w));
    Result<arrays::ReferenceRun> weights =
        arrays::runReference(weightSpecOf(spec), int(n), weightInputs, seed);
    if (!weights.ok())
      return weights.status();
    arrays::NpyArrays given;
    given.emplace("x", arrays::NpyArray::of<uint16_t>({m, k}, x));
    given.emplace("w_q", weights.value().outputs.at("q"));
    given.emplace("w_s", weights.value().outputs.at("s"));
    Result<arrays::ReferenceRun> reference = arrays::runReference(spec, int(m), given, seed);
    if (!reference.ok())
      return reference.status();
    Result<CompiledKernel> kernel = obtainKernel(spec, "", "");
    if (!kernel.ok())
      return kernel.status();
    Result<KernelRun> run = runAndCompare(device, kernel.value(), spec, int(m), reference.value());
    if (!run.ok())
      return run.status();
    failures += run.value().ok() ? 0 : 1;
    // The GEMM's error against the unquantized product, in double.
    const std::vector<uint16_t> &y = reference.value().outputs.at("y").as<uint16_t>();
    double error = 0, norm = 0;
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j) {
        double exact = 0;
        for (size_t c = 0; c < k; ++c)
          exact += double(bf16ToF32(x[i * k + c])) * double(bf16ToF32(w[j * k + c]));
        const double diff = double(bf16ToF32(y[i * n + j])) - exact;
        error += diff * diff;
        norm += exact * exact;
      }
    table.addRow({label, std::to_string(m), fmt::format("{:.1f}", kernel.value().compileMs),
                  std::to_string(kernel.value().code.kernel.vgprCount),
                  std::to_string(run.value().report.get("instructions")),
                  fmt::format("{:.1f}", run.value().launchMs),
                  run.value().ok() ? "bit-exact"
                                   : "FAIL: " + std::to_string(run.value().mismatches) +
                                         " bytes differ",
                  fmt::format("{:.4f}", std::sqrt(error / norm))});
  }
  out << "\nthe fused decode GEMM (Qwen3-8B o_proj, N=K=4096) on the first rows of the same x,\n"
         "weights W ~ N(0,1) through quant_weight's reference; rel rms: y vs x.W^T in double:\n";
  out << table.render() << legend;
  return failures;
}

} // namespace

Subcommand demoSubcommand() { return {&demoCommand, runSelected}; }

int runDemo(const DemoOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  uint64_t seed = 0;
  if (options.seed) {
    Result<uint64_t> parsed = parseU64Flag("seed", *options.seed);
    if (!parsed.ok())
      return reportError(err, parsed.error(), kExitUsage);
    seed = parsed.value();
  } else {
    seed = arrays::freshSeed();
  }
  std::vector<std::string> texts = options.specs;
  if (texts.empty())
    texts.assign(std::begin(kDecodeSet), std::end(kDecodeSet));
  std::vector<KernelSpec> specs;
  for (const std::string &text : texts) {
    Result<KernelSpec> spec = parseSpec(text);
    if (!spec.ok())
      return reportError(err, "invalid spec: " + spec.error());
    if (spec.value().op != KernelOp::RotateQuant)
      return reportError(err, std::string("mxforge demo runs rotate_quant specs, not ") +
                                  kernelOpName(spec.value().op));
    specs.push_back(spec.value());
  }

  out << "seed: " << seed << " (replay with --seed " << seed << ")\n";
  out << fmt::format("x: N(0,1) bf16, one element per {} scaled by {}; rel rms: dequant vs the "
                     "quantized input;\nrtn: the same spec with RS=0; err/bound: round trip "
                     "dequant.R^T vs x (<= 1 passes)\n",
                     kOutlierBlock, kOutlierFactor);

  Result<std::unique_ptr<runtime::Device>> device = runtime::openDevice("emu");
  if (!device.ok())
    return reportError(err, device.error());
  TextTable kernels;
  for (const char *header : {"kernel (gfx950, on the emulator)", "M", "compile ms", "VGPRs",
                             "LDS B", "waves/SIMD", "instructions", "emu ms", "check"})
    kernels.addColumn(header, std::string(header).rfind("kernel", 0) == 0 ||
                                      std::string(header) == "check"
                                  ? TextTable::Align::Left
                                  : TextTable::Align::Right);
  std::vector<QualityRow> rows;
  size_t kernelFailures = 0;
  for (const KernelSpec &spec : specs) {
    const std::vector<uint16_t> x = drawActivations(seed, spec.M, spec.K);
    Result<QualityRow> row = measureQuality(spec, spec.M, x, seed);
    if (!row.ok())
      return reportError(err, printSpec(spec) + ": " + row.error());
    rows.push_back(row.value());

    const std::string name = printSpecShort(spec);
    if (Status supported = checkCompilable(spec); !supported.ok()) {
      kernels.addRow({name, std::to_string(spec.M), "-", "-", "-", "-", "-", "-",
                      "reference only (no template yet)"});
      continue;
    }
    arrays::NpyArrays given;
    given.emplace("x", arrays::NpyArray::of<uint16_t>({size_t(spec.M), size_t(spec.K)}, x));
    Result<arrays::ReferenceRun> reference = arrays::runReference(spec, spec.M, given, seed);
    if (!reference.ok())
      return reportError(err, name + ": " + reference.error());
    Result<CompiledKernel> kernel = obtainKernel(spec, "", "");
    if (!kernel.ok())
      return reportError(err, kernel.error());
    Result<KernelRun> run = runAndCompare(*device.value(), kernel.value(), spec, spec.M,
                                          reference.value());
    if (!run.ok())
      return reportError(err, name + ": " + run.error());
    const KernelInfo &info = kernel.value().code.kernel;
    codeobj::Occupancy occupancy = codeobj::computeOccupancy(
        {info.vgprCount, info.sgprCount, info.ldsBytes, info.maxWorkgroupSize});
    std::string verdict = run.value().ok()
                              ? "bit-exact"
                              : "FAIL: " + std::to_string(run.value().mismatches) +
                                    " bytes differ, " +
                                    std::to_string(run.value().untouchedViolations) +
                                    " written past M";
    kernelFailures += run.value().ok() ? 0 : 1;
    kernels.addRow({name, std::to_string(spec.M), fmt::format("{:.1f}", kernel.value().compileMs),
                    std::to_string(info.vgprCount), std::to_string(info.ldsBytes),
                    std::to_string(occupancy.wavesPerSimd),
                    std::to_string(run.value().report.get("instructions")),
                    fmt::format("{:.1f}", run.value().launchMs), verdict});
    for (const std::string &line : run.value().details)
      err << "  " << name << ": " << line << "\n";
  }
  out << kernels.render() << "\n";
  out << "quantization quality of the same inputs (reference):\n";
  out << qualityTable(rows).render();
  if (options.specs.empty()) {
    Result<size_t> gemmFailures = runGemmSection(*device.value(), seed, out);
    if (!gemmFailures.ok())
      return reportError(err, gemmFailures.error());
    kernelFailures += gemmFailures.value();
  }
  out.flush();
  const size_t failed =
      std::count_if(rows.begin(), rows.end(), [](const QualityRow &row) { return !row.ok(); });
  if (kernelFailures)
    return reportError(err, std::to_string(kernelFailures) + " kernel(s) differ from the "
                                "reference on the emulator");
  if (failed)
    return reportError(err, std::to_string(failed) + " of " + std::to_string(rows.size()) +
                                " rows failed the round-trip check (err/bound > 1)");
  return kExitSuccess;
}

} // namespace mxf::cli
