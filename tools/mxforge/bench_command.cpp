//===- bench_command.cpp - mxforge bench: check, then measure or estimate --===//
//
// mxforge bench (--preset NAME | --specs FILE | --spec SPEC)... [--m LIST]
//               [--device emu|hip] [--repeats N] [--warmup N] [--flush-l2]
//               [--json FILE] [--plot FILE.png] [--seed S]
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
// made on MI355X. On hip (an AMD GPU) the time is measured the way seed
// 000 measured its kernels: hipEvents around graph-captured launches after
// a warm-up, the median and the 10th and 90th percentiles of --repeats,
// L2 flushed before each repeat or not (--flush-l2), the method printed
// under the table (runtime/hip_timing.h). The separated pipeline's time is
// the sum of its two kernels' medians, each timed on its own.
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge/commands.h"

#include "abi/operands.h"
#include "arrays/random_inputs.h"
#include "arrays/reference_runner.h"
#include "spec/buckets.h"
#include "bench/mi355x_model.h"
#include "bench/peers/aiter_f4gemm.h"
#include "runtime/device_factory.h"
#include "runtime/emu_device.h"
#include "runtime/launch_timing.h"
#include "support/json.h"
#include "support/output_files.h"
#include "tools/mxforge/cli_support.h"
#include "tools/mxforge/kernel_run.h"
#include "tools/mxforge/spec_sources.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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
                                 cl::desc("emu (default): counts and the MI355X model; hip: an "
                                          "AMD GPU, timed with hipEvents"),
                                 cl::init("emu"), cl::cat(mxforgeCategory()));
cl::opt<std::string> benchRepeats("repeats", cl::sub(benchCommand), cl::value_desc("N"),
                                  cl::desc("hip: timed repeats per kernel (default 50)"),
                                  cl::cat(mxforgeCategory()));
cl::opt<std::string> benchWarmup("warmup", cl::sub(benchCommand), cl::value_desc("N"),
                                 cl::desc("hip: warm-up graph launches per kernel (default 10)"),
                                 cl::cat(mxforgeCategory()));
cl::opt<bool> benchFlushL2("flush-l2", cl::sub(benchCommand),
                           cl::desc("hip: flush L2 before each repeat (one pass per graph)"),
                           cl::cat(mxforgeCategory()));
cl::opt<std::string> benchJson("json", cl::sub(benchCommand), cl::value_desc("FILE"),
                               cl::desc("Also write the rows as a JSON list"),
                               cl::cat(mxforgeCategory()));
