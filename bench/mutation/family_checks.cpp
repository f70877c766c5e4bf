//===- family_checks.cpp - Each family's e2e check, on any code object ----===//
//
// Inputs and references are drawn once per family; a check only launches and
// compares, so that a mutant costs its emulation and nothing else.
//
//===----------------------------------------------------------------------===//

#include "bench/mutation/family_checks.h"

#include "compiler/compiler.h"
#include "numerics/packing.h"
#include "numerics/reference.h"
#include "tests/e2e/e2e_case.h"
#include "tests/e2e/e2e_runner.h"
#include "tests/e2e/gemm_case.h"
#include "tests/e2e/moe_case.h"
#include "tests/e2e/weight_case.h"

#include <fmt/format.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

namespace mxf::mutation {

const char *familyName(Family family) {
  switch (family) {
  case Family::RotateQuant:
    return "rotate_quant";
  case Family::Moe:
    return "rotate_quant_moe";
  case Family::Gemm:
    return "rotate_quant_gemm";
  case Family::QuantWeight:
    return "quant_weight";
  }
  return "?";
}

namespace {

void record(RunFacts *facts, const runtime::LaunchReport &report) {
  if (!facts)
    return;
  const uint64_t waves = std::max<uint64_t>(1, report.get("waves"));
  const uint64_t workgroups = std::max<uint64_t>(1, report.get("workgroups"));
  facts->maxInstructionsPerWave =
      std::max(facts->maxInstructionsPerWave, report.get("instructions") / waves);
  const uint32_t perGroup = uint32_t(waves / workgroups);
  facts->minWavesPerWorkgroup = std::min(facts->minWavesPerWorkgroup, perGroup);
  facts->maxWavesPerWorkgroup = std::max(facts->maxWavesPerWorkgroup, perGroup);
  ++facts->launches;
}

Verdict failed(Outcome outcome, std::string detail) { return {outcome, std::move(detail)}; }

Verdict launchFailed(const std::string &where, const std::string &error) {
  return failed(classifyLaunchError(error), where + ": " + error);
}

Result<CodeObject> compile(const KernelSpec &spec) { return compileSpec(spec, CompileOptions()); }

/// The code object as compiled, with other bytes.
CodeObject withBytes(const CodeObject &code, const std::vector<uint8_t> &hsaco) {
  CodeObject out = code;
  out.hsaco = hsaco;
  return out;
}

struct Order {
  emu::WorkgroupOrder order;
  const char *name;
  uint8_t poison;
};

/// The two orders of the GEMM suite; the MoE and weight suites run these
/// and the reverse order.
constexpr Order kOrders[] = {{emu::WorkgroupOrder::Forward, "forward", 0xA5},
                             {emu::WorkgroupOrder::Shuffled, "shuffled", 0xC3}};

/// m values: a few rows in one row tile, three row tiles of 16 (the last
/// ragged), so that the row-tile workgroup id and the offsets it scales are
/// not always 0, and the full bucket (256, tiling class 256's largest),
/// where the MoE's slot loops turn several times and the last row tile is
/// reached.
constexpr int kSmallM = 3, kLargeM = 40;
std::vector<int> rowCounts(const KernelSpec &spec) {
  std::vector<int> counts = {kSmallM, kLargeM};
  if (spec.M > kLargeM)
    counts.push_back(spec.M);
  return counts;
}
std::string rowCountText(const KernelSpec &spec) {
  std::string text;
  for (int m : rowCounts(spec))
    text += (text.empty() ? "" : ",") + std::to_string(m);
  return text;
}

uint64_t seedOf(uint64_t seed, int index) {
  return seed ^ (0x9E3779B97F4A7C15ull * uint64_t(index + 1));
}

//===--- rotate_quant: e2e_case's runAndCheck ----------------------------===//

class RotateQuantCheck : public FamilyCheck {
public:
  RotateQuantCheck(KernelSpec spec, CodeObject code, e2e::LoadedKernel base)
      : FamilyCheck(Family::RotateQuant, std::move(spec), std::move(code)), base_(std::move(base)) {
  }

  struct Run {
    e2e::RunInputs inputs;
    e2e::RunContext context;
  };
  std::vector<Run> runs;

  std::string plan() const override {
    return fmt::format("m={} x 2 seeds (runAndCheck: bytes, untouched rows, counters)",
                       rowCountText(spec_));
  }

