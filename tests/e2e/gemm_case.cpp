//===- gemm_case.cpp - One rotate_quant_gemm run: inputs, launch, checks -===//

#include "tests/e2e/gemm_case.h"

#include "abi/gemm_split.h"
#include "abi/operands.h"
#include "numerics/formats.h"
#include "numerics/packing.h"
#include "numerics/rotation.h"
#include "templates/rotate_quant_gemm/tiling.h"
#include "tests/e2e/e2e_inputs.h"
#include "tests/e2e/e2e_tier.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace mxf::e2e {
namespace {

constexpr size_t kSampledWorkgroups = 8;

} // namespace

ColumnSample gemmColumnSample(const KernelSpec &spec, uint64_t seed) {
  ColumnSample sample;
  const GemmTiling tiling = chooseRotateQuantGemmTiling(spec);
  sample.columnsPerGroup = size_t(tiling.columnsPerGroup);
  sample.workgroupsPerGroup = size_t(tiling.workgroupsPerGroup);
  // Whole weight matrices up to 2^24 elements in the full tier, 2^22 in the
  // sample tier (e2e_tier.h): above it the reference quantizes and
  // multiplies only the sampled workgroups' columns, and the emulator runs
  // only those workgroups (a 4096 x 4096 W6A16 case took 42 s whole).
  const int64_t wholeLimit = int64_t(1) << (fullTier() ? 24 : 22);
  if (int64_t(spec.N) * spec.K <= wholeLimit)
    return sample;
  const uint32_t groups =
      uint32_t((size_t(spec.N) + sample.columnsPerGroup - 1) / sample.columnsPerGroup);
  std::mt19937_64 rng(seed ^ 0x5A5A5A5Aull);
  sample.workgroups.insert(groups - 1);
  while (sample.workgroups.size() < std::min<size_t>(kSampledWorkgroups, groups))
    sample.workgroups.insert(uint32_t(rng() % groups));
  return sample;
}

std::string nonzeroSplitCounters(const KernelSpec &spec, int m, const std::vector<uint8_t> &ws) {
  const GemmChainSplit split = gemmChainSplit(spec);
  const size_t rowTiles = (size_t(m) + 15) / 16, words = size_t(split.wordsPerRowTile);
  if (ws.size() != rowTiles * words * 4)
    return "ws has " + std::to_string(ws.size()) + " bytes, expected " +
           std::to_string(rowTiles * words * 4);
  std::string out;
  for (size_t tile = 0; tile < rowTiles; ++tile)
    for (size_t group = 0; group < size_t(split.columnGroups); ++group) {
      int32_t counter = 0;
      std::memcpy(&counter, ws.data() + (tile * words + group) * 4, 4);
      if (counter != 0 && out.size() < 200)
        out += "row tile " + std::to_string(tile) + ", column group " + std::to_string(group) +
               ": counter " + std::to_string(counter) + "; ";
    }
  return out;
}

GemmInputs drawGemmInputs(const KernelSpec &spec, size_t specIndex, uint64_t seed,
                          const ColumnSample &sample, int forcedM,
                          std::optional<Distribution> everyRow) {
  std::mt19937_64 rng(seed ^ (specIndex * 0x9E3779B97F4A7C15ull));
  GemmInputs in;
  in.m = 1 + int(rng() % uint64_t(spec.M)); // drawn even when forced: the same stream after it
  if (forcedM > 0)
    in.m = forcedM;
  for (int row = 0; row < in.m; ++row) {
    std::vector<uint16_t> values =
        activationRow(spec, everyRow ? *everyRow : distributionFor(specIndex, size_t(row)), rng);
    in.x.insert(in.x.end(), values.begin(), values.end());
  }
  in.r = learnedRotation(spec, matrixKindFor(specIndex), rng);
  if (specIndex % 2 == 1)
    in.xStride = spec.K + 8 * int64_t(1 + rng() % 8);
  if (specIndex % 3 == 1)
    in.yStride = spec.N + 4 * int64_t(1 + rng() % 8);
  const size_t n = size_t(spec.N), k = size_t(spec.K);
  for (size_t column = 0; column < n; ++column)
    if (sample.covers(column))
      in.columns.push_back(column);
  // Weights: normal rows (a weight matrix has no activation outliers), so
  // the products and the float64 bound are meaningful at every N; drawn for
  // the checked rows only (a sampled launch reads no other).
  std::normal_distribution<float> normal(0.0f, 0.05f);
  std::vector<uint16_t> w(in.columns.size() * k);
  for (uint16_t &v : w)
    v = f32ToBf16(normal(rng));
  in.ok = setGemmWeights(spec, sample, w, in);
  return in;
}

