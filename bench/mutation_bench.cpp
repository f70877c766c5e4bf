//===- mutation_bench.cpp - Mutation score of the e2e checks (issue 29) ---===//
//
// How much of a wrong kernel do our e2e checks catch? One small kernel per
// family, compiled in process as the e2e suite compiles it, is mutated one
// instruction at a time (bench/mutation/mutator.h: register bits, immediates,
// opcodes, modifier bits, every s_waitcnt and every s_barrier removed), and
// each mutant goes through its family's e2e check (bench/mutation/
// family_checks.h) in a child process with a low instruction limit. A mutant
// is caught when any run fails in any way; a survivor is equivalent only when
// bench/mutation/equivalence.h proves it, and missed otherwise. Missed
// survivors are listed with their instruction before and after, so that each
// can become a test or a check. Not a test: it prints a table and asserts
// nothing (docs/verification.md, "Mutation score").
//
//   mutation_bench [--per-class N] [--seed S] [--threads T] [--family NAME]...
//                  [--spec SPEC]... [--timeout SECONDS] [--label TEXT] [--json FILE]
//
// --spec replaces the kernel of its op's family (e.g. another E for the MoE).
//
//===----------------------------------------------------------------------===//

#include "bench/bench_support.h"
#include "bench/mutation/coverage.h"
#include "bench/mutation/argued.h"
#include "bench/mutation/equivalence.h"
#include "bench/mutation/family_checks.h"
#include "bench/mutation/isolated.h"
#include "bench/mutation/mutator.h"
#include "bench/mutation/report.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace mxf::mutation;

struct Target {
  Family family;
  const char *spec;
};

/// The kernels of issue 29's probe, at M=256: the largest bucket of tiling
/// class 256, whose one code object serves every bucket from 16 up, so
/// that the checks can run the rows that code meets in use (the MoE's
/// counting loop only turns a second time past m * topk = 256). The MoE
/// runs with E=256 rather than the probe's E=16: at E <= 64 every expert's
/// counter lies in the first wave, so the sorter's prefix scan needs none of
/// the waits and barriers between its waves, and removing them is
/// equivalent at that shape (docs/verification.md).
constexpr Target kTargets[] = {
    {Family::RotateQuant, "rotate_quant:K=1024,RS=64,M=256"},
    {Family::Moe, "rotate_quant_moe:K=512,RS=64,topk=4,E=256,M=256"},
    {Family::Gemm, "rotate_quant_gemm:K=512,N=256,RS=64,M=256"},
    {Family::QuantWeight, "quant_weight:K=512,N=256,RS=64"},
};

struct Options {
  size_t perClass = 60;
  uint64_t seed = 29;
  unsigned threads = 2;
  double timeoutSeconds = 120;
  uint64_t limitFactor = 20;
  std::string label, json;
  std::string argued = MXFORGE_ARGUED_SURVIVORS; // bench/mutation/argued_survivors.tsv
  std::vector<Family> families;
  std::vector<Target> targets{std::begin(kTargets), std::end(kTargets)};
  std::vector<std::string> specTexts; // kept alive for targets' pointers
};

