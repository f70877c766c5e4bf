//===- spec_launcher.cpp - Launch a compiled spec's kernel ----------------===//

#include "runtime/spec_launcher.h"

#include "abi/operands.h"
#include "runtime/kernel_args.h"

#include <limits>

namespace mxf::runtime {
namespace {

Status checkStrideNames(const KernelSpec &spec, const RowStrides &strides) {
  for (const auto &[name, stride] : strides)
    if (Result<KernelOperand> operand = findKernelOperand(spec, spec.M, name); !operand.ok())
      return operand.status();
  return Status::success();
}

Status checkRows(const KernelSpec &spec, const LaunchRecord &record, int m) {
  if (Status valid = validateSpec(spec); !valid.ok())
    return valid;
  if (Status valid = record.validate(); !valid.ok())
    return valid;
  // Up to the code's class limit: the spec's M bucket only names the class.
  if (Status rows = checkLaunchRows(spec, record, m); !rows.ok())
    return rows;
  return record.checkRows(m);
}

} // namespace

Result<int64_t> rowStrideOf(const KernelOperand &operand, const RowStrides &strides) {
  auto it = strides.find(operand.name);
  if (it == strides.end())
    return operand.rowElements();
  if (!operand.strided())
    return Result<int64_t>::failure(std::string("'") + operand.name +
                                    "' takes no row stride (its rows are dense)");
  if (it->second < operand.rowElements() || it->second > std::numeric_limits<int32_t>::max())
    return Result<int64_t>::failure(std::string("the row stride of '") + operand.name + "' is " +
                                    std::to_string(it->second) + "; it must be at least " +
                                    std::to_string(operand.rowElements()) +
                                    " (the row) and fit in an i32");
  return it->second;
}

LaunchConfig launchConfigFor(const LaunchRecord &record, int m) {
  const std::array<uint32_t, 3> grid = record.gridFor(uint32_t(m));
  LaunchConfig config;
  config.grid = {grid[0], grid[1], grid[2]};
  config.workgroup = {record.workgroupSize, 1, 1};
  return config;
}

Result<uint64_t> operandBytes(const KernelSpec &spec, int m, const std::string &name,
                              const RowStrides &strides) {
  if (Status valid = validateSpec(spec); !valid.ok())
    return valid;
  Result<KernelOperand> operand = findKernelOperand(spec, m, name);
  if (!operand.ok())
    return operand.status();
  Result<int64_t> stride = rowStrideOf(operand.value(), strides);
  if (!stride.ok())
    return stride.status();
  return operandSpanBytes(operand.value(), stride.value());
}

Result<SpecLaunchArgs> specLaunchArgs(const KernelSpec &spec, const LaunchRecord &record, int m,
                                      const std::vector<KernelArg> &operands,
                                      const RowStrides &strides, void *stream,
                                      std::optional<int64_t> selection) {
  if (Status rows = checkRows(spec, record, m); !rows.ok())
    return rows;
  if (Status selects = checkSelectionValue(spec, selection); !selects.ok())
    return selects;
  if (Status names = checkStrideNames(spec, strides); !names.ok())
    return names;
  const std::vector<KernelOperand> table = kernelOperands(spec, m);
  if (operands.size() != table.size())
    return Status::failure(printSpec(spec) + " takes " + std::to_string(table.size()) +
                           " operands, " + std::to_string(operands.size()) + " were given");
  KernelArgs args;
  std::vector<int32_t> strideValues;
  for (size_t i = 0; i < table.size(); ++i) {
    const KernelOperand &operand = table[i];
    Result<int64_t> stride = rowStrideOf(operand, strides);
    if (!stride.ok())
      return stride.status();
    if (operand.strided())
      strideValues.push_back(int32_t(stride.value()));
    const KernelArg &arg = operands[i];
    const uint64_t needed = operandSpanBytes(operand, stride.value());
    if (arg.kind() == KernelArg::Kind::Pointer && arg.fromBuffer() &&
        arg.bufferSize() - std::min(arg.bufferSize(), arg.byteOffset()) < needed)
      return Status::failure(std::string("'") + operand.name + "' has " +
                             std::to_string(arg.bufferSize() - std::min(arg.bufferSize(),
                                                                         arg.byteOffset())) +
                             " bytes, m=" + std::to_string(m) + " rows need " +
                             std::to_string(needed) + " (" + operand.derivation +
                             (operand.strided() ? ", row stride " + std::to_string(stride.value())
                                                : std::string()) +
                             ")");
    args.add(arg);
  }
  if (kernelHasRowsOperand(spec.op))
    args.value(int32_t(m));
  for (int32_t stride : strideValues)
    args.value(stride);
  if (selection)
    args.value(int32_t(*selection));
  SpecLaunchArgs prepared;
  prepared.args = std::move(args);
  prepared.config = launchConfigFor(record, m);
  prepared.config.stream = stream;
  return prepared;
}

Status launchSpecKernel(Device &device, const Kernel &kernel, const KernelSpec &spec,
                        const LaunchRecord &record, int m, const std::vector<KernelArg> &operands,
                        const RowStrides &strides, void *stream, LaunchReport *report,
                        std::optional<int64_t> selection) {
  Result<SpecLaunchArgs> prepared =
      specLaunchArgs(spec, record, m, operands, strides, stream, selection);
  if (!prepared.ok())
    return prepared.status();
  return device.launch(kernel, prepared.value().config, prepared.value().args, report);
}

Result<SpecLaunch> launchSpec(Device &device, const std::vector<uint8_t> &hsaco,
                              const KernelInfo &kernel, const LaunchRecord &record,
                              const KernelSpec &spec, int m, const HostArrays &inputs,
                              const SpecLaunchOptions &options) {
  if (Status rows = checkRows(spec, record, m); !rows.ok())
    return rows;
  if (Status names = checkStrideNames(spec, options.rowStrides); !names.ok())
    return names;
  if (Status selects = checkSelectionValue(spec, options.selection); !selects.ok())
    return selects;
  if (Status agrees = record.checkAgainst(kernel); !agrees.ok())
    return agrees;
  const std::vector<KernelOperand> operands = kernelOperands(spec, m);
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
    Result<int64_t> stride = rowStrideOf(operand, options.rowStrides);
    if (!stride.ok())
      return stride.status();
    const uint64_t size = operandSpanBytes(operand, stride.value());
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
  const LaunchConfig config = launchConfigFor(record, m);
  result.grid = config.grid;
  result.workgroup = config.workgroup;
  if (Status launched = launchSpecKernel(device, handle.value(), spec, record, m, args,
                                         options.rowStrides, nullptr, &result.report,
                                         options.selection);
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