bool setGemmWeights(const KernelSpec &spec, const ColumnSample &sample,
                    const std::vector<uint16_t> &w, GemmInputs &in) {
  const size_t n = size_t(spec.N), k = size_t(spec.K);
  RotateQuantProblem problem = problemFor(spec, spec.layout);
  problem.quant.rounding = Rounding::Rne;
  const uint16_t *r = in.r.empty() ? nullptr : in.r.data();
  if (sample.workgroups.empty()) {
    // Whole: the spec's layouts straight from numerics' quant_weight.
    Result<QuantizedRows> weights = quantWeight(problem, spec.wlayout, w.data(), n, r);
    if (!weights.ok())
      return false;
    in.wq = std::move(weights.value().codes);
    in.ws = std::move(weights.value().scales);
  }
  problem.scaleLayout = ScaleLayout::Plain;
  Result<QuantizedRows> checked =
      quantWeight(problem, WeightLayout::Plain, w.data(), in.columns.size(), r);
  if (!checked.ok())
    return false;
  in.checkedWeights = std::move(checked.value());
  if (!sample.workgroups.empty()) {
    // Sampled: the checked rows in place, the rest zero codes with scale
    // 2^0, laid out by numerics' layout functions.
    const size_t rowBytes = packedBytes(spec.fmt, k), cols = k / 32;
    std::vector<uint8_t> codes(n * rowBytes, 0), scales(n * cols, 127);
    for (size_t i = 0; i < in.columns.size(); ++i) {
      std::copy_n(in.checkedWeights.codes.begin() + i * rowBytes, rowBytes,
                  codes.begin() + in.columns[i] * rowBytes);
      std::copy_n(in.checkedWeights.scales.begin() + i * cols, cols,
                  scales.begin() + in.columns[i] * cols);
    }
    if (spec.wlayout != WeightLayout::Plain) {
      Result<std::vector<uint8_t>> shuffled =
          spec.wlayout == WeightLayout::Preshuffle16x16
              ? preshuffleWeights16x16(codes.data(), n, rowBytes)
              : tileWeightsW6A16(codes.data(), n, k);
      if (!shuffled.ok())
        return false;
      codes = std::move(shuffled.value());
    }
    if (spec.layout == ScaleLayout::A4W4Shuffle)
      scales = shuffleScalesA4W4(scales.data(), n, cols, kA4W4RowPadding, kScalePadByte);
    in.wq = std::move(codes);
    in.ws = std::move(scales);
  }
  return true;
}

std::optional<std::vector<uint16_t>> gemmProbeWeights(const KernelSpec &spec,
                                                      const std::vector<size_t> &columns,
                                                      size_t firstChannel) {
  const size_t k = size_t(spec.K);
  const bool hadamard = spec.rot == RotationKind::Hadamard && (spec.RS == 64 || spec.RS == 256);
  if (!hadamard && spec.rot != RotationKind::None)
    return std::nullopt;
  // Column c probes channel j = firstChannel + c of the rotated x: without
  // rotation w is 1 at j; with an exact Hadamard H (entries +-2^-3 or
  // +-2^-4, H.H = I) w is sqrt(RS) * H[j mod RS] (entries +-1) within j's
  // rotation block, so that w.H = sqrt(RS) e_j and y[c] = sqrt(RS) * q(x.H)_j
  // exactly: every activation code and scale shows in y.
  std::vector<uint16_t> w(columns.size() * k, 0);
  for (size_t i = 0; i < columns.size(); ++i) {
    const size_t j = (firstChannel + columns[i]) % k;
    uint16_t *row = w.data() + i * k;
    if (!hadamard) {
      row[j] = 0x3F80; // 1.0
      continue;
    }
    const size_t rs = size_t(spec.RS), base = j / rs * rs;
    for (size_t t = 0; t < rs; ++t)
      row[base + t] = hadamardSign(int(j % rs), int(t)) > 0 ? 0x3F80 : 0xBF80; // +-1
  }
  return w;
}

