//===- spec_launcher.cpp - Launch a compiled spec's kernel ----------------===//

#include "runtime/spec_launcher.h"

#include "abi/operands.h"
#include "runtime/kernel_args.h"

#include <limits>

namespace mxf::runtime {

Result<int64_t> rowStrideOf(const KernelOperand &operand, std::optional<int64_t> stride) {
  if (!stride)
    return operand.rowElements();
  if (!operand.strided())
    return Result<int64_t>::failure(std::string("'") + operand.name +
                                    "' takes no row stride (its rows are dense)");
  if (*stride < operand.rowElements() || *stride > std::numeric_limits<int32_t>::max())
    return Result<int64_t>::failure(std::string("the row stride of '") + operand.name + "' is " +
                                    std::to_string(*stride) + "; it must be at least " +
                                    std::to_string(operand.rowElements()) +
                                    " (the row) and fit in an i32");
  return *stride;
}

Result<int64_t> rowStrideOf(const KernelOperand &operand, const RowStrides &strides) {
  auto it = strides.find(operand.name);
  return rowStrideOf(operand, it == strides.end() ? std::nullopt
                                                  : std::optional<int64_t>(it->second));
}

LaunchConfig launchConfigFor(const LaunchRecord &record, int m) {
  const std::array<uint32_t, 3> grid = record.gridFor(uint32_t(m));
  LaunchConfig config;
  config.grid = {grid[0], grid[1], grid[2]};
  config.workgroup = {record.workgroupSize, 1, 1};
  return config;
}

struct SpecLauncher::State {
  KernelSpec spec;
  LaunchRecord record;
  std::vector<KernelOperand> operands;
  /// Operands by row count, built on first use: a launch for m rows needs
  /// their shapes (padding makes them more than m times a row).
  mutable std::mutex mutex;
  mutable std::map<int, std::unique_ptr<const std::vector<KernelOperand>>> byRows;
};

Result<SpecLauncher> SpecLauncher::create(const KernelSpec &spec, const LaunchRecord &record) {
  if (Status valid = validateSpec(spec); !valid.ok())
    return valid;
  if (Status valid = record.validate(); !valid.ok())
    return valid;
  auto state = std::make_shared<State>();
  state->spec = spec;
  state->record = record;
  state->operands = kernelOperands(spec);
  return SpecLauncher(std::move(state));
}

const KernelSpec &SpecLauncher::spec() const { return state_->spec; }
const LaunchRecord &SpecLauncher::record() const { return state_->record; }
const std::vector<KernelOperand> &SpecLauncher::operands() const { return state_->operands; }

const std::vector<KernelOperand> &SpecLauncher::operandsAt(int m) const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  std::unique_ptr<const std::vector<KernelOperand>> &entry = state_->byRows[m];
  if (!entry)
    entry = std::make_unique<const std::vector<KernelOperand>>(kernelOperands(state_->spec, m));
  return *entry; // the map's nodes never move
}

Result<size_t> SpecLauncher::operandIndex(const std::string &name) const {
  std::string names;
  for (size_t i = 0; i < operands().size(); ++i) {
    if (name == operands()[i].name)
      return i;
    names += names.empty() ? "" : ", ";
    names += operands()[i].name;
  }
  return Result<size_t>::failure("'" + name + "' is not an operand of " + printSpec(spec()) +
                                 " (its operands: " + names + ")");
}

Status SpecLauncher::checkRows(int m) const {
  // Up to the code's class limit: the spec's M bucket only names the class.
  if (Status rows = checkLaunchRows(spec(), record(), m); !rows.ok())
    return rows;
  return record().checkRows(m);
}

Result<SpecLaunchArgs> SpecLauncher::prepare(int m, const std::vector<KernelArg> &operands,
                                             const RowStrides &strides, void *stream,
                                             std::optional<int64_t> selection,
                                             const LaunchValues &values) const {
  std::vector<std::optional<int64_t>> byPosition(this->operands().size());
  for (const auto &[name, stride] : strides) {
    Result<size_t> index = operandIndex(name);
    if (!index.ok())
      return index.status();
    byPosition[index.value()] = stride;
  }
  return prepare(m, operands, byPosition, stream, selection, values);
}