cl::opt<std::string> benchPlot("plot", cl::sub(benchCommand), cl::value_desc("FILE.png"),
                               cl::desc("Also draw the rows against their floor (python3 with "
                                        "matplotlib)"),
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

/// One kernel at one m: checked on the device, then estimated (emu) or
/// timed (hip).
struct Measured {
  std::string check = "ok"; // or what failed
  bench::Mi355xEstimate estimate;
  std::optional<runtime::LaunchTiming> timing;
  /// The figure a row compares: the estimate on emu, the median on hip.
  double us() const { return timing ? timing->medianUs : estimate.estimateUs; }
};

class Bench {
public:
  /// `timing` set: the device times every checked kernel (hip).
  Bench(runtime::Device &device, uint64_t seed, std::optional<runtime::TimingOptions> timing)
      : device_(device), seed_(seed), timing_(std::move(timing)) {}

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
    Measured measured;
    WhileLoaded time;
    if (timing_)
      time = [&](runtime::Device &device, const runtime::Kernel &kernel,
                 const runtime::LaunchConfig &config, const runtime::KernelArgs &args) -> Status {
        Result<runtime::LaunchTiming> timed = device.timeLaunches(
            [&](void *stream) {
              runtime::LaunchConfig onStream = config;
              onStream.stream = stream;
              return device.launch(kernel, onStream, args);
            },
            *timing_);
        if (!timed.ok())
          return Status::failure("timing: " + timed.error());
        measured.timing = timed.value();
        return Status::success();
      };
    Result<KernelRun> run =
        runAndCompare(device_, compiled->second, spec, m, reference.value(), time);
    if (!run.ok())
      return Result<Measured>::failure(text + ": " + run.error());
    if (!run.value().ok())
      measured.check = fmt::format("FAILED: {} bytes differ from the reference, {} bytes past "
                                   "m written",
                                   run.value().mismatches, run.value().untouchedViolations);
    measured.estimate = bench::estimateMi355x(kernelRequiredBytes(spec, m), run.value().report);
    return measured;
  }

private:
  runtime::Device &device_;
  uint64_t seed_;
  std::optional<runtime::TimingOptions> timing_;
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

/// A peer at the same shape, through the same emulator and model (emu
/// only): AITER's hand-written f4gemm (bench/peers; no rotation, x already
/// quantized) for an A4W4 GEMM whose N and K its 32x128 tile divides. None
/// where the shape does not fit or the code objects are not beside this
/// build (a copy of the binary elsewhere).
struct Peer {
  std::string name;
  double estimateUs = 0;
};

std::optional<Peer> aiterPeer(const KernelSpec &spec, int m) {
  if (spec.op != KernelOp::RotateQuantGemm || spec.fmt != ElemFormat::E2M1 || spec.N % 128 != 0 ||
      spec.K % 256 != 0)
    return std::nullopt;
  const bench::F4GemmRow row{m, spec.N, spec.K, "32x128", 0};
  Result<bench::CountedF4Gemm> counted = bench::countF4Gemm(
      row, MXFORGE_PEERS_DIR "/aiter_f4gemm", bench::mi355xTimelineCosts());
  if (!counted.ok())
    return std::nullopt;
  return Peer{"AITER f4gemm 32x128",
              bench::estimateMi355x(counted.value().requiredBytes, counted.value().report)
                  .estimateUs};
}

struct Row {
  std::string spec;
  int m = 0;
  std::optional<Peer> peer;
  Measured fused;
  std::optional<double> separatedUs; // the estimate (emu) or the sum of medians (hip)
  std::string separatedCheck;
};

std::string jsonNumber(double value) { return fmt::format("{:.6g}", value); }

std::string rowsJson(const std::vector<Row> &rows, bool hip) {
  std::string out = "[\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row &r = rows[i];
    out += fmt::format("  {{\"spec\": {}, \"m\": {}, \"device\": \"{}\", \"check\": {}",
                       json::quote(r.spec), r.m, hip ? "hip" : "emu", json::quote(r.fused.check));
    if (hip) {
      const runtime::LaunchTiming &t = *r.fused.timing;
      out += fmt::format(", \"median_us\": {}, \"p10_us\": {}, \"p90_us\": {}, "
                         "\"repeats\": {}, \"l2_flushed\": {}, \"floor_us\": {}",
                         jsonNumber(t.medianUs), jsonNumber(t.p10Us), jsonNumber(t.p90Us),
                         t.usPerPass.size(), t.flushedL2 ? "true" : "false",
                         jsonNumber(r.fused.estimate.floorUs));
    } else {
      const bench::Mi355xEstimate &e = r.fused.estimate;
      out += fmt::format(", \"estimate_us\": {}, \"floor_us\": {}, \"bound\": {}",
                         jsonNumber(e.estimateUs), jsonNumber(e.floorUs), json::quote(e.bound));
    }
    if (r.separatedUs)
      out += fmt::format(", \"separated_{}\": {}, \"separated_check\": {}, \"speedup\": {}",
                         hip ? "median_us" : "estimate_us", jsonNumber(*r.separatedUs),
                         json::quote(r.separatedCheck), jsonNumber(*r.separatedUs / r.fused.us()));
    if (r.peer)
      out += fmt::format(", \"peer\": {}, \"peer_estimate_us\": {}", json::quote(r.peer->name),
                         jsonNumber(r.peer->estimateUs));
    out += i + 1 < rows.size() ? "},\n" : "}\n";
  }
  return out + "]\n";
}

/// --repeats and --warmup: a count in [min, 100000].
Result<int> parseCount(const char *flag, const std::string &text, int fallback, int min) {
  if (text.empty())
    return fallback;
  int value = 0;
  if (llvm::StringRef(text).trim().getAsInteger(10, value) || value < min || value > 100000)
    return Result<int>::failure(fmt::format("--{} '{}' is not a count in {}..100000", flag, text,
                                            min));
  return value;
}

