//===- moe_case.cpp - One rotate_quant_moe run: routing, launch, checks ---===//

#include "tests/e2e/moe_case.h"

#include "tests/e2e/e2e_inputs.h"
#include "tests/e2e/e2e_runner.h"

#include "numerics/packing.h"
#include "spec/reference_problem.h"
#include "runtime/emu_device.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>

namespace mxf::e2e {
namespace {

/// topk distinct experts out of the first `pool` ones (partial Fisher-Yates).
void drawDistinct(std::mt19937_64 &rng, int pool, int topk, int32_t *out) {
  std::vector<int32_t> experts(static_cast<size_t>(pool));
  std::iota(experts.begin(), experts.end(), 0);
  for (int slot = 0; slot < topk; ++slot) {
    std::uniform_int_distribution<int> pick(slot, pool - 1);
    std::swap(experts[size_t(slot)], experts[size_t(pick(rng))]);
    out[slot] = experts[size_t(slot)];
  }
}

/// Mismatches of `got` against `want` over [0, want.size()), named, the
/// first few with their offsets.
void compareRange(const char *name, const uint8_t *got, const uint8_t *want, size_t bytes,
                  size_t rowBytes, std::string &report) {
  size_t mismatches = 0;
  std::string first;
  for (size_t i = 0; i < bytes; ++i)
    if (got[i] != want[i] && ++mismatches <= 4) {
      char line[192];
      std::snprintf(line, sizeof line, "\n    %s byte %zu (row %zu, byte %zu): got 0x%02x, want 0x%02x",
                    name, i, i / rowBytes, i % rowBytes, got[i], want[i]);
      first += line;
    }
  if (mismatches)
    report += "\n  " + std::string(name) + ": " + std::to_string(mismatches) + " of " +
              std::to_string(bytes) + " bytes differ" + first;
}

} // namespace

const char *moeRoutingName(MoeRouting routing) {
  switch (routing) {
  case MoeRouting::Uniform:
    return "uniform";
  case MoeRouting::Skewed:
    return "skewed";
  case MoeRouting::SameExperts:
    return "same-experts";
  case MoeRouting::OneToken:
    return "one-token";
  case MoeRouting::Overflow:
    return "overflow";
  case MoeRouting::Duplicates:
    return "duplicates";
  }
  return "?";
}

MoeInputs drawMoeInputs(const KernelSpec &spec, MoeRouting routing, std::mt19937_64 &rng,
                        int forcedM) {
  MoeInputs in;
  in.routing = routing;
  const int topk = spec.topk, experts = spec.E;
  // m * topk > E * block needs m above E * block / topk; where the bucket
  // cannot reach it, the run is a full uniform one instead.
  const int overflowM = experts * spec.block / topk + 1;
  if (routing == MoeRouting::Overflow && overflowM > spec.M)
    in.routing = routing = MoeRouting::Uniform, forcedM = forcedM ? forcedM : spec.M;
  if (forcedM > 0)
    in.m = forcedM;
  else if (routing == MoeRouting::OneToken)
    in.m = 1;
  else if (routing == MoeRouting::Overflow)
    in.m = overflowM + int(rng() % uint64_t(spec.M - overflowM + 1));
  else // half the runs at decode sizes
    in.m = 1 + int(rng() % uint64_t(rng() % 2 ? 32 : spec.M));

  const size_t pairs = size_t(in.m) * size_t(topk);
  in.topkIds.resize(pairs);
  std::vector<int32_t> fixed(static_cast<size_t>(topk));
  drawDistinct(rng, experts, topk, fixed.data());
  for (int t = 0; t < in.m; ++t) {
    int32_t *row = in.topkIds.data() + size_t(t) * topk;
    switch (routing) {
    case MoeRouting::Skewed:
      drawDistinct(rng, std::max(topk, experts / 2), topk, row);
      break;
    case MoeRouting::SameExperts:
      std::copy(fixed.begin(), fixed.end(), row);
      break;
    case MoeRouting::Duplicates:
      // Each slot repeats an earlier slot of its token half the time (drawn
      // with replacement from E experts, a repeat would be rare at E=256):
      // the sorter's rank among a tile's earlier entries with the same
      // expert must count them, down to slot 1 repeating slot 0 of a tile's
      // first token (a lane only the duplicate-rank loop's epilogue serves;
      // docs/verification.md, the mutation score).
      for (int s = 0; s < topk; ++s)
        row[s] = s > 0 && rng() % 2 ? row[rng() % uint64_t(s)] : int32_t(rng() % uint64_t(experts));
      break;
    default:
      drawDistinct(rng, experts, topk, row);
    }
  }
  // Weights are copied, never computed with: any bits but NaN would do;
  // signed values of every magnitude show a byte order or a wrong slot.
  std::normal_distribution<float> normal(0.0f, 1.0f);
  in.topkWeights.resize(pairs);
  for (float &w : in.topkWeights)
    w = normal(rng) * std::ldexp(1.0f, int(rng() % 20) - 10);
  if (spec.emask) {
    in.expertMask.resize(size_t(experts));
    for (int32_t &local : in.expertMask)
      local = rng() % 2 ? int32_t(1 + rng() % 3) : 0; // any nonzero is local
    in.expertMask[rng() % uint64_t(experts)] = 1;
  }

  const size_t rows = spec.stage == 2 ? pairs : size_t(in.m);
  in.x.reserve(rows * size_t(spec.K));
  const size_t base = size_t(rng());
  for (size_t row = 0; row < rows; ++row) {
    std::vector<uint16_t> values = activationRow(spec, distributionFor(base, row), rng);
    in.x.insert(in.x.end(), values.begin(), values.end());
  }
  in.r = learnedRotation(spec, matrixKindFor(base), rng);
  in.seed = uint32_t(rng());
  // Selective rotation: even routings rotate, odd ones take the quant-only
  // path, so each spec's runs cover both (drawSelection).
  if (spec.select != RotationSelect::Off) {
    SelectionInputs drawn = drawSelection(spec, int(routing) % 2 == 0, rng);
    in.selection = drawn.selection;
    in.layerMask = std::move(drawn.layerMask);
  }
  if (spec.stage != 2) {
    if (rng() % 2)
      in.xStride = spec.K + 8 * int64_t(1 + rng() % 8);
    if (rng() % 3 == 0)
      in.qStride = int64_t(packedBytes(spec.fmt, size_t(spec.K))) + 4 * int64_t(1 + rng() % 4);
  }
  return in;
}

Result<MoeQuantized> moeReference(const KernelSpec &launched, const MoeInputs &inputs) {
  // A selective spec computes its rotated or its quant-only form.
  const bool rotates = selectionRotates(launched, inputs.selection.value_or(0),
                                        inputs.layerMask.empty() ? nullptr
                                                                 : inputs.layerMask.data());
  const KernelSpec spec = selectedSpec(launched, rotates);
  MoeProblem problem;
  problem.quant = problemFor(spec, spec.layout);
  problem.quant.quant.seed = inputs.seed;
  problem.rows = spec.stage == 2 ? MoeRows::Routed : MoeRows::Tokens;
  problem.topk = spec.topk;
  problem.experts = spec.E;
  problem.block = spec.block;
  return rotateQuantMoe(problem, inputs.x.data(), size_t(inputs.m), inputs.topkIds.data(),
                        inputs.topkWeights.data(),
                        inputs.expertMask.empty() ? nullptr : inputs.expertMask.data(),
                        inputs.r.empty() || spec.RS == 0 ? nullptr : inputs.r.data());
}

Result<MoeRun> launchMoe(const CodeObject &code, const KernelSpec &spec, const MoeInputs &inputs,
                         emu::WorkgroupOrder order, uint64_t orderSeed, uint8_t poison,
                         const runtime::HostArrays &initial,
                         const runtime::EmuDeviceOptions &deviceOptions) {
  runtime::EmuDeviceOptions options = deviceOptions;
  options.workgroupOrder = order;
  options.workgroupOrderSeed = orderSeed;
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice(options);
  if (!device.ok())
    return device.status();
  runtime::HostArrays given;
  // x as the kernel sees it: rows xStride apart, bf16 NaNs in the gaps.
  const size_t k = size_t(spec.K), rows = inputs.x.size() / k;
  const size_t stride = inputs.xStride ? size_t(inputs.xStride) : k;
  std::vector<uint16_t> x((rows - 1) * stride + k);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = uint16_t(0x7FC1 + i % 7);
  for (size_t row = 0; row < rows; ++row)
    std::copy_n(inputs.x.begin() + long(row * k), k, x.begin() + long(row * stride));
  given["x"] = bytesOf(x);
  if (!inputs.r.empty())
    given["r"] = bytesOf(inputs.r);
  given["topk_ids"] = bytesOf(inputs.topkIds);
  given["topk_weights"] = bytesOf(inputs.topkWeights);
  if (!inputs.expertMask.empty())
    given["expert_mask"] = bytesOf(inputs.expertMask);
  if (spec.round == Rounding::Sr)
    given["seed"] = bytesOf(std::vector<uint32_t>{inputs.seed});
  if (!inputs.layerMask.empty())
    given["layer_mask"] = bytesOf(inputs.layerMask);
  runtime::SpecLaunchOptions launchOptions;
  launchOptions.selection = inputs.selection;
  launchOptions.poison = poison;
  launchOptions.initialOutputs = initial;
  if (inputs.xStride)
    launchOptions.rowStrides["x"] = inputs.xStride;
  if (inputs.qStride)
    launchOptions.rowStrides["q"] = inputs.qStride;
  const auto start = std::chrono::steady_clock::now();
  Result<runtime::SpecLaunch> launched = runtime::launchSpec(
      *device.value(), code.hsaco, code.kernel, code.launch, spec, inputs.m, given, launchOptions);
  if (!launched.ok())
    return launched.status();
  MoeRun run;
  run.launch = std::move(launched.value());
  run.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
               .count();
  return run;
}

std::string compareMoe(const KernelSpec &spec, const MoeInputs &inputs,
                       const MoeQuantized &expected, const runtime::SpecLaunch &run,
                       uint8_t poison, bool initialGiven) {
  std::string report;
  auto output = [&](const char *name) -> const std::vector<uint8_t> * {
    auto found = run.outputs.find(name);
    if (found == run.outputs.end()) {
      report += "\n  no output '" + std::string(name) + "'";
      return nullptr;
    }
    return &found->second;
  };
  auto untouched = [&](const char *name, const std::vector<uint8_t> &bytes, size_t from,
                       size_t to) {
    if (initialGiven)
      return;
    size_t written = 0;
    for (size_t i = from; i < to; ++i)
      written += bytes[i] != poison;
    if (written)
      report += "\n  " + std::string(name) + ": " + std::to_string(written) +
                " bytes the kernel must not write lost the poison (from byte " +
                std::to_string(from) + ")";
  };

  // q: input-row order, rows qStride apart.
  const size_t rowBytes = packedBytes(spec.fmt, size_t(spec.K));
  const std::vector<uint8_t> &codes = expected.quantized.codes;
  const size_t rows = codes.size() / rowBytes;
  const size_t qStride = inputs.qStride ? size_t(inputs.qStride) : rowBytes;
  if (const std::vector<uint8_t> *q = output("q")) {
    if (q->size() != (rows - 1) * qStride + rowBytes) {
      report += "\n  q spans " + std::to_string(q->size()) + " bytes";
    } else {
      std::vector<uint8_t> dense(rows * rowBytes);
      for (size_t row = 0; row < rows; ++row) {
        std::copy_n(q->begin() + long(row * qStride), rowBytes,
                    dense.begin() + long(row * rowBytes));
        if (row + 1 < rows)
          untouched("q (stride gap)", *q, row * qStride + rowBytes, (row + 1) * qStride);
      }
      compareRange("q", dense.data(), codes.data(), dense.size(), rowBytes, report);
    }
  }
  // s: the written prefix, then untouched bytes.
  if (const std::vector<uint8_t> *s = output("s")) {
    const std::vector<uint8_t> &want = expected.quantized.scales;
    if (s->size() != want.size()) {
      report += "\n  s holds " + std::to_string(s->size()) + " bytes, the reference " +
                std::to_string(want.size());
    } else {
      compareRange("s", s->data(), want.data(), expected.scaleBytesWritten,
                   expected.quantized.scaleShape.cols, report);
      untouched("s (past the written rows)", *s, expected.scaleBytesWritten, s->size());
    }
  }
  auto whole = [&](const char *name, const std::vector<uint8_t> &want, size_t unit) {
    if (const std::vector<uint8_t> *got = output(name)) {
      if (got->size() != want.size())
        report += "\n  " + std::string(name) + " holds " + std::to_string(got->size()) +
                  " bytes, the reference " + std::to_string(want.size());
      else
        compareRange(name, got->data(), want.data(), want.size(), unit, report);
    }
  };
  whole("sorted_ids", bytesOf(expected.sorting.sortedIds), 4);
  whole("sorted_weights", bytesOf(expected.sorting.sortedWeights), 4);
  whole("sorted_expert_ids", bytesOf(expected.sorting.sortedExpertIds), 4);
  whole("num_valid_ids",
        bytesOf(std::vector<int32_t>{expected.sorting.numValidIds[0],
                                     expected.sorting.numValidIds[1]}),
        4);
  return report;
}

} // namespace mxf::e2e