Result<runtime::SpecLaunch> launchGemm(const CodeObject &code, const KernelSpec &spec,
                                       const GemmInputs &in, const ColumnSample &sample,
                                       emu::WorkgroupOrder order, uint64_t orderSeed,
                                       uint8_t poison,
                                       const runtime::EmuDeviceOptions &deviceOptions) {
  runtime::EmuDeviceOptions options = deviceOptions;
  options.workgroupOrder = order;
  options.workgroupOrderSeed = orderSeed;
  if (!sample.workgroups.empty())
    options.runsWorkgroup = [&sample](const std::array<uint32_t, 3> &id) {
      return sample.runs(id[0]);
    };
  Result<std::unique_ptr<runtime::Device>> device = runtime::openEmuDevice(options);
  if (!device.ok())
    return device.status();
  const size_t k = size_t(spec.K);
  runtime::HostArrays given;
  given["x"] = bytesOf(stridedRows(in.x, size_t(in.m), k, in.xStride ? size_t(in.xStride) : k));
  if (!in.r.empty())
    given["r"] = bytesOf(in.r);
  given["w_q"] = in.wq;
  given["w_s"] = in.ws;
  runtime::SpecLaunchOptions launchOptions;
  launchOptions.poison = poison;
  if (in.xStride)
    launchOptions.rowStrides["x"] = in.xStride;
  if (in.yStride)
    launchOptions.rowStrides["y"] = in.yStride;
  return runtime::launchSpec(*device.value(), code.hsaco, code.kernel, code.launch, spec, in.m,
                             given, launchOptions);
}

/// y's bytes as the kernel must leave them: the reference's rows at the
/// stride in the sampled columns, everything else still the poison.
std::vector<uint8_t> expectedGemmY(const KernelSpec &spec, const GemmInputs &in,
                                   const std::vector<uint16_t> &y, const ColumnSample &sample,
                                   uint8_t poison) {
  const size_t n = size_t(spec.N), stride = in.yStride ? size_t(in.yStride) : n;
  std::vector<uint8_t> out(((size_t(in.m) - 1) * stride + n) * 2, poison);
  for (size_t row = 0; row < size_t(in.m); ++row)
    for (size_t column = 0; column < n; ++column)
      if (sample.covers(column))
        std::memcpy(out.data() + (row * stride + column) * 2, &y[row * n + column], 2);
  return out;
}

/// The reference's y [m, N]: whole, through the spec's layouts; or, for a
/// sample, of the sampled columns only (a GEMM of those weight rows in the
/// plain layouts: an output depends on its own weight row alone), the other
/// columns 0 (never compared).
Result<std::vector<uint16_t>> gemmReferenceY(const KernelSpec &spec, const GemmInputs &in,
                                             const ColumnSample &sample) {
  GemmProblem problem;
  problem.activation = problemFor(spec, ScaleLayout::Plain);
  problem.n = size_t(spec.N);
  problem.weightLayout = spec.wlayout;
  problem.weightScaleLayout = spec.layout;
  const uint16_t *r = in.r.empty() ? nullptr : in.r.data();
  if (sample.workgroups.empty())
    return rotateQuantGemm(problem, in.x.data(), size_t(in.m), r, in.wq.data(), in.ws.data());
  problem.n = in.columns.size();
  problem.weightLayout = WeightLayout::Plain;
  problem.weightScaleLayout = ScaleLayout::Plain;
  Result<std::vector<uint16_t>> part =
      rotateQuantGemm(problem, in.x.data(), size_t(in.m), r, in.checkedWeights.codes.data(),
                      in.checkedWeights.scales.data());
  if (!part.ok())
    return part;
  const size_t n = size_t(spec.N);
  std::vector<uint16_t> y(size_t(in.m) * n, 0);
  for (size_t row = 0; row < size_t(in.m); ++row)
    for (size_t i = 0; i < in.columns.size(); ++i)
      y[row * n + in.columns[i]] = part.value()[row * in.columns.size() + i];
  return y;
}