/// Draws `json` (the rows) into `pngPath` with python/mxforge/bench_plot.py:
/// $MXFORGE_PYTHON (default /usr/bin/python3, else python3 on PATH) runs the script found under
/// $MXFORGE_PYTHON_DIR (default this source tree's python/). The picture is
/// written beside the target and renamed onto it, so that a failed drawing
/// leaves an earlier file whole.
Status drawPlot(const std::string &json, const std::string &pngPath) {
  const char *pythonDir = std::getenv("MXFORGE_PYTHON_DIR");
  const std::string script =
      std::string(pythonDir && *pythonDir ? pythonDir : MXFORGE_PYTHON_DIR) +
      "/mxforge/bench_plot.py";
  if (::access(script.c_str(), R_OK) != 0)
    return Status::failure("--plot: cannot read " + script +
                           " (set MXFORGE_PYTHON_DIR to the python/ folder of mxforge's sources)");
  const char *tmp = std::getenv("TMPDIR");
  std::string rowsPath = std::string(tmp && *tmp ? tmp : "/tmp") + "/mxforge-bench-XXXXXX.json";
  const int fd = ::mkstemps(rowsPath.data(), 5);
  if (fd < 0)
    return Status::failure("--plot: cannot create a temporary file for the rows: " +
                           std::string(std::strerror(errno)));
  const bool written = ::write(fd, json.data(), json.size()) == ssize_t(json.size());
  ::close(fd);
  const std::string partial = pngPath + ".partial-" + std::to_string(::getpid()) + ".png";
  auto cleanUp = [&] {
    ::unlink(rowsPath.c_str());
    ::unlink(partial.c_str());
  };
  if (!written) {
    cleanUp();
    return Status::failure("--plot: cannot write the rows to " + rowsPath);
  }
  // Debian's python3 by default: scripts/setup.sh installs its matplotlib
  // (another python3 earlier on PATH may have none).
  const char *python = std::getenv("MXFORGE_PYTHON");
  const std::string interpreter = python && *python                         ? python
                                  : ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3"
                                                                            : "python3";
  std::vector<char *> argv = {const_cast<char *>(interpreter.c_str()),
                              const_cast<char *>(script.c_str()),
                              const_cast<char *>(rowsPath.c_str()),
                              const_cast<char *>(partial.c_str()), nullptr};
  pid_t pid = 0;
  if (int e = ::posix_spawnp(&pid, interpreter.c_str(), nullptr, nullptr, argv.data(), environ);
      e != 0) {
    cleanUp();
    return Status::failure("--plot: cannot run " + interpreter + ": " + std::strerror(e) +
                           " (set MXFORGE_PYTHON to a python3 with matplotlib)");
  }
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127) {
    // glibc's posix_spawnp reports an interpreter it cannot exec this way.
    cleanUp();
    return Status::failure("--plot: cannot run " + interpreter +
                           ": not found or not executable (set MXFORGE_PYTHON to a python3 with "
                           "matplotlib)");
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    cleanUp();
    return Status::failure("--plot: " + interpreter + " " + script +
                           " failed (its message is above; matplotlib comes with Debian's "
                           "python3-matplotlib)");
  }
  if (::rename(partial.c_str(), pngPath.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    cleanUp();
    return Status::failure("--plot: cannot write " + pngPath + ": " + why);
  }
  ::unlink(rowsPath.c_str());
  return Status::success();
}