bool parseOptions(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : nullptr;
    auto take = [&]() {
      ++i;
      return value;
    };
    if (arg == "--per-class" && value)
      o.perClass = std::strtoull(take(), nullptr, 10);
    else if (arg == "--seed" && value)
      o.seed = std::strtoull(take(), nullptr, 0);
    else if (arg == "--threads" && value)
      o.threads = unsigned(std::strtoul(take(), nullptr, 10));
    else if (arg == "--timeout" && value)
      o.timeoutSeconds = std::strtod(take(), nullptr);
    else if (arg == "--label" && value)
      o.label = take();
    else if (arg == "--json" && value)
      o.json = take();
    else if (arg == "--argued" && value)
      o.argued = take(); // "" for none
    else if (arg == "--spec" && value) {
      // Another kernel for the family of the spec's op (its text before ':').
      o.specTexts.push_back(take());
      const std::string op = o.specTexts.back().substr(0, o.specTexts.back().find(':'));
      if (std::none_of(o.targets.begin(), o.targets.end(),
                       [&](const Target &t) { return op == familyName(t.family); })) {
        fmt::print(stderr, "--spec: unknown op '{}'\n", op);
        return false;
      }
    } else if (arg == "--family" && value) {
      const std::string name = take();
      bool found = false;
      for (const Target &t : kTargets)
        if (name == familyName(t.family)) {
          o.families.push_back(t.family);
          found = true;
        }
      if (!found) {
        fmt::print(stderr, "unknown family '{}'\n", name);
        return false;
      }
    } else {
      fmt::print(stderr, "usage: mutation_bench [--per-class N] [--seed S] [--threads T] "
                         "[--family NAME]... [--spec SPEC]... [--timeout SECONDS] [--label TEXT] "
                         "[--json FILE] [--argued FILE]\n");
      return false;
    }
  }
  if (o.families.empty())
    for (const Target &t : kTargets)
      o.families.push_back(t.family);
  for (const std::string &text : o.specTexts)
    for (Target &t : o.targets)
      if (text.substr(0, text.find(':')) == familyName(t.family))
        t.spec = text.c_str();
  return true;
}

/// The unmutated kernel must pass, and its runs give the instruction limit:
/// limitFactor times the largest per-wave average, raised until the
/// unmutated kernel passes under it (a wave may run more than the average).
mxf::Result<RunFacts> baseline(const FamilyCheck &check, const Options &o, uint64_t &limit) {
  mxf::runtime::EmuDeviceOptions device;
  device.threads = o.threads;
  CheckResult first = runIsolated(
      [&] {
        CheckResult r;
        r.verdict = check.check(check.code().hsaco, device, &r.facts);
        return r;
      },
      o.timeoutSeconds * 10);
  if (first.verdict.caught())
    return mxf::Status::failure(std::string("the unmutated kernel fails its check (") +
                                outcomeName(first.verdict.outcome) + "): " + first.verdict.detail);
  limit = std::max<uint64_t>(1000, o.limitFactor * first.facts.maxInstructionsPerWave);
  for (int attempt = 0; attempt < 8; ++attempt, limit *= 2) {
    device.maxInstructionsPerWave = limit;
    CheckResult r = runIsolated(
        [&] {
          return CheckResult{check.check(check.code().hsaco, device), {}};
        },
        o.timeoutSeconds * 10);
    if (!r.verdict.caught())
      return first.facts;
    if (r.verdict.outcome != Outcome::InstructionLimit)
      return mxf::Status::failure("the unmutated kernel fails under the limit: " +
                                  r.verdict.detail);
  }
  return mxf::Status::failure("no instruction limit lets the unmutated kernel pass");
}

