//===- e2e_case.cpp - One spec end to end: runs, checks, reports ----------===//

#include "tests/e2e/e2e_case.h"

#include "abi/operands.h"
#include "numerics/a6w6.h"
#include "numerics/layouts.h"
#include "numerics/packing.h"
#include "numerics/reference.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

namespace mxf::e2e {
namespace {

std::string runLabel(const KernelSpec &spec, const RunInputs &inputs, const RunContext &c) {
  std::string rows;
  const size_t shown = std::min<size_t>(size_t(inputs.m), kNumDistributions);
  for (size_t i = 0; i < shown; ++i)
    rows += fmt::format("{}{}", i ? "," : "", distributionName(distributionFor(c.specIndex + c.run, i)));
  if (size_t(inputs.m) > shown)
    rows += fmt::format(",... (row i: distribution (base+i) mod {})", kNumDistributions);
  std::string text = fmt::format("spec {}\n  M={} run={} seed={} poison=0x{:02x} rows: {}",
                                 printSpec(spec), inputs.m, c.run, c.seed, inputs.poison, rows);
  if (!inputs.r.empty())
    text += fmt::format(" r: {}", matrixKindName(matrixKindFor(c.specIndex + c.run)));
  if (inputs.xStride)
    text += fmt::format(" x_stride={} q_stride={}", inputs.xStride, inputs.qStride);
  if (inputs.selection)
    text += fmt::format(" {}={} ({})", selectionArgName(spec), *inputs.selection,
                        inputs.rotates(spec) ? "rotates" : "quant-only");
  text += fmt::format("\n  replay: MXFORGE_TEST_SEED={} e2e_tests --gtest_filter='{}'", c.seed,
                      c.testName);
  return text;
}

/// Launch statistics that must hold whatever the inputs.
void checkStatistics(const LoadedKernel &kernel, const RunInputs &inputs, const RunOutputs &out,
                     const ExpectedOutputs &expected, const std::string &label) {
  const runtime::LaunchReport &report = out.report;
  const KernelSpec &spec = kernel.spec;
  const uint64_t workgroups = uint64_t(out.grid[0]) * out.grid[1] * out.grid[2];
  EXPECT_EQ(report.get("global_bytes_written"), expected.bytesWritten)
      << "bytes written differ from the bytes the kernel must write (each exactly once)\n"
      << label;
  EXPECT_EQ(report.get("workgroups"), workgroups) << label;
  EXPECT_EQ(report.get("waves"), workgroups * uint64_t(kernel.tiling.wavesPerWorkgroup)) << label;
  // Every valid row of x is read at least once, and so is the rotation
  // (when this launch rotates: selective rotation's other path reads no R).
  const bool rotates = inputs.rotates(spec);
  EXPECT_GE(report.get("global_bytes_read"),
            inputs.x.size() * 2 + (rotates ? inputs.r.size() * 2 : 0))
      << label;
  // The codes come from the scaled converts, except round=rna's (no convert
  // rounds half away from zero: the vector ALUs do it).
  if (spec.round == Rounding::Rna)
    EXPECT_EQ(report.get("instructions.cvt-scaled"), 0u) << label;
  else
    EXPECT_GT(report.get("instructions.cvt-scaled"), 0u) << label;
  if (rotates && spec.RS > 0 && spec.rot != RotationKind::HadamardButterfly) {
    EXPECT_GT(report.get("mfma"), 0u) << "a matrix rotation without MFMA\n" << label;
  } else {
    EXPECT_EQ(report.get("mfma"), 0u)
        << "RS=0 and the butterfly (vector ALU stages) need no MFMA\n" << label;
  }
  // The kernel touched only registers its descriptor allocates.
  EXPECT_LE(report.get("vgprs_touched"), kernel.code.kernel.vgprCount) << label;
  // Row tiles wholly in the a4w4 padding compute nothing and stage nothing.
  const uint64_t rowTiles = (uint64_t(inputs.m) + kernel.tiling.rowsPerTile - 1) /
                            uint64_t(kernel.tiling.rowsPerTile);
  if (kernel.tiling.stagesRotationInLds && rotates) {
    const uint64_t computing = uint64_t(out.grid[0]) * out.grid[2] * rowTiles;
    EXPECT_GE(report.get("lds_bytes_written"), computing * inputs.r.size() * 2)
        << "each workgroup with rows to compute stages R in LDS\n" << label;
  }
  if (kernel.tiling.transposesInWaveLds && rotates) {
    // Every wave writes each 32x32 piece of its block's R once per row tile.
    EXPECT_EQ(report.get("lds_bytes_written"), rowTiles * inputs.r.size() * 2)
        << "each rotation block's R passes through LDS exactly once per row tile\n" << label;
  }
  if (kernel.code.kernel.ldsBytes == 0 || !rotates) {
    EXPECT_EQ(report.get("lds_bytes_written") + report.get("lds_bytes_read"), 0u) << label;
  }
}

} // namespace

std::vector<int> rowCountsFor(int bucket, uint64_t seed) {
  std::vector<int> counts{1};
  if (bucket > 2) {
    std::mt19937_64 rng = runEngine(seed, 1u << 20); // a stream no run uses
    counts.push_back(std::uniform_int_distribution<int>(2, bucket - 1)(rng));
  }
  if (bucket > 1)
    counts.push_back(bucket);
  return counts;
}

uint8_t poisonFor(size_t run) {
  static constexpr uint8_t kPoisons[] = {0xA5, 0x5B, 0xC3, 0x3C};
  return kPoisons[run % std::size(kPoisons)];
}

RunInputs drawInputs(const KernelSpec &spec, int m, const RunContext &context) {
  std::mt19937_64 rng = runEngine(context.seed, context.run);
  RunInputs inputs;
  inputs.m = m;
  inputs.poison = poisonFor(context.run);
  inputs.x.reserve(size_t(m) * size_t(spec.K));
  for (int row = 0; row < m; ++row) {
    std::vector<uint16_t> values =
        activationRow(spec, distributionFor(context.specIndex + context.run, size_t(row)), rng);
    inputs.x.insert(inputs.x.end(), values.begin(), values.end());
  }
  inputs.r = learnedRotation(spec, matrixKindFor(context.specIndex + context.run), rng);
  inputs.seed = uint32_t(rng()); // round=sr: a fresh seed per run
  // Selective rotation: run 0 (and the determinism rerun) rotates, run 1
  // does not, later runs draw (drawSelection).
  if (spec.select != RotationSelect::Off) {
    const bool rotate = context.run == 0 || (context.run != 1 && rng() % 2 == 0);
    SelectionInputs drawn = drawSelection(spec, rotate, rng);
    inputs.selection = drawn.selection;
    inputs.layerMask = std::move(drawn.layerMask);
  }
  // Every other run passes x and q as views of wider rows (an engine's
  // slices): strides a random number of 16-byte steps past the row.
  // (q only where its rows are strided: the A6W6 tiles are dense.)
  if ((context.specIndex + context.run) % 2 == 1) {
    std::uniform_int_distribution<int> steps(1, 8);
    inputs.xStride = spec.K + 8 * steps(rng);
    const int qSteps = steps(rng);
    if (spec.layout != ScaleLayout::A6W6Tiles)
      inputs.qStride = int64_t(packedBytes(spec.fmt, size_t(spec.K))) + 16 * qSteps;
  }
  return inputs;
}

RunOutputs runAndCheck(runtime::Device &device, const LoadedKernel &kernel,
                       const RunInputs &inputs, const RunContext &context) {
  const KernelSpec &spec = kernel.spec;
  const std::string label = runLabel(spec, inputs, context);

  Result<RunOutputs> run = runKernel(device, kernel, inputs);
  if (!run.ok()) {
    ADD_FAILURE() << "launch failed: " << run.error() << "\n" << label;
    return {};
  }
  const auto refStart = std::chrono::steady_clock::now();
  Result<QuantizedRows> ref = referenceFor(spec, inputs);
  const double refMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - refStart).count();
  if (!ref.ok()) {
    ADD_FAILURE() << "reference failed: " << ref.error() << "\n" << label;
    return {};
  }
  const OutputShape shape = outputShapeAt(spec, inputs.m);
  EXPECT_EQ(run.value().qGapBytesWritten, 0u)
      << "the kernel wrote into q's stride gaps\n" << label;
  const ExpectedOutputs expected = expectedOutputs(shape, size_t(inputs.m),
                                                   ref.value().codes, ref.value().scales,
                                                   inputs.poison);
  if (spec.layout == ScaleLayout::A4W4Shuffle) {
    // Our a4w4ScaleIndex image must be exactly the reference's own shuffle
    // (rows padded to 256 with 0x7F) wherever the kernel writes.
    const std::vector<uint8_t> shuffled =
        shuffleScalesA4W4(ref.value().scales.data(), size_t(inputs.m), kernel.shape.k / 32,
                          kA4W4RowPadding);
    EXPECT_TRUE(shuffled.size() <= expected.s.size() &&
                std::equal(shuffled.begin(), shuffled.end(), expected.s.begin()))
        << "harness: expected scale image disagrees with shuffleScalesA4W4\n" << label;
  }
  if (spec.layout == ScaleLayout::A6W6Tiles) {
    // The image built from the offsets must be numerics' own packA6W6 of the
    // reference (padding, K padding and guard tiles included), byte for byte.
    Result<A6W6Operand> packed = packA6W6(ref.value().codes.data(), ref.value().scales.data(),
                                          size_t(inputs.m), kernel.shape.k);
    EXPECT_TRUE(packed.ok() && packed.value().codes == expected.q &&
                packed.value().scales == expected.s)
        << "harness: expected A6W6 tile image disagrees with packA6W6\n" << label;
  }

