//===- bench_command.cpp - mxforge bench: check, then measure or estimate --===//
//
// mxforge bench (--preset NAME | --specs FILE | --spec SPEC)... [--m LIST]
//               [--device emu|hip] [--json FILE] [--seed S]
//
// What an MI355X user runs, and what we run without one (docs/cli.md,
// "mxforge bench"). For every spec and every m of --m that the spec's
// bucket serves (m <= M; among specs that differ only in M, the smallest
// that holds m), it first
// checks the kernel's output bytes against the reference on the device
// (random inputs from the seed), then reports its time. On emu that is the
// MI355X model's estimate (docs/estimate.md), labelled, beside the floor
// (the operands once at 8 TB/s) and the bound; a fused GEMM with a rotation
// is also compared with its separated pipeline (rotate_quant, then the GEMM
// with RS=0, each checked and estimated, summed), the comparison seed 000
// made on MI355X. Timing on a HIP device (hipEvent over graph-captured
// launches) is not built yet: --device hip says so.
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/commands.h"

#include "abi/operands.h"
#include "arrays/random_inputs.h"
#include "arrays/reference_runner.h"
#include "spec/buckets.h"
#include "bench/mi355x_model.h"
#include "runtime/emu_device.h"
#include "support/json.h"
#include "support/output_files.h"
#include "tools/mxforge/cli_support.h"
#include "tools/mxforge/kernel_run.h"
#include "tools/mxforge/spec_sources.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

namespace mxf::cli {
namespace {

namespace cl = llvm::cl;

cl::SubCommand benchCommand("bench", "Check every kernel of a preset or spec list against the "
                                     "reference, then time it (emu: the MI355X model's estimate)");
cl::list<std::string> benchPresets("preset", cl::sub(benchCommand), cl::value_desc("NAME"),
                                   cl::desc("A model preset's kernels (mxforge bundle "
                                            "--list-presets)"),
                                   cl::cat(mxforgeCategory()));
cl::list<std::string> benchSpecFiles("specs", cl::sub(benchCommand), cl::value_desc("FILE"),
                                     cl::desc("A spec list (one spec per line)"),
                                     cl::cat(mxforgeCategory()));
cl::list<std::string> benchSpecs("spec", cl::sub(benchCommand), cl::value_desc("SPEC"),
                                 cl::desc("One kernel spec"), cl::cat(mxforgeCategory()));
cl::opt<std::string> benchRows("m", cl::sub(benchCommand), cl::value_desc("LIST"),
                               cl::desc("The rows to run each kernel with (default 1,4,16,32)"),
                               cl::init("1,4,16,32"), cl::cat(mxforgeCategory()));
cl::opt<std::string> benchDevice("device", cl::sub(benchCommand), cl::value_desc("emu|hip"),
                                 cl::desc("emu (default): counts and the MI355X model; hip: a "
                                          "GPU (timing not built yet)"),
                                 cl::init("emu"), cl::cat(mxforgeCategory()));
cl::opt<std::string> benchJson("json", cl::sub(benchCommand), cl::value_desc("FILE"),
                               cl::desc("Also write the rows as a JSON list"),
                               cl::cat(mxforgeCategory()));
cl::opt<std::string> benchSeed("seed", cl::sub(benchCommand), cl::value_desc("S"),
                               cl::desc("The inputs' seed (default: fresh, printed)"),
                               cl::cat(mxforgeCategory()));

/// The most rows of one list: every bucket up to 256.
constexpr size_t kMaxRows = 64;

Result<std::vector<int>> parseRows(const std::string &text) {
  using R = Result<std::vector<int>>;
  std::vector<int> rows;
  llvm::SmallVector<llvm::StringRef, 8> parts;
  llvm::StringRef(text).split(parts, ',');
  for (llvm::StringRef part : parts) {
    int m = 0;
    if (part.trim().getAsInteger(10, m) || m < 1 || m > kLargestMBucket)
      return R::failure("--m '" + text + "': '" + part.str() + "' is not a row count in 1.." +
                        std::to_string(kLargestMBucket));
    rows.push_back(m);
  }
  if (rows.empty() || rows.size() > kMaxRows)
    return R::failure("--m '" + text + "' must list 1 to " + std::to_string(kMaxRows) + " counts");
  return rows;
}

/// A spec without its bucket: specs that differ only in M.
std::string bucketFamily(const KernelSpec &spec) {
  KernelSpec family = spec;
  family.M = 0;
  return printSpec(family);
}

/// One kernel at one m: checked on the device, then estimated.
struct Measured {
  std::string check = "ok"; // or what failed
  bench::Mi355xEstimate estimate;
};

uint64_t requiredBytes(const KernelSpec &spec, int m) {
  uint64_t bytes = 0;
  for (const KernelOperand &operand : kernelOperands(spec, m))
    bytes += operandSpanBytes(operand, operand.rowElements());
  return bytes;
}

class Bench {
public:
  explicit Bench(uint64_t seed) : seed_(seed) {}