  Verdict check(const std::vector<uint8_t> &hsaco, const runtime::EmuDeviceOptions &device,
                RunFacts *facts) const override {
    Result<std::unique_ptr<runtime::Device>> opened = runtime::openEmuDevice(device);
    if (!opened.ok())
      return failed(Outcome::LaunchError, opened.error());
    runtime::Device &dev = *opened.value();
    e2e::LoadedKernel kernel = base_;
    kernel.code.hsaco = hsaco;
    Result<runtime::Module> module = dev.loadCodeObject(hsaco, {kernel.code.kernel});
    if (!module.ok())
      return launchFailed("load", module.error());
    Result<runtime::Kernel> handle = dev.getKernel(module.value(), kernel.code.kernel.name);
    if (!handle.ok())
      return launchFailed("load", handle.error());
    kernel.kernel = handle.value();
    for (const Run &run : runs) {
      // runAndCheck reports through gtest's assertions, as in the suite:
      // intercepted here, the first failure is the verdict.
      ::testing::TestPartResultArray failures;
      e2e::RunOutputs out;
      {
        ::testing::ScopedFakeTestPartResultReporter reporter(
            ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
        out = e2e::runAndCheck(dev, kernel, run.inputs, run.context);
      }
      const std::string where = fmt::format("m={} seed={}", run.inputs.m, run.context.seed);
      if (failures.size() > 0) {
        // ADD_FAILURE's message starts with "Failed\n"; the suite's own
        // text follows.
        std::string message = failures.GetTestPartResult(0).message();
        if (message.rfind("Failed\n", 0) == 0)
          message.erase(0, 7);
        const std::string text = where + ": " + message.substr(0, message.find("\n  replay:"));
        if (message.rfind("launch failed: ", 0) == 0)
          return failed(classifyLaunchError(message), text);
        if (message.find("differs from numerics") != std::string::npos ||
            message.find("stride gaps") != std::string::npos)
          return failed(Outcome::WrongBytes, text);
        return failed(Outcome::Counters, text);
      }
      record(facts, out.report);
    }
    return {};
  }

private:
  e2e::LoadedKernel base_;
};

//===--- rotate_quant_moe: launchMoe + compareMoe ------------------------===//

class MoeCheck : public FamilyCheck {
public:
  using FamilyCheck::FamilyCheck;
  struct Run {
    e2e::MoeInputs inputs;
    MoeQuantized expected;
    uint64_t seed = 0;
  };
  std::vector<Run> runs;

  std::string plan() const override {
    return fmt::format("m={} x 2 seeds x workgroups forward,shuffled (compareMoe: q, s, "
                       "sorting arrays, poison)",
                       rowCountText(spec_));
  }

  Verdict check(const std::vector<uint8_t> &hsaco, const runtime::EmuDeviceOptions &device,
                RunFacts *facts) const override {
    const CodeObject code = withBytes(code_, hsaco);
    for (const Run &run : runs)
      for (const Order &order : kOrders) {
        const std::string where =
            fmt::format("{} m={} seed={} {}", e2e::moeRoutingName(run.inputs.routing), run.inputs.m,
                        run.seed, order.name);
        Result<e2e::MoeRun> launched = e2e::launchMoe(code, spec_, run.inputs, order.order,
                                                      run.seed, order.poison, {}, device);
        if (!launched.ok())
          return launchFailed(where, launched.error());
        const std::string mismatches =
            e2e::compareMoe(spec_, run.inputs, run.expected, launched.value().launch, order.poison);
        if (!mismatches.empty())
          return failed(Outcome::WrongBytes, where + mismatches);
        record(facts, launched.value().launch.report);
      }
    return {};
  }
};

//===--- rotate_quant_gemm: launchGemm + compareGemmY --------------------===//

class GemmCheck : public FamilyCheck {
public:
  using FamilyCheck::FamilyCheck;
  struct Run {
    e2e::ColumnSample sample;
    e2e::GemmInputs inputs;
    std::vector<uint16_t> y; // the reference
    uint64_t seed = 0;
  };
  std::vector<Run> runs;

  std::string plan() const override {
    return fmt::format("m={} x 2 seeds, m={} of scale_boundaries rows through probe weights "
                       "(y = the activation codes), x workgroups forward,shuffled (compareGemmY: "
                       "y, stride gaps)",
                       rowCountText(spec_), spec_.M);
  }

