//===- spec_launcher.cpp - Run a spec's kernel on host arrays -------------===//

#include "runtime/spec_launcher.h"

#include "dialects/mxf/kernel_signature.h"
#include "runtime/kernel_args.h"
#include "templates/tiling.h"

namespace mxf::runtime {
namespace {

uint64_t elementBytes(OperandElement element) {
  switch (element) {
  case OperandElement::Bf16: return 2;
  case OperandElement::I8: return 1;
  case OperandElement::I32: return 4;
  }
  return 1;
}

uint64_t bytesOf(const KernelOperand &operand) {
  uint64_t n = elementBytes(operand.element);
  for (int64_t d : operand.shape)
    n *= uint64_t(d);
  return n;
}

} // namespace

Result<uint64_t> operandBytes(const KernelSpec &spec, const std::string &name) {
  if (Status valid = validateSpec(spec); !valid.ok())
    return valid;
  for (const KernelOperand &operand : kernelOperands(spec))
    if (name == operand.name)
      return bytesOf(operand);
  return Result<uint64_t>::failure("'" + name + "' is not an operand of " + printSpec(spec));
}

namespace {

Status checkRows(const KernelSpec &spec, int m) {
  if (Status supported = checkRotateQuantSupported(spec); !supported.ok())
    return supported;
  if (m < 1 || m > spec.M)
    return Status::failure("M=" + std::to_string(m) + " is outside 1.." + std::to_string(spec.M) +
                           " (the bucket of " + printSpec(spec) + ")");
  return Status::success();
}

LaunchConfig launchConfigFor(const KernelSpec &spec, int m) {
  const KernelTiling tiling = chooseRotateQuantTiling(spec);
  const std::array<uint32_t, 3> grid = tiling.gridFor(m);
  LaunchConfig config;
  config.grid = {grid[0], grid[1], grid[2]};
  config.workgroup = {uint32_t(tiling.workgroupSize()), 1, 1};
  return config;
}

} // namespace

Status launchSpecKernel(Device &device, const Kernel &kernel, const KernelSpec &spec, int m,
                        const std::vector<KernelArg> &operands, void *stream,
                        LaunchReport *report) {
  if (Status rows = checkRows(spec, m); !rows.ok())
    return rows;
  const size_t expected = kernelOperands(spec).size();
  if (operands.size() != expected)
    return Status::failure(printSpec(spec) + " takes " + std::to_string(expected) +
                           " operands, " + std::to_string(operands.size()) + " were given");
  KernelArgs args;
  for (const KernelArg &operand : operands)
    args.add(operand);
  if (kernelHasRowsOperand(spec.op))
    args.value(int32_t(m));
  LaunchConfig config = launchConfigFor(spec, m);
  config.stream = stream;
  return device.launch(kernel, config, args, report);
}

Result<SpecLaunch> launchSpec(Device &device, const std::vector<uint8_t> &hsaco,
                              const KernelInfo &kernel, const KernelSpec &spec, int m,
                              const HostArrays &inputs, const SpecLaunchOptions &options) {
  if (Status rows = checkRows(spec, m); !rows.ok())
    return rows;
  const std::vector<KernelOperand> operands = kernelOperands(spec);
  for (const auto &[name, bytes] : inputs) {
    bool known = false;
    for (const KernelOperand &operand : operands)
      known |= name == operand.name && !operand.written;
    if (!known)
      return Result<SpecLaunch>::failure("'" + name + "' is not an input of " + printSpec(spec));
  }

  Result<Module> module = device.loadCodeObject(hsaco, {kernel});
  if (!module.ok())
    return module.status();
  Result<Kernel> handle = device.getKernel(module.value(), kernel.name);
  if (!handle.ok())
    return handle.status();

  std::vector<ScopedBuffer> buffers;
  std::vector<KernelArg> args;
  for (const KernelOperand &operand : operands) {
    const uint64_t size = bytesOf(operand);
    Result<ScopedBuffer> buffer = ScopedBuffer::allocate(device, size);
    if (!buffer.ok())
      return buffer.status();
    const std::vector<uint8_t> *contents = nullptr;
    std::vector<uint8_t> poison;
    if (!operand.written) {
      auto it = inputs.find(operand.name);
      if (it == inputs.end())
        return Result<SpecLaunch>::failure(std::string("input '") + operand.name +
                                           "' is missing (" + operand.derivation + ")");
      contents = &it->second;
    } else if (auto it = options.initialOutputs.find(operand.name);
               it != options.initialOutputs.end()) {
      contents = &it->second;
    } else {
      poison.assign(size, options.poison);
      contents = &poison;
    }
    if (contents->size() != size)
      return Result<SpecLaunch>::failure(std::string("'") + operand.name + "' has " +
                                         std::to_string(contents->size()) + " bytes, expected " +
                                         std::to_string(size) + " (" + operand.derivation + ")");
    if (Status copied = device.copyIn(buffer.value(), 0, contents->data(), size); !copied.ok())
      return copied;
    args.push_back(KernelArg::buffer(buffer.value().get()));
    buffers.push_back(std::move(buffer.value()));
  }
  SpecLaunch result;
  const LaunchConfig config = launchConfigFor(spec, m);
  result.grid = config.grid;
  result.workgroup = config.workgroup;
  if (Status launched =
          launchSpecKernel(device, handle.value(), spec, m, args, nullptr, &result.report);
      !launched.ok())
    return launched;
  if (Status synced = device.synchronize(); !synced.ok())
    return synced;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i].written)
      continue;
    std::vector<uint8_t> bytes(buffers[i].get().size);
    if (Status copied = device.copyOut(buffers[i].get(), 0, bytes.data(), bytes.size());
        !copied.ok())
      return copied;
    result.outputs[operands[i].name] = std::move(bytes);
  }
  (void)device.unloadModule(module.value());
  return result;
}

} // namespace mxf::runtime
