//===- e2e_runner.cpp - Compile a spec, launch it on the emu device -------===//
//
// Buffer shapes come from kernelOperands(spec, m) and the grid from the
// launch record compiled with the code, never from constants here, so that
// the suite follows the kernel's declared interface rather than restating it.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_runner.h"
#include "tests/support/quantizer_tiling.h"
#include "templates/rotate_quant/rules.h"

#include <gtest/gtest.h>

#include "compiler/compiler.h"
#include "abi/operands.h"
#include "runtime/spec_launcher.h"
#include "numerics/rotation.h"
#include "spec/reference_problem.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

namespace mxf::e2e {
namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

} // namespace

runtime::EmuDeviceOptions caseDeviceOptions() {
  runtime::EmuDeviceOptions options;
  options.threads = 1;
  return options;
}

RotateQuantProblem problemFor(const KernelSpec &spec, ScaleLayout layout) {
  RotateQuantProblem problem = rotateQuantProblem(spec, /*seed=*/0);
  problem.scaleLayout = layout;
  return problem;
}

Result<LoadedKernel> compileAndLoad(runtime::Device &device, const KernelSpec &spec) {
  LoadedKernel out;
  out.spec = spec;
  if (Status supported = checkRotateQuantSupported(spec); !supported.ok())
    return supported;
  out.tiling = testing::quantizerTilingOf(spec);

  out.shape = outputShapeAt(spec, spec.M);
  if (out.shape.qCols == 0 || out.shape.sCols == 0)
    return Result<LoadedKernel>::failure("kernelOperands has no 2-D q and s for " +
                                         printSpec(spec));
  if (Result<KernelOperand> r = findKernelOperand(spec, spec.M, "r"); r.ok())
    out.rElements = size_t(r.value().shape[0] * r.value().rowElements());
  if (out.rElements != rotationMatrixElements(spec.rot, spec.RS, size_t(spec.K)))
    return Result<LoadedKernel>::failure("kernelOperands' r disagrees with numerics' "
                                         "rotationMatrixElements for " + printSpec(spec));

  const Clock::time_point start = Clock::now();
  Result<CodeObject> compiled = compileSpec(spec, CompileOptions());
  out.compileMs = msSince(start);
  if (!compiled.ok())
    return compiled.status();
  out.code = std::move(compiled.value());

  Result<runtime::Module> module = device.loadCodeObject(out.code.hsaco, {out.code.kernel});
  if (!module.ok())
    return module.status();
  Result<runtime::Kernel> kernel = device.getKernel(module.value(), out.code.kernel.name);
  if (!kernel.ok())
    return kernel.status();
  out.kernel = kernel.value();
  return out;
}

OutputShape outputShapeAt(const KernelSpec &spec, int m) {
  OutputShape shape;
  for (const KernelOperand &op : kernelOperands(spec, m)) {
    if (std::strcmp(op.name, "q") == 0) {
      shape.bucket = size_t(op.shape[0]);
      shape.qCols = size_t(op.shape[1]);
    } else if (std::strcmp(op.name, "s") == 0) {
      shape.sRows = size_t(op.shape[0]);
      shape.sCols = size_t(op.shape[1]);
    }
  }
  shape.k = size_t(spec.K);
  shape.layout = spec.layout;
  return shape;
}