Result<SpecLaunchArgs> SpecLauncher::prepare(int m, const std::vector<KernelArg> &operands,
                                             const std::vector<std::optional<int64_t>> &strides,
                                             void *stream,
                                             std::optional<int64_t> selection,
                                             const LaunchValues &values) const {
  const std::vector<KernelOperand> &table = this->operands();
  if (operands.size() != table.size())
    return Status::failure(printSpec(spec()) + " takes " + std::to_string(table.size()) +
                           " operands, " + std::to_string(operands.size()) + " were given");
  if (!strides.empty() && strides.size() != table.size())
    return Status::failure("the row strides name " + std::to_string(strides.size()) +
                           " operands, " + printSpec(spec()) + " takes " +
                           std::to_string(table.size()));
  if (Status rows = checkRows(m); !rows.ok())
    return rows;
  if (Status selects = checkSelectionValue(spec(), selection); !selects.ok())
    return selects;
  if (Status valued = checkLaunchValues(spec(), values); !valued.ok())
    return valued;
  const std::vector<KernelOperand> &atM = operandsAt(m);
  SpecLaunchArgs prepared;
  std::vector<int32_t> strideValues;
  for (size_t i = 0; i < atM.size(); ++i) {
    const KernelOperand &operand = atM[i];
    Result<int64_t> stride =
        rowStrideOf(operand, strides.empty() ? std::nullopt : strides[i]);
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
    prepared.args.add(arg);
    prepared.operandSpans.push_back(needed);
  }
  if (kernelHasRowsOperand(spec().op))
    prepared.args.value(int32_t(m));
  for (int32_t stride : strideValues)
    prepared.args.value(stride);
  if (selection)
    prepared.args.value(int32_t(*selection));
  for (const ValueArg &value : kernelValueArgs(spec()))
    prepared.args.value(launchValueBits(values.at(value.name)));
  prepared.config = launchConfigFor(record(), m);
  prepared.config.stream = stream;
  return prepared;
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
                                      std::optional<int64_t> selection,
                                      const LaunchValues &values) {
  Result<SpecLauncher> launcher = SpecLauncher::create(spec, record);
  if (!launcher.ok())
    return launcher.status();
  return launcher.value().prepare(m, operands, strides, stream, selection, values);
}

Status launchSpecKernel(Device &device, const Kernel &kernel, const KernelSpec &spec,
                        const LaunchRecord &record, int m, const std::vector<KernelArg> &operands,
                        const RowStrides &strides, void *stream, LaunchReport *report,
                        std::optional<int64_t> selection, const LaunchValues &values) {
  Result<SpecLaunchArgs> prepared =
      specLaunchArgs(spec, record, m, operands, strides, stream, selection, values);
  if (!prepared.ok())
    return prepared.status();
  return device.launch(kernel, prepared.value().config, prepared.value().args, report);
}

Result<SpecLaunch> launchSpec(Device &device, const std::vector<uint8_t> &hsaco,
                              const KernelInfo &kernel, const LaunchRecord &record,
                              const KernelSpec &spec, int m, const HostArrays &inputs,
                              const SpecLaunchOptions &options) {
  Result<SpecLauncher> launcher = SpecLauncher::create(spec, record);
  if (!launcher.ok())
    return launcher.status();
  if (Status agrees = record.checkAgainst(kernel); !agrees.ok())
    return agrees;
  // Every check of the launch, before any memory is allocated: null
  // placeholders for the buffers, which are then allocated at the spans the
  // checked launch reports.
  const std::vector<KernelArg> placeholders(launcher.value().operands().size(),
                                            KernelArg::nullPointer());
  Result<SpecLaunchArgs> prepared = launcher.value().prepare(
      m, placeholders, options.rowStrides, nullptr, options.selection, options.values);
  if (!prepared.ok())
    return prepared.status();
  const std::vector<KernelOperand> &operands = launcher.value().operandsAt(m);
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
  for (size_t i = 0; i < operands.size(); ++i) {
    const KernelOperand &operand = operands[i];
    const uint64_t size = prepared.value().operandSpans[i];
    Result<ScopedBuffer> buffer = ScopedBuffer::allocate(device, size);
    if (!buffer.ok())
      return buffer.status();
    const std::vector<uint8_t> *contents = nullptr;
    std::vector<uint8_t> poison;
    std::vector<uint8_t> zeros;
    if (!operand.written) {
      auto it = inputs.find(operand.name);
      if (it == inputs.end() && operand.workspace) {
        zeros.assign(size, 0); // what a fresh workspace holds
        contents = &zeros;
      } else if (it == inputs.end())
        return Result<SpecLaunch>::failure(std::string("input '") + operand.name +
                                           "' is missing (" + operand.derivation + ")");
      else
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
    prepared.value().args.replace(i, KernelArg::buffer(buffer.value().get()));
    buffers.push_back(std::move(buffer.value()));
  }
  SpecLaunch result;
  result.grid = prepared.value().config.grid;
  result.workgroup = prepared.value().config.workgroup;
  if (Status launched = device.launch(handle.value(), prepared.value().config,
                                      prepared.value().args, &result.report);
      !launched.ok())
    return launched;
  if (Status synced = device.synchronize(); !synced.ok())
    return synced;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i].written && !operands[i].workspace)
      continue;
    std::vector<uint8_t> bytes(buffers[i].get().size);
    if (Status copied = device.copyOut(buffers[i].get(), 0, bytes.data(), bytes.size());
        !copied.ok())
      return copied;
    (operands[i].written ? result.outputs : result.workspaces)[operands[i].name] =
        std::move(bytes);
  }
  if (options.whileLoaded)
    if (Status s = options.whileLoaded(device, handle.value(), prepared.value().config,
                                       prepared.value().args);
        !s.ok())
      return s;
  (void)device.unloadModule(module.value());
  return result;
}

} // namespace mxf::runtime