  Verdict check(const std::vector<uint8_t> &hsaco, const runtime::EmuDeviceOptions &device,
                RunFacts *facts) const override {
    const CodeObject code = withBytes(code_, hsaco);
    for (const Run &run : runs)
      for (const Order &order : kOrders) {
        const std::string where =
            fmt::format("m={} seed={} {}", run.inputs.m, run.seed, order.name);
        Result<runtime::SpecLaunch> launched = e2e::launchGemm(
            code, spec_, run.inputs, run.sample, order.order, run.seed, order.poison, device);
        if (!launched.ok())
          return launchFailed(where, launched.error());
        const size_t rowElements =
            run.inputs.yStride ? size_t(run.inputs.yStride) : size_t(spec_.N);
        const std::string diff = e2e::compareGemmY(
            launched.value().outputs.at("y"),
            e2e::expectedGemmY(spec_, run.inputs, run.y, run.sample, order.poison), rowElements,
            size_t(spec_.N));
        if (!diff.empty())
          return failed(Outcome::WrongBytes, where + ": " + diff);
        record(facts, launched.value().report);
      }
    return {};
  }
};

//===--- quant_weight: launchWeights + compareBytes ----------------------===//

class QuantWeightCheck : public FamilyCheck {
public:
  using FamilyCheck::FamilyCheck;
  struct Run {
    e2e::WeightInputs inputs;
    QuantizedRows expected;
    uint64_t seed = 0;
  };
  std::vector<Run> runs;

  std::string plan() const override {
    return fmt::format("N={} rows, dense and strided x 2 seeds x workgroups forward,shuffled "
                       "(compareBytes: q, s)",
                       spec_.N);
  }