  const Comparison comparison = compareOutputs(expected, shape, run.value().q, run.value().s);
  if (!comparison.ok()) {
    std::string rows;
    for (const Mismatch &mm : comparison.first)
      if (mm.row < size_t(inputs.m))
        rows += fmt::format(" row {}: {};", mm.row,
                            distributionName(distributionFor(context.specIndex + context.run, mm.row)));
    ADD_FAILURE() << "emulated kernel differs from numerics/: " << comparison.describe()
                  << "\n  distributions of those rows:" << rows << "\n" << label;
  }
  checkStatistics(kernel, inputs, run.value(), expected, label);

  const runtime::LaunchReport &report = run.value().report;
  std::printf("[ run      ] M=%d grid=%ux%u %llu wave-instr (%llu mfma) in %.0f ms (%.1f M/s), "
              "reference %.0f ms: %s\n",
              inputs.m, run.value().grid[0], run.value().grid[1],
              (unsigned long long)report.get("instructions"), (unsigned long long)report.get("mfma"),
              run.value().emulateMs,
              report.get("instructions") / std::max(run.value().emulateMs, 1e-3) / 1e3, refMs,
              comparison.ok() ? "match" : "MISMATCH");
  return std::move(run.value());
}

std::string compareReports(const runtime::LaunchReport &a, const runtime::LaunchReport &b) {
  if (a.counters.size() != b.counters.size())
    return fmt::format("{} counters vs {}", a.counters.size(), b.counters.size());
  for (size_t i = 0; i < a.counters.size(); ++i)
    if (a.counters[i] != b.counters[i])
      return fmt::format("counter {} = {} vs {} = {}", a.counters[i].first, a.counters[i].second,
                         b.counters[i].first, b.counters[i].second);
  return "";
}

} // namespace mxf::e2e