int runBench(llvm::raw_ostream &out, llvm::raw_ostream &err) {
  // Take every flag's value now: linking with lld resets all llvm::cl options
  // to their defaults (lld::lldMain calls ResetAllOptionOccurrences), so a
  // flag read after the first compile would read as unset (run_command.cpp
  // says the same). The lists are read below, before the first compile.
  const std::string jsonPath = benchJson, rowsText = benchRows, deviceName = benchDevice,
                    plotPath = benchPlot;
  if (deviceName != "emu" && deviceName != "hip")
    return reportError(err, "--device '" + deviceName + "' is not emu or hip", kExitUsage);
  const bool hip = deviceName == "hip";
  if (!hip && (!benchRepeats.empty() || !benchWarmup.empty() || benchFlushL2))
    return reportError(err,
                       "--repeats, --warmup and --flush-l2 time launches on a GPU: they need "
                       "--device hip (emu prints the MI355X model's estimate)",
                       kExitUsage);
  runtime::TimingOptions timing;
  Result<int> repeats = parseCount("repeats", benchRepeats, timing.repeats, 1);
  if (!repeats.ok())
    return reportError(err, repeats.error(), kExitUsage);
  Result<int> warmup = parseCount("warmup", benchWarmup, timing.warmup, 0);
  if (!warmup.ok())
    return reportError(err, warmup.error(), kExitUsage);
  timing.repeats = repeats.value();
  timing.warmup = warmup.value();
  timing.flushL2 = benchFlushL2;
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
  {
    std::vector<std::string> outputs, flags;
    for (auto [path, flag] : {std::pair{jsonPath, "--json"}, {plotPath, "--plot"}})
      if (!path.empty()) {
        outputs.push_back(path);
        flags.push_back(flag);
      }
    if (Status distinct = checkDistinctOutputs(outputs, flags, inputs); !distinct.ok())
      return reportError(err, distinct.message());
  }

  bool usage = false;
  Result<std::vector<KernelSpec>> gathered = gatherSpecs(
      {inputs, {benchPresets.begin(), benchPresets.end()}, {benchSpecs.begin(), benchSpecs.end()}},
      err, usage);
  if (!gathered.ok())
    return reportError(err, gathered.error(), usage ? kExitUsage : kExitFailure);
  const std::vector<KernelSpec> &specs = gathered.value();

  Result<std::unique_ptr<runtime::Device>> device =
      hip ? runtime::openDevice("hip") : runtime::openEmuDevice(bench::mi355xEmuOptions());
  if (!device.ok())
    return reportError(err, "mxforge bench --device " + deviceName + ": " + device.error());
  if (hip) {
    out << fmt::format("mxforge bench on {} (seed {}): each kernel's output bytes checked against "
                       "the reference, then timed (microseconds per launch, measured)\n\n",
                       device.value()->description(), seed);
    out << "| m | spec | check | median us | p10 us | p90 us | separated us | speedup "
           "|\n|---|---|---|---|---|---|---|---|\n";
  } else {
    out << fmt::format("mxforge bench on emu (seed {}): each kernel's output bytes checked "
                       "against the reference, then the MI355X model's estimate\n{}\n\n",
                       seed, bench::mi355xModelLegend());
    out << "| m | spec | check | estimate us | floor us | x floor | bound | separated us | speedup "
           "| peer us |\n|---|---|---|---|---|---|---|---|---|---|\n";
  }
  Bench bench(*device.value(), seed,
              hip ? std::optional<runtime::TimingOptions>(timing) : std::nullopt);
  std::string method;
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
      Row row{printSpec(spec), m, hip ? std::nullopt : aiterPeer(spec, m), {}, std::nullopt, ""};
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
        row.separatedUs = quant.value().us() + gemm.value().us();
        row.separatedCheck = quant.value().check != "ok" ? quant.value().check : gemm.value().check;
        allOk = allOk && row.separatedCheck == "ok";
      }
      allOk = allOk && row.fused.check == "ok";
      const std::string separated =
          row.separatedUs ? fmt::format("{:.2f} | {:.2f}x", *row.separatedUs,
                                        *row.separatedUs / row.fused.us())
                          : "- | -";
      if (hip) {
        const runtime::LaunchTiming &t = *row.fused.timing;
        method = t.method;
        out << fmt::format("| {} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {} |\n", m, row.spec,
                           row.fused.check, t.medianUs, t.p10Us, t.p90Us, separated);
      } else {
        const bench::Mi355xEstimate &e = row.fused.estimate;
        out << fmt::format("| {} | {} | {} | {:.2f} | {:.2f} | {:.1f} | {} | {} | {} |\n", m,
                           row.spec, row.fused.check, e.estimateUs, e.floorUs,
                           e.estimateUs / std::max(e.floorUs, 1e-9), e.bound, separated,
                           row.peer ? fmt::format("{:.2f}", row.peer->estimateUs) : "-");
      }
      out.flush();
      rows.push_back(std::move(row));
    }
  if (rows.empty())
    return reportError(err, "no kernel serves the rows of --m " + rowsText +
                                " (a kernel runs at every m up to its bucket M)",
                       kExitUsage);
  if (hip)
    out << fmt::format("\n{} kernel runs checked: {}. Measured: {}. separated = rotate_quant "
                       "then the GEMM with RS=0, the sum of their medians, each timed on its "
                       "own.\n",
                       rows.size(),
                       allOk ? "every output byte equals the reference" : "FAILURES above",
                       method);
  else
    out << fmt::format("\n{} kernel runs checked: {}. Estimates, not measurements: separated = "
                       "rotate_quant then the GEMM with RS=0, each with the model's fixed "
                       "time; peer = AITER's f4gemm 32x128 at the same shape (bench/peers: no "
                       "rotation, x already quantized), where its tile divides N and K.\n",
                       rows.size(),
                       allOk ? "every output byte equals the reference" : "FAILURES above");
  const std::string json = rowsJson(rows, hip); // --json's file and --plot's input
  if (!jsonPath.empty()) {
    if (Status s = writeOutputFiles({{"--json", jsonPath, std::vector<uint8_t>(json.begin(),
                                                                              json.end())}},
                                    inputs);
        !s.ok())
      return reportError(err, s.message());
    out << "wrote " << jsonPath << "\n";
  }
  if (!plotPath.empty()) {
    out.flush();
    if (Status drawn = drawPlot(json, plotPath); !drawn.ok())
      return reportError(err, drawn.message());
    out << "wrote " << plotPath << "\n";
  }
  out.flush();
  return allOk ? kExitSuccess : kExitFailure;
}

} // namespace

Subcommand benchSubcommand() { return {&benchCommand, runBench}; }

} // namespace mxf::cli