Result<RunOutputs> runKernel(runtime::Device &device, const LoadedKernel &kernel,
                             const RunInputs &inputs) {
  const size_t k = kernel.shape.k, m = size_t(inputs.m);
  if (inputs.m < 1 || m > kernel.shape.bucket || inputs.x.size() != m * k ||
      inputs.r.size() != kernel.rElements)
    return Result<RunOutputs>::failure("runKernel: inputs do not match the spec");
  const OutputShape shape = outputShapeAt(kernel.spec, inputs.m);
  const size_t xStride = inputs.xStride ? size_t(inputs.xStride) : k;
  const size_t qStride = inputs.qStride ? size_t(inputs.qStride) : shape.qCols;
  // q's rows at the launch: m, or pad256(m) in the (dense) A6W6 tiles.
  const size_t qRows = kernel.spec.layout == ScaleLayout::A6W6Tiles ? shape.bucket : m;
  if (qRows != m && inputs.qStride)
    return Result<RunOutputs>::failure("runKernel: the A6W6 tiles have no q_stride");

  // x's rows at their stride; the gaps hold a pattern no row has.
  std::vector<uint16_t> xStrided((m - 1) * xStride + k);
  for (size_t i = 0; i < xStrided.size(); ++i)
    xStrided[i] = uint16_t(0x7FC1 + i % 7); // bf16 NaNs: garbage if ever read
  for (size_t row = 0; row < m; ++row)
    std::copy_n(inputs.x.begin() + row * k, k, xStrided.begin() + row * xStride);
  std::vector<uint8_t> qBuffer((qRows - 1) * qStride + shape.qCols, inputs.poison);
  RunOutputs out;
  out.s.assign(shape.sRows * shape.sCols, inputs.poison);

  auto allocate = [&](size_t bytes, const void *init) -> Result<runtime::ScopedBuffer> {
    Result<runtime::ScopedBuffer> buffer = runtime::ScopedBuffer::allocate(device, bytes);
    if (!buffer.ok())
      return buffer;
    if (Status s = device.copyIn(buffer.value(), 0, init, bytes); !s.ok())
      return s;
    return buffer;
  };
  Result<runtime::ScopedBuffer> x = allocate(xStrided.size() * 2, xStrided.data());
  Result<runtime::ScopedBuffer> q = allocate(qBuffer.size(), qBuffer.data());
  Result<runtime::ScopedBuffer> s = allocate(out.s.size(), out.s.data());
  if (!x.ok() || !q.ok() || !s.ok())
    return Status::failure(!x.ok() ? x.error() : !q.ok() ? q.error() : s.error());
  Result<runtime::ScopedBuffer> r = runtime::ScopedBuffer();
  if (kernel.rElements) {
    r = allocate(inputs.r.size() * 2, inputs.r.data());
    if (!r.ok())
      return r.status();
  }

  // round=sr: the seed operand after r (abi/operands.h).
  Result<runtime::ScopedBuffer> seed = runtime::ScopedBuffer();
  if (kernel.spec.round == Rounding::Sr) {
    seed = allocate(sizeof(inputs.seed), &inputs.seed);
    if (!seed.ok())
      return seed.status();
  }

  // select=mask: layer_mask after the seed (abi/operands.h).
  Result<runtime::ScopedBuffer> layerMask = runtime::ScopedBuffer();
  if (kernel.spec.select == RotationSelect::Mask) {
    if (inputs.layerMask.size() != size_t(kernel.spec.layers))
      return Result<RunOutputs>::failure("runKernel: layer_mask does not have layers entries");
    layerMask = allocate(inputs.layerMask.size() * 4, inputs.layerMask.data());
    if (!layerMask.ok())
      return layerMask.status();
  }

  std::vector<runtime::KernelArg> args{runtime::KernelArg::buffer(x.value().get())};
  if (kernel.rElements)
    args.push_back(runtime::KernelArg::buffer(r.value().get()));
  if (kernel.spec.round == Rounding::Sr)
    args.push_back(runtime::KernelArg::buffer(seed.value().get()));
  if (kernel.spec.select == RotationSelect::Mask)
    args.push_back(runtime::KernelArg::buffer(layerMask.value().get()));
  args.push_back(runtime::KernelArg::buffer(q.value().get()));
  args.push_back(runtime::KernelArg::buffer(s.value().get()));
  runtime::RowStrides strides;
  if (inputs.xStride)
    strides["x"] = inputs.xStride;
  if (inputs.qStride)
    strides["q"] = inputs.qStride;

  const std::array<uint32_t, 3> grid = kernel.code.launch.gridFor(uint32_t(inputs.m));
  out.grid = grid;
  const Clock::time_point start = Clock::now();
  if (Status launched = runtime::launchSpecKernel(device, kernel.kernel, kernel.spec,
                                                  kernel.code.launch, inputs.m, args, strides,
                                                  nullptr, &out.report, inputs.selection);
      !launched.ok())
    return launched;
  out.emulateMs = msSince(start);
  if (Status st = device.copyOut(q.value(), 0, qBuffer.data(), qBuffer.size()); !st.ok())
    return st;
  if (Status st = device.copyOut(s.value(), 0, out.s.data(), out.s.size()); !st.ok())
    return st;
  out.q.resize(qRows * shape.qCols);
  for (size_t row = 0; row < qRows; ++row) {
    std::copy_n(qBuffer.begin() + row * qStride, shape.qCols, out.q.begin() + row * shape.qCols);
    if (row + 1 < qRows)
      for (size_t i = row * qStride + shape.qCols; i < (row + 1) * qStride; ++i)
        out.qGapBytesWritten += qBuffer[i] != inputs.poison;
  }
  return out;
}

bool RunInputs::rotates(const KernelSpec &spec) const {
  return selectionRotates(spec, selection.value_or(0), layerMask.data());
}

Result<QuantizedRows> referenceFor(const KernelSpec &spec, const RunInputs &inputs) {
  // Selective rotation: the rotated or the quant-only spec's result, bit
  // for bit, as the launch's selection says.
  const KernelSpec launched = selectedSpec(spec, inputs.rotates(spec));
  RotateQuantProblem problem = problemFor(launched, ScaleLayout::Plain);
  problem.quant.seed = inputs.seed;
  return rotateQuant(problem, inputs.x.data(), size_t(inputs.m),
                     inputs.r.empty() || launched.RS == 0 ? nullptr : inputs.r.data());
}

std::string matrixTestName(const KernelSpec &spec, size_t index) {
  std::string name = kernelName(spec);
  const std::string prefix = std::string("mxf_") + kernelOpName(spec.op) + "_", suffix = "_gfx950";
  if (name.rfind(prefix, 0) == 0)
    name = name.substr(prefix.size());
  if (name.size() > suffix.size() &&
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
    name.resize(name.size() - suffix.size());
  char number[8];
  std::snprintf(number, sizeof number, "%03zu_", index);
  return number + name;
}

std::string currentTestName() {
  const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string(info->test_suite_name()) + "." + info->name();
}

Result<CodeObject> compileMatrixSpec(const KernelSpec &spec) {
  std::printf("[ spec     ] %s\n", printSpec(spec).c_str());
  Result<CodeObject> code = compileSpec(spec, CompileOptions());
  if (code.ok()) {
    EXPECT_EQ(code.value().kernel.scratchBytes, 0u) << printSpec(spec);
  }
  return code;
}

} // namespace mxf::e2e
