//===- rmsnorm_case.cpp - One rmsnorm_rotate_quant run ---------------------===//

#include "tests/e2e/rmsnorm_case.h"

#include "tests/e2e/e2e_runner.h"
#include "tests/e2e/reference_case.h"

#include "abi/operands.h"
#include "numerics/formats.h"
#include "runtime/emu_device.h"


#include <cstring>
#include <iterator>

namespace mxf::e2e {
NormInputs drawNormInputs(const KernelSpec &spec, int m, size_t base, bool rotate,
                          std::mt19937_64 &rng) {
  NormInputs in;
  in.m = m;
  const size_t k = size_t(spec.K);
  auto rowsFrom = [&](size_t shift) {
    std::vector<uint16_t> rows;
    for (int row = 0; row < m; ++row) {
      // The finite distributions only: a NaN or Inf in a row makes its
      // whole normalized row NaN, which says nothing about the order.
      auto distribution =
          Distribution((base + shift + size_t(row)) % kNumFiniteDistributions);
      std::vector<uint16_t> values = activationRow(spec, distribution, rng);
      rows.insert(rows.end(), values.begin(), values.end());
    }
    return rows;
  };
  in.x = rowsFrom(0);
  if (spec.add)
    in.residual = rowsFrom(1);
  // A trained gain: mostly near 1, some small, a few negative.
  std::uniform_real_distribution<float> gain(-0.25f, 1.75f);
  for (size_t i = 0; i < k; ++i)
    in.gamma.push_back(f32ToBf16(gain(rng)));
  in.r = learnedRotation(spec, matrixKindFor(base), rng);
  in.srSeed = uint32_t(rng());
  in.selection = drawSelection(spec, rotate, rng);
  const double epsilons[] = {1e-6, 1e-5, 1e-12, 0.25};
  in.eps = epsilons[rng() % std::size(epsilons)];
  // Row strides a quarter of the time each: views into wider tensors.
  if (rng() % 4 == 0)
    in.xStride = int64_t(k + 8 * (1 + rng() % 4));
  if (spec.add && rng() % 4 == 0)
    in.residualStride = int64_t(k + 8 * (1 + rng() % 4));
  return in;
}

namespace {

/// `dense` rows of `k` at `stride` (0: dense) as the launch's bytes.
std::vector<uint8_t> rowBytes(const std::vector<uint16_t> &dense, size_t k, int64_t stride) {
  return bytesOf(stride ? stridedRows(dense, dense.size() / k, k, size_t(stride)) : dense);
}

} // namespace

Result<arrays::ReferenceRun> normReference(const KernelSpec &spec, const NormInputs &in) {
  const size_t m = size_t(in.m), k = size_t(spec.K);
  arrays::NpyArrays given;
  given.emplace("x", arrays::NpyArray::of({m, k}, in.x));
  if (spec.add)
    given.emplace("residual", arrays::NpyArray::of({m, k}, in.residual));
  given.emplace("gamma", arrays::NpyArray::of({k}, in.gamma));
  if (!in.r.empty()) {
    const size_t rs = size_t(spec.RS);
    given.emplace("r", spec.rot == RotationKind::LearnedPerBlock
                           ? arrays::NpyArray::of({k / rs, rs, rs}, in.r)
                           : arrays::NpyArray::of({rs, rs}, in.r));
  }
  if (kernelHasSeedOperand(spec))
    given.emplace("seed", arrays::NpyArray::of({1}, std::vector<int32_t>{int32_t(in.srSeed)}));
  if (!in.selection.layerMask.empty())
    given.emplace("layer_mask",
                  arrays::NpyArray::of({in.selection.layerMask.size()}, in.selection.layerMask));
  return arrays::runReference(spec, in.m, given, /*seed=*/0, in.selection.selection,
                              {{"eps", in.eps}});
}

Result<runtime::SpecLaunch> launchNorm(const CodeObject &code, const KernelSpec &spec,
                                       const NormInputs &in,
                                       const arrays::ReferenceRun &expected,
                                       emu::WorkgroupOrder order, uint64_t orderSeed,
                                       uint8_t poison, const LaunchValues *launchValues) {
  // x and the residual at their row strides, the gaps holding NaNs.
  const size_t k = size_t(spec.K);
  runtime::HostArrays strided{{"x", rowBytes(in.x, k, in.xStride)}};
  runtime::SpecLaunchOptions options;
  options.values = launchValues ? *launchValues : LaunchValues{{"eps", in.eps}};
  if (in.xStride)
    options.rowStrides["x"] = in.xStride;
  if (spec.add && !in.residual.empty()) {
    strided["residual"] = rowBytes(in.residual, k, in.residualStride);
    if (in.residualStride)
      options.rowStrides["residual"] = in.residualStride;
  }
  return launchWithReference(code, spec, in.m, expected, order, orderSeed, poison, options,
                             strided);
}

} // namespace mxf::e2e