mxf::Result<FamilyResult> runFamily(const Target &target, const Options &o,
                                    const ArguedSurvivors &argued) {
  const auto start = mxf::bench::Clock::now();
  FamilyResult out;
  out.family = target.family;
  mxf::Result<std::unique_ptr<FamilyCheck>> made =
      makeFamilyCheck(target.family, target.spec, o.seed);
  if (!made.ok())
    return made.status();
  const FamilyCheck &check = *made.value();
  out.spec = mxf::printSpec(check.spec());
  out.kernel = check.code().kernel.name;
  out.plan = check.plan();
  mxf::Result<RunFacts> facts = baseline(check, o, out.instructionLimit);
  if (!facts.ok())
    return facts.status();
  out.facts = facts.value();

  mxf::Result<KernelCode> code = readKernelCode(check.code().hsaco, out.kernel);
  if (!code.ok())
    return code.status();
  out.instructions = code.value().instructions.size();
  mxf::Result<std::unique_ptr<Mutator>> mutator = Mutator::create(code.value());
  if (!mutator.ok())
    return mutator.status();
  const EquivalenceProver prover(code.value(), out.facts.maxWavesPerWorkgroup);
  mxf::runtime::EmuDeviceOptions device;
  device.threads = o.threads;
  device.maxInstructionsPerWave = out.instructionLimit;
  const Coverage coverage =
      measureCoverage(code.value(), buildCfg(code.value()), check, device, o.timeoutSeconds);
  out.blocks = coverage.blocks;
  out.blocksNeverRun = coverage.blocksNeverRun;
  out.instructionsNeverRun = coverage.instructionsNeverRun;

  std::vector<Mutation> mutants;
  for (size_t c = 0; c < kNumClasses; ++c) {
    const auto cls = MutationClass(c);
    std::vector<Mutation> some;
    if (cls == MutationClass::Waitcnt || cls == MutationClass::Barrier) {
      some = mutator.value()->everyRemoval(cls);
    } else {
      // One stream per (family, class), so that --family and --per-class
      // do not change the other classes' samples.
      std::mt19937_64 rng(o.seed ^ (uint64_t(target.family) << 8 | c) * 0x9E3779B97F4A7C15ull);
      some = mutator.value()->sample(cls, o.perClass, rng, out.classes[c].sampling);
    }
    mutants.insert(mutants.end(), some.begin(), some.end());
  }

  for (size_t i = 0; i < mutants.size(); ++i) {
    const Mutation &m = mutants[i];
    const std::vector<uint8_t> hsaco = applyMutation(code.value(), m);
    CheckResult r = runIsolated(
        [&] {
          return CheckResult{check.check(hsaco, device), {}};
        },
        o.timeoutSeconds);
    MutantResult result;
    result.mutation = m;
    result.instruction = code.value().instructions[m.index];
    result.verdict = r.verdict;
    result.executed = coverage.executed[m.index];
    if (!r.verdict.caught())
      result.equivalence = prover.prove(m);
    const auto listed = argued.kindOf.find(
        {familyName(target.family), result.instruction.address, result.instruction.text,
         m.mutatedText});
    if (listed != argued.kindOf.end()) {
      if (r.verdict.caught() || !result.equivalence.empty())
        result.staleArgument = true; // caught or proved: the entry is not needed
      else
        result.argued = listed->second;
    }
    out.add(std::move(result));
    if ((i + 1) % 25 == 0 || i + 1 == mutants.size())
      fmt::print(stderr, "  {}: {}/{} mutants, {:.0f} s\n", familyName(target.family), i + 1,
                 mutants.size(), mxf::bench::millisSince(start) / 1000);
  }
  out.seconds = mxf::bench::millisSince(start) / 1000;
  return out;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  if (!parseOptions(argc, argv, o))
    return 2;
  const auto start = mxf::bench::Clock::now();
  Report report;
  report.seed = o.seed;
  report.perClass = o.perClass;
  report.threads = o.threads;
  report.limitFactor = o.limitFactor;
  report.label = o.label;
  ArguedSurvivors argued;
  if (!o.argued.empty()) {
    mxf::Result<ArguedSurvivors> loaded = loadArguedSurvivors(o.argued);
    if (!loaded.ok()) {
      fmt::print(stderr, "error: {}\n", loaded.error());
      return 1;
    }
    argued = std::move(loaded.value());
  }
  report.arguedPath = argued.path;
  fmt::print("mutation_bench{}: seed {} (--seed), {} sampled mutants per class a-d (--per-class), "
             "every s_waitcnt and s_barrier; emulator threads {}; instruction limit {}x the "
             "unmutated per-wave average\n",
             o.label.empty() ? "" : " [" + o.label + "]", o.seed, o.perClass, o.threads,
             o.limitFactor);
  for (Family family : o.families)
    for (const Target &target : o.targets)
      if (target.family == family) {
        fmt::print(stderr, "{}: {}\n", familyName(family), target.spec);
        mxf::Result<FamilyResult> result = runFamily(target, o, argued);
        if (!result.ok()) {
          fmt::print(stderr, "error: {}: {}\n", familyName(family), result.error());
          return 1;
        }
        report.families.push_back(std::move(result.value()));
      }
  report.seconds = mxf::bench::millisSince(start) / 1000;
  printReport(report);
  if (!o.json.empty()) {
    if (mxf::Status written = writeJson(report, o.json); !written.ok()) {
      fmt::print(stderr, "error: {}\n", written.message());
      return 1;
    }
    fmt::print("wrote {}\n", o.json);
  }
  return 0;
}
