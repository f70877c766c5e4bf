//===- e2e_runner.cpp - Compile a spec, launch it on the emu device -------===//
//
// Buffer shapes come from kernelOperands(spec) and the grid from the tiling,
// never from constants here, so that the suite follows the kernel's
// declared interface rather than restating it.
//
//===----------------------------------------------------------------------===//

#include "tests/e2e/e2e_runner.h"

#include "compiler/compiler.h"
#include "compiler/default_frontend.h"
#include "dialects/mxf/kernel_signature.h"
#include "numerics/rotation.h"
#include "spec/reference_problem.h"

#include <chrono>
#include <cstring>
#include <string>

namespace mxf::e2e {
namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// Byte count of a kernel operand at its static (bucket) shape.
size_t operandBytes(const KernelOperand &op) {
  size_t n = op.element == OperandElement::Bf16 ? 2 : op.element == OperandElement::I32 ? 4 : 1;
  for (int64_t d : op.shape)
    n *= size_t(d);
  return n;
}

const KernelOperand *findOperand(const std::vector<KernelOperand> &ops, const char *name) {
  for (const KernelOperand &op : ops)
    if (std::strcmp(op.name, name) == 0)
      return &op;
  return nullptr;
}

} // namespace

RotateQuantProblem problemFor(const KernelSpec &spec, ScaleLayout layout) {
  RotateQuantProblem problem = rotateQuantProblem(spec, /*seed=*/0);
  problem.scaleLayout = layout;
  return problem;
}

Result<LoadedKernel> compileAndLoad(runtime::Device &device, const KernelSpec &spec) {
  installDefaultSpecFrontend();
  LoadedKernel out;
  out.spec = spec;
  if (Status supported = checkRotateQuantSupported(spec); !supported.ok())
    return supported;
  out.tiling = chooseRotateQuantTiling(spec);

  const std::vector<KernelOperand> ops = kernelOperands(spec);
  const KernelOperand *q = findOperand(ops, "q");
  const KernelOperand *s = findOperand(ops, "s");
  if (!q || !s || q->shape.size() != 2 || s->shape.size() != 2)
    return Result<LoadedKernel>::failure("kernelOperands has no 2-D q and s for " +
                                         printSpec(spec));
  out.shape.k = size_t(spec.K);
  out.shape.bucket = size_t(q->shape[0]);
  out.shape.qCols = size_t(q->shape[1]);
  out.shape.sRows = size_t(s->shape[0]);
  out.shape.sCols = size_t(s->shape[1]);
  out.shape.layout = spec.layout;
  if (const KernelOperand *r = findOperand(ops, "r"))
    out.rElements = operandBytes(*r) / 2;
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

Result<RunOutputs> runKernel(runtime::Device &device, const LoadedKernel &kernel,
                             const RunInputs &inputs) {
  const OutputShape &shape = kernel.shape;
  const size_t k = shape.k;
  if (inputs.m < 1 || size_t(inputs.m) > shape.bucket || inputs.x.size() != size_t(inputs.m) * k ||
      inputs.r.size() != kernel.rElements)
    return Result<RunOutputs>::failure("runKernel: inputs do not match the spec");

  RunOutputs out;
  out.q.assign(shape.bucket * shape.qCols, inputs.poison);
  out.s.assign(shape.sRows * shape.sCols, inputs.poison);

  auto allocate = [&](size_t bytes, const void *init) -> Result<runtime::ScopedBuffer> {
    Result<runtime::ScopedBuffer> buffer = runtime::ScopedBuffer::allocate(device, bytes);
    if (!buffer.ok())
      return buffer;
    if (Status s = device.copyIn(buffer.value(), 0, init, bytes); !s.ok())
      return s;
    return buffer;
  };
  Result<runtime::ScopedBuffer> x = allocate(inputs.x.size() * 2, inputs.x.data());
  Result<runtime::ScopedBuffer> q = allocate(out.q.size(), out.q.data());
  Result<runtime::ScopedBuffer> s = allocate(out.s.size(), out.s.data());
  if (!x.ok() || !q.ok() || !s.ok())
    return Status::failure(!x.ok() ? x.error() : !q.ok() ? q.error() : s.error());
  Result<runtime::ScopedBuffer> r = runtime::ScopedBuffer();
  if (kernel.rElements) {
    r = allocate(inputs.r.size() * 2, inputs.r.data());
    if (!r.ok())
      return r.status();
  }

  runtime::KernelArgs args;
  args.buffer(x.value());
  if (kernel.rElements)
    args.buffer(r.value());
  args.buffer(q.value()).buffer(s.value()).value(int32_t(inputs.m));

  out.grid = kernel.tiling.gridFor(inputs.m);
  runtime::LaunchConfig config;
  config.grid = {out.grid[0], out.grid[1], out.grid[2]};
  config.workgroup = {uint32_t(kernel.tiling.workgroupSize()), 1, 1};
  const Clock::time_point start = Clock::now();
  if (Status launched = device.launch(kernel.kernel, config, args, &out.report); !launched.ok())
    return launched;
  out.emulateMs = msSince(start);
  if (Status st = device.copyOut(q.value(), 0, out.q.data(), out.q.size()); !st.ok())
    return st;
  if (Status st = device.copyOut(s.value(), 0, out.s.data(), out.s.size()); !st.ok())
    return st;
  return out;
}

Result<QuantizedRows> referenceFor(const KernelSpec &spec, const RunInputs &inputs) {
  return rotateQuant(problemFor(spec, ScaleLayout::Plain), inputs.x.data(), size_t(inputs.m),
                     inputs.r.empty() ? nullptr : inputs.r.data());
}

} // namespace mxf::e2e