std::string compareGemmY(const std::vector<uint8_t> &got, const std::vector<uint8_t> &expected,
                         size_t rowElements, size_t columns) {
  if (got.size() != expected.size())
    return "y: " + std::to_string(got.size()) + " bytes, expected " +
           std::to_string(expected.size());
  // IEEE 754 leaves the sign and payload of a NaN that arithmetic makes
  // unspecified (Inf - Inf in the MFMA's sum gives the hardware's NaN, x86's
  // default NaN is negative): a y that is NaN where numerics/ says NaN is
  // right whatever its bits. Only in the N columns of a row: the stride
  // gaps must keep the poison byte for byte.
  auto isNan = [](uint8_t lo, uint8_t hi) {
    return (hi & 0x7F) == 0x7F && (lo & 0x80) && (lo & 0x7F);
  };
  auto bothNan = [&](size_t i) {
    return i / 2 % rowElements < columns && isNan(got[i], got[i + 1]) &&
           isNan(expected[i], expected[i + 1]);
  };
  size_t mismatches = 0;
  std::string first;
  for (size_t i = 0; i + 1 < got.size(); i += 2)
    if ((got[i] != expected[i] || got[i + 1] != expected[i + 1]) && !bothNan(i) &&
        ++mismatches <= 4) {
      char line[160];
      std::snprintf(line, sizeof line,
                    "\n    y element %zu (row %zu, column %zu at the stride): got 0x%02x%02x, "
                    "expected 0x%02x%02x",
                    i / 2, i / 2 / rowElements, i / 2 % rowElements, got[i + 1], got[i],
                    expected[i + 1], expected[i]);
      first += line;
    }
  if (mismatches == 0)
    return "";
  return "y: " + std::to_string(mismatches) + " of " + std::to_string(got.size() / 2) +
         " elements differ" + first;
}

/// docs/numerics.md, "rotate_quant_gemm: the error bound": with C MFMA roundings to f32
/// along K (u = 2^-24; A4W4 K/128, W6A16 K/32) and one to bf16 (2^-8),
///   |y - exact| <= 2^-8 |exact| + (1 + 2^-8) * 1.01 * C * u * sum|a_k w_k| + 2^-133.
/// Returns the number of outputs outside it (and describes the first).
size_t countOutsideGemmBound(const KernelSpec &spec, const GemmInputs &in,
                             const std::vector<uint16_t> &y, const ColumnSample &sample,
                             std::string &first) {
  Result<std::vector<double>> act =
      gemmActivationValues(problemFor(spec, ScaleLayout::Plain), in.x.data(), size_t(in.m),
                           in.r.empty() ? nullptr : in.r.data());
  if (!act.ok()) {
    first = act.error();
    return 1;
  }
  const std::vector<double> &a = act.value();
  const std::vector<float> w = dequantizeRows(in.checkedWeights); // the checked rows
  const size_t k = size_t(spec.K), n = size_t(spec.N);
  const double u = std::ldexp(1.0, -24);
  const double chunks = double(k / (spec.fmt == ElemFormat::E2M3 ? 32 : 128));
  size_t outside = 0;
  for (size_t i = 0; i < size_t(in.m); ++i)
    for (size_t checked = 0; checked < in.columns.size(); ++checked) {
      const size_t j = in.columns[checked];
      double exact = 0, magnitude = 0;
      for (size_t c = 0; c < k; ++c) {
        const double p = a[i * k + c] * double(w[checked * k + c]);
        exact += p;
        magnitude += std::fabs(p);
      }
      const double bound = std::ldexp(std::fabs(exact), -8) +
                           (1 + std::ldexp(1.0, -8)) * 1.01 * chunks * u * magnitude +
                           std::ldexp(1.0, -133);
      // A non-finite activation, or products whose sum can leave the f32
      // range (the non_finite rows), voids the bound: such outputs are
      // checked bit for bit against numerics/ only.
      if (!(magnitude <= double(std::numeric_limits<float>::max())))
        continue;
      const double got = double(bf16ToF32(y[i * n + j]));
      if (!(std::fabs(got - exact) <= bound) && ++outside == 1) {
        char line[200];
        std::snprintf(line, sizeof line, "y[%zu][%zu] = %.9g, float64 %.9g, bound %.3g", i, j, got,
                      exact, bound);
        first = line;
      }
    }
  return outside;
}

} // namespace mxf::e2e