  Verdict check(const std::vector<uint8_t> &hsaco, const runtime::EmuDeviceOptions &device,
                RunFacts *facts) const override {
    const CodeObject code = withBytes(code_, hsaco);
    const size_t rowBytes = packedBytes(spec_.fmt, size_t(spec_.K));
    for (const Run &run : runs)
      for (const Order &order : kOrders) {
        const std::string where =
            fmt::format("stride={} seed={} {}", run.inputs.stride, run.seed, order.name);
        Result<e2e::WeightRun> launched = e2e::launchWeights(code, spec_, run.inputs, order.order,
                                                             run.seed, order.poison, device);
        if (!launched.ok())
          return launchFailed(where, launched.error());
        const runtime::SpecLaunch &launch = launched.value().launch;
        const std::string codes =
            e2e::compareBytes("q", launch.outputs.at("q"), run.expected.codes, rowBytes);
        const std::string scales = e2e::compareBytes("s", launch.outputs.at("s"),
                                                     run.expected.scales, size_t(spec_.K) / 32);
        if (!codes.empty() || !scales.empty())
          return failed(Outcome::WrongBytes, where + ": " + codes + " " + scales);
        record(facts, launch.report);
      }
    return {};
  }
};

Result<std::unique_ptr<FamilyCheck>> makeRotateQuant(const KernelSpec &spec, uint64_t seed) {
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice({});
  if (!device.ok())
    return device.status();
  Result<e2e::LoadedKernel> base = e2e::compileAndLoad(*device.value(), spec);
  if (!base.ok())
    return base.status();
  CodeObject code = base.value().code;
  auto check = std::make_unique<RotateQuantCheck>(spec, std::move(code), std::move(base.value()));
  for (int s = 0; s < 2; ++s)
    for (int m : rowCounts(spec)) {
      RotateQuantCheck::Run run;
      run.context.seed = seedOf(seed, s);
      run.context.specIndex = 0;
      run.context.run = check->runs.size();
      run.context.testName = "mutation_bench";
      run.inputs = e2e::drawInputs(spec, m, run.context);
      check->runs.push_back(std::move(run));
    }
  return std::unique_ptr<FamilyCheck>(std::move(check));
}

Result<std::unique_ptr<FamilyCheck>> makeMoe(const KernelSpec &spec, uint64_t seed) {
  Result<CodeObject> code = compile(spec);
  if (!code.ok())
    return code.status();
  auto check = std::make_unique<MoeCheck>(Family::Moe, spec, std::move(code.value()));
  // Routings the suite rotates through, one per run: distinct experts,
  // repeated slots, half the experts empty, every token alike.
  const e2e::MoeRouting routings[] = {e2e::MoeRouting::Uniform, e2e::MoeRouting::Duplicates,
                                      e2e::MoeRouting::Skewed, e2e::MoeRouting::SameExperts};
  for (int s = 0; s < 2; ++s)
    for (int m : rowCounts(spec)) {
      MoeCheck::Run run;
      run.seed = seedOf(seed, s);
      std::mt19937_64 rng(run.seed ^ uint64_t(m));
      const e2e::MoeRouting routing = routings[check->runs.size() % std::size(routings)];
      run.inputs = e2e::drawMoeInputs(spec, routing, rng, m);
      Result<MoeQuantized> expected = e2e::moeReference(spec, run.inputs);
      if (!expected.ok())
        return expected.status();
      run.expected = std::move(expected.value());
      check->runs.push_back(std::move(run));
    }
  return std::unique_ptr<FamilyCheck>(std::move(check));
}

Result<std::unique_ptr<FamilyCheck>> makeGemm(const KernelSpec &spec, uint64_t seed) {
  Result<CodeObject> code = compile(spec);
  if (!code.ok())
    return code.status();
  auto check = std::make_unique<GemmCheck>(Family::Gemm, spec, std::move(code.value()));
  // Two seeds at each m, then two full buckets of scale_boundaries rows
  // through probe weights (gemm_case.h), whose y is the dequantized
  // activation channels themselves: with random weights y's bf16 rounding
  // hides an activation code or scale one step off (scale=even's rounding
  // increment 0x200000 made 0x200200 survived 64 boundary rows).
  struct Plan {
    int seed, m;
    std::optional<e2e::Distribution> everyRow;
    std::optional<size_t> probeChannel; // the first channel probe weights read
  };
  std::vector<Plan> plans;
  for (int s = 0; s < 2; ++s)
    for (int m : rowCounts(spec))
      plans.push_back({s, m, std::nullopt, std::nullopt});
  for (size_t first = 0; first < size_t(spec.K); first += size_t(spec.N))
    plans.push_back({2, spec.M, e2e::Distribution::ScaleBoundaries, first});
  for (const Plan &plan : plans) {
    GemmCheck::Run run;
    run.seed = seedOf(seed, plan.seed);
    run.sample = e2e::gemmColumnSample(spec, run.seed);
    // The run's index as the spec index: strided x on odd runs, strided y
    // on run 1 (the suite's rule of spec indices).
    run.inputs = e2e::drawGemmInputs(spec, check->runs.size(), run.seed, run.sample, plan.m,
                                     plan.everyRow);
    if (run.inputs.ok && plan.probeChannel) {
      const std::optional<std::vector<uint16_t>> probe =
          e2e::gemmProbeWeights(spec, run.inputs.columns, *plan.probeChannel);
      if (!probe)
        continue; // a rotation probe weights cannot see through: no probe run
      run.inputs.ok = e2e::setGemmWeights(spec, run.sample, *probe, run.inputs);
    }
    if (!run.inputs.ok)
      return Status::failure("rotate_quant_gemm: weight preparation failed");
    Result<std::vector<uint16_t>> y = e2e::gemmReferenceY(spec, run.inputs, run.sample);
    if (!y.ok())
      return y.status();
    run.y = std::move(y.value());
    check->runs.push_back(std::move(run));
  }
  return std::unique_ptr<FamilyCheck>(std::move(check));
}

Result<std::unique_ptr<FamilyCheck>> makeQuantWeight(const KernelSpec &spec, uint64_t seed) {
  Result<CodeObject> code = compile(spec);
  if (!code.ok())
    return code.status();
  auto check =
      std::make_unique<QuantWeightCheck>(Family::QuantWeight, spec, std::move(code.value()));
  for (int s = 0; s < 2; ++s)
    for (size_t specIndex : {0, 1}) { // dense, then strided w (odd spec indices)
      QuantWeightCheck::Run run;
      run.seed = seedOf(seed, s);
      run.inputs = e2e::drawWeights(spec, specIndex, run.seed);
      Result<QuantizedRows> expected =
          quantWeight(e2e::problemFor(spec, spec.layout), spec.wlayout, run.inputs.w.data(),
                      size_t(spec.N), run.inputs.r.empty() ? nullptr : run.inputs.r.data());
      if (!expected.ok())
        return expected.status();
      run.expected = std::move(expected.value());
      check->runs.push_back(std::move(run));
    }
  return std::unique_ptr<FamilyCheck>(std::move(check));
}

} // namespace

Result<std::unique_ptr<FamilyCheck>> makeFamilyCheck(Family family, const std::string &specText,
                                                     uint64_t seed) {
  Result<KernelSpec> spec = parseSpec(specText);
  if (!spec.ok())
    return spec.status();
  switch (family) {
  case Family::RotateQuant:
    return makeRotateQuant(spec.value(), seed);
  case Family::Moe:
    return makeMoe(spec.value(), seed);
  case Family::Gemm:
    return makeGemm(spec.value(), seed);
  case Family::QuantWeight:
    return makeQuantWeight(spec.value(), seed);
  }
  return Status::failure("unknown family");
}

} // namespace mxf::mutation