  Result<Measured> measure(const KernelSpec &spec, int m) {
    const std::string text = printSpec(spec);
    auto compiled = kernels_.find(text);
    if (compiled == kernels_.end()) {
      Result<CompiledKernel> kernel = obtainKernel(spec, "", "");
      if (!kernel.ok())
        return Result<Measured>::failure(text + ": " + kernel.error());
      compiled = kernels_.emplace(text, std::move(kernel.value())).first;
    }
    Result<arrays::ReferenceRun> reference = arrays::runReference(spec, m, {}, seed_);
    if (!reference.ok())
      return Result<Measured>::failure(text + ": " + reference.error());
    Result<std::unique_ptr<runtime::Device>> device =
        runtime::openEmuDevice(bench::mi355xEmuOptions());
    if (!device.ok())
      return device.status();
    Result<KernelRun> run =
        runAndCompare(*device.value(), compiled->second, spec, m, reference.value());
    if (!run.ok())
      return Result<Measured>::failure(text + ": " + run.error());
    Measured measured;
    if (!run.value().ok())
      measured.check = fmt::format("FAILED: {} bytes differ from the reference, {} bytes past "
                                   "m written",
                                   run.value().mismatches, run.value().untouchedViolations);
    measured.estimate = bench::estimateMi355x(requiredBytes(spec, m), run.value().report);
    return measured;
  }

private:
  uint64_t seed_;
  std::map<std::string, CompiledKernel> kernels_;
};

/// A fused GEMM's separated pipeline, as gemm_bench's unfused pair: rotate_quant
/// with the same rotation and scale rule, then the GEMM without rotation
/// (which quantizes x itself, so the pair is the time of the two launches,
/// not a data flow). None for other kernels.
std::optional<std::pair<KernelSpec, KernelSpec>> separatedPipeline(const KernelSpec &fused) {
  if (fused.op != KernelOp::RotateQuantGemm || fused.RS == 0 ||
      fused.select != RotationSelect::Off)
    return std::nullopt;
  KernelSpec rotation;
  rotation.op = KernelOp::RotateQuant;
  rotation.K = fused.K;
  rotation.RS = fused.RS;
  rotation.rot = fused.rot;
  rotation.rconv = fused.rconv;
  rotation.M = fused.M;
  rotation.fmt = fused.fmt;
  rotation.scale = fused.scale;
  Result<KernelSpec> quant = parseSpec(printSpec(rotation)); // canonical, validated
  KernelSpec plain = fused;
  plain.RS = 0;
  plain.rot = RotationKind::None;
  Result<KernelSpec> gemm = parseSpec(printSpec(plain)); // canonical, validated
  if (!quant.ok() || !gemm.ok())
    return std::nullopt;
  return std::make_pair(quant.value(), gemm.value());
}

struct Row {
  std::string spec;
  int m = 0;
  Measured fused;
  std::optional<double> separatedUs;
  std::string separatedCheck;
};

std::string jsonNumber(double value) { return fmt::format("{:.6g}", value); }

std::string rowsJson(const std::vector<Row> &rows) {
  std::string out = "[\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row &r = rows[i];
    const bench::Mi355xEstimate &e = r.fused.estimate;
    out += fmt::format("  {{\"spec\": {}, \"m\": {}, \"device\": \"emu\", \"check\": {}, "
                       "\"estimate_us\": {}, \"floor_us\": {}, \"bound\": {}",
                       json::quote(r.spec), r.m, json::quote(r.fused.check),
                       jsonNumber(e.estimateUs), jsonNumber(e.floorUs), json::quote(e.bound));
    if (r.separatedUs)
      out += fmt::format(", \"separated_estimate_us\": {}, \"separated_check\": {}, "
                         "\"speedup\": {}",
                         jsonNumber(*r.separatedUs), json::quote(r.separatedCheck),
                         jsonNumber(*r.separatedUs / e.estimateUs));
    out += i + 1 < rows.size() ? "},\n" : "}\n";
  }
  return out + "]\n";
}

int runBench(llvm::raw_ostream &out, llvm::raw_ostream &err) {
  // Take every flag's value now: linking with lld resets all llvm::cl options
  // to their defaults (lld::lldMain calls ResetAllOptionOccurrences), so a
  // flag read after the first compile would read as unset (run_command.cpp
  // says the same). The lists are read below, before the first compile.
  const std::string jsonPath = benchJson, rowsText = benchRows;
  if (benchDevice != "emu" && benchDevice != "hip")
    return reportError(err, "--device '" + benchDevice + "' is not emu or hip", kExitUsage);
  if (benchDevice == "hip")
    return reportError(err,
                       "mxforge bench --device hip: timing on a HIP device (hipEvent over "
                       "graph-captured launches) is not built yet; --device emu checks every "
                       "kernel and prints the MI355X model's estimates",
                       kExitUsage);
  if (benchPresets.empty() && benchSpecFiles.empty() && benchSpecs.empty())
    return reportError(err,
                       "mxforge bench needs --preset NAME, --specs FILE or --spec SPEC, e.g. "
                       "mxforge bench --preset qwen3-8b --m 1",
                       kExitUsage);
  Result<std::vector<int>> rowsWanted = parseRows(rowsText);
  if (!rowsWanted.ok())
    return reportError(err, rowsWanted.error(), kExitUsage);
  uint64_t seed = arrays::freshSeed();
  if (benchSeed.getNumOccurrences()) {
    Result<uint64_t> parsed = parseU64Flag("seed", benchSeed);
    if (!parsed.ok())
      return reportError(err, parsed.error(), kExitUsage);
    seed = parsed.value();
  }
  std::vector<std::string> inputs(benchSpecFiles.begin(), benchSpecFiles.end());
  if (!jsonPath.empty())
    if (Status distinct = checkDistinctOutputs({jsonPath}, {"--json"}, inputs); !distinct.ok())
      return reportError(err, distinct.message());

  bool usage = false;
  Result<std::vector<KernelSpec>> gathered = gatherSpecs(
      {inputs, {benchPresets.begin(), benchPresets.end()}, {benchSpecs.begin(), benchSpecs.end()}},
      err, usage);
  if (!gathered.ok())
    return reportError(err, gathered.error(), usage ? kExitUsage : kExitFailure);
  const std::vector<KernelSpec> &specs = gathered.value();

  out << fmt::format("mxforge bench on emu (seed {}): each kernel's output bytes checked against "
                     "the reference, then the MI355X model's estimate\n{}\n\n",
                     seed, bench::mi355xModelLegend());
  out << "| m | spec | check | estimate us | floor us | x floor | bound | separated us | speedup "
         "|\n|---|---|---|---|---|---|---|---|---|\n";
  Bench bench(seed);
  std::vector<Row> rows;
  bool allOk = true;
  for (const KernelSpec &spec : specs)
    for (int m : rowsWanted.value()) {
      // Each kernel at every m it serves, but an m once per family of
      // buckets (a preset lists every bucket): by the smallest M that holds it.
      if (m > spec.M || std::any_of(specs.begin(), specs.end(), [&](const KernelSpec &other) {
            return other.M >= m && other.M < spec.M && bucketFamily(other) == bucketFamily(spec);
          }))
        continue;
      Row row{printSpec(spec), m, {}, std::nullopt, ""};
      Result<Measured> fused = bench.measure(spec, m);
      if (!fused.ok())
        return reportError(err, fused.error());
      row.fused = fused.value();
      if (auto pipeline = separatedPipeline(spec)) {
        Result<Measured> quant = bench.measure(pipeline->first, m);
        Result<Measured> gemm = bench.measure(pipeline->second, m);
        if (!quant.ok())
          return reportError(err, quant.error());
        if (!gemm.ok())
          return reportError(err, gemm.error());
        row.separatedUs = quant.value().estimate.estimateUs + gemm.value().estimate.estimateUs;
        row.separatedCheck = quant.value().check != "ok" ? quant.value().check : gemm.value().check;
        allOk = allOk && row.separatedCheck == "ok";
      }
      allOk = allOk && row.fused.check == "ok";
      const bench::Mi355xEstimate &e = row.fused.estimate;
      out << fmt::format("| {} | {} | {} | {:.2f} | {:.2f} | {:.1f} | {} | {} | {} |\n", m,
                         row.spec, row.fused.check, e.estimateUs, e.floorUs,
                         e.estimateUs / std::max(e.floorUs, 1e-9), e.bound,
                         row.separatedUs ? fmt::format("{:.2f}", *row.separatedUs) : "-",
                         row.separatedUs ? fmt::format("{:.2f}x", *row.separatedUs / e.estimateUs)
                                         : "-");
      out.flush();
      rows.push_back(std::move(row));
    }
  if (rows.empty())
    return reportError(err, "no kernel serves the rows of --m " + rowsText +
                                " (a kernel runs at every m up to its bucket M)",
                       kExitUsage);
  out << fmt::format("\n{} kernel runs checked: {}. Estimates, not measurements: separated = "
                     "rotate_quant then the GEMM with RS=0, each with the model's fixed time.\n",
                     rows.size(), allOk ? "every output byte equals the reference" : "FAILURES above");
  if (!jsonPath.empty()) {
    const std::string json = rowsJson(rows);
    if (Status s = writeOutputFiles({{"--json", jsonPath, std::vector<uint8_t>(json.begin(),
                                                                              json.end())}},
                                    inputs);
        !s.ok())
      return reportError(err, s.message());
    out << "wrote " << jsonPath << "\n";
  }
  out.flush();
  return allOk ? kExitSuccess : kExitFailure;
}

} // namespace

Subcommand benchSubcommand() { return {&benchCommand, runBench}; }

} // namespace mxf::cli
