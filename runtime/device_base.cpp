//===- device_base.cpp - Handle tables and checks shared by backends ------===//
//
// The mutex guards the tables only; backend hooks run outside it where they
// may take long (copies, launches), so two threads can copy or launch at
// once. Allocation, free, load and unload hold it across the hook so that
// the table never disagrees with the backend.
//
//===----------------------------------------------------------------------===//

#include "runtime/device_base.h"

#include <algorithm>
#include <cstring>

#include <cstdio>
#include <set>

namespace mxf::runtime {

namespace {

std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

std::string describeBuffer(DeviceBuffer buffer) {
  return "the " + std::to_string(buffer.size) + "-byte buffer at " + hex(buffer.address);
}

} // namespace

//===--- Memory ---------------------------------------------------------------===//

Result<DeviceBuffer> DeviceBase::allocate(uint64_t bytes) {
  if (bytes == 0)
    return Status::failure("allocate on the " + deviceName() +
                           ": 0 bytes requested; a buffer needs at least one byte");
  std::lock_guard<std::mutex> lock(mutex_);
  Result<uint64_t> address = backendAllocate(bytes);
  if (!address.ok())
    return Status::failure("allocate " + std::to_string(bytes) + " bytes on the " + deviceName() +
                           ": " + address.error());
  buffers_[address.value()] = bytes;
  return DeviceBuffer{address.value(), bytes};
}

Status DeviceBase::checkBuffer(const char *operation, DeviceBuffer buffer) const {
  auto it = buffers_.find(buffer.address);
  if (buffer.address == 0)
    return Status::failure(std::string(operation) + ": the buffer is null (address 0)");
  if (it == buffers_.end())
    return Status::failure(std::string(operation) + ": " + describeBuffer(buffer) +
                           " is not a live buffer of this " + deviceName() +
                           " (already freed, or allocated elsewhere)");
  if (it->second != buffer.size)
    return Status::failure(std::string(operation) + ": the buffer at " + hex(buffer.address) +
                           " has " + std::to_string(it->second) + " bytes, but the handle says " +
                           std::to_string(buffer.size) + " (a modified handle?)");
  return Status::success();
}

Status DeviceBase::checkRange(const char *operation, DeviceBuffer buffer, uint64_t offset,
                              uint64_t bytes, const void *host) const {
  if (Status s = checkBuffer(operation, buffer); !s.ok())
    return s;
  // Written so that huge offsets cannot wrap around.
  if (offset > buffer.size || bytes > buffer.size - offset)
    return Status::failure(std::string(operation) + ": bytes [" + std::to_string(offset) + ", " +
                           (offset + bytes >= offset
                                ? std::to_string(offset + bytes)
                                : std::to_string(offset) + " + " + std::to_string(bytes)) +
                           ") are outside " + describeBuffer(buffer));
  if (bytes != 0 && host == nullptr)
    return Status::failure(std::string(operation) + ": the host pointer is null");
  return Status::success();
}

Status DeviceBase::free(DeviceBuffer buffer) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Status s = checkBuffer("free", buffer); !s.ok())
    return s;
  buffers_.erase(buffer.address);
  return backendFree(buffer.address, buffer.size);
}

Status DeviceBase::copyIn(DeviceBuffer buffer, uint64_t offset, const void *host, uint64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (Status s = checkRange("copyIn", buffer, offset, bytes, host); !s.ok())
      return s;
  }
  if (bytes == 0)
    return Status::success();
  return backendCopyIn(buffer.address + offset, host, bytes);
}

Status DeviceBase::copyOut(DeviceBuffer buffer, uint64_t offset, void *host, uint64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (Status s = checkRange("copyOut", buffer, offset, bytes, host); !s.ok())
      return s;
  }
  if (bytes == 0)
    return Status::success();
  return backendCopyOut(buffer.address + offset, host, bytes);
}

size_t DeviceBase::liveBufferCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return buffers_.size();
}

size_t DeviceBase::liveModuleCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return modules_.size();
}

//===--- Code objects -----------------------------------------------------------===//

Result<Module> DeviceBase::loadCodeObject(const void *data, size_t size,
                                          std::vector<KernelInfo> kernels) {
  if (data == nullptr || size == 0)
    return Status::failure("loadCodeObject on the " + deviceName() + ": the code object is empty");
  std::set<std::string> names;
  for (const KernelInfo &info : kernels) {
    if (info.name.empty())
      return Status::failure("loadCodeObject: a KernelInfo has no name");
    if (!names.insert(info.name).second)
      return Status::failure("loadCodeObject: two KernelInfos are named '" + info.name + "'");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  Result<uint64_t> backendModule = backendLoad(data, size, kernels);
  if (!backendModule.ok())
    return Status::failure("loadCodeObject on the " + deviceName() + ": " + backendModule.error());
  ModuleEntry entry;
  entry.backendModule = backendModule.value();
  for (KernelInfo &info : kernels)
    entry.kernels.push_back(std::make_shared<const KernelInfo>(std::move(info)));
  uint64_t id = nextModuleId_++;
  modules_.emplace(id, std::move(entry));
  return Module{id};
}

Status DeviceBase::unloadModule(Module module) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = modules_.find(module.id);
  if (it == modules_.end())
    return Status::failure("unloadModule: module " + std::to_string(module.id) +
                           " is not loaded on this " + deviceName());
  uint64_t backendModule = it->second.backendModule;
  modules_.erase(it);
  return backendUnload(backendModule);
}

Result<Kernel> DeviceBase::getKernel(Module module, std::string_view name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = modules_.find(module.id);
  if (it == modules_.end())
    return Status::failure("getKernel '" + std::string(name) + "': module " +
                           std::to_string(module.id) + " is not loaded on this " + deviceName());
  ModuleEntry &entry = it->second;
  std::shared_ptr<const KernelInfo> info;
  std::string available;
  for (const auto &candidate : entry.kernels) {
    if (candidate->name == name)
      info = candidate;
    available += (available.empty() ? "'" : ", '") + candidate->name + "'";
  }
  if (!info)
    return Status::failure("getKernel: module " + std::to_string(module.id) + " has no kernel '" +
                           std::string(name) + "' (it has " +
                           (available.empty() ? std::string("none") : available) + ")");
  auto cached = entry.functions.find(name);
  if (cached == entry.functions.end()) {
    Result<uint64_t> function = backendGetFunction(entry.backendModule, *info);
    if (!function.ok())
      return Status::failure("getKernel '" + std::string(name) + "' on the " + deviceName() + ": " +
                             function.error());
    cached = entry.functions.emplace(std::string(name), function.value()).first;
  }
  return Kernel{module.id, cached->second, info};
}

//===--- Launch ---------------------------------------------------------------------===//

Result<DeviceBase::Launchable> DeviceBase::findLaunchable(const Kernel &kernel) {
  if (!kernel.info)
    return Status::failure("launch: the kernel handle is empty (not from getKernel)");
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = modules_.find(kernel.moduleId);
  if (it == modules_.end())
    return Status::failure("launch '" + kernel.name() + "': its module " +
                           std::to_string(kernel.moduleId) + " is not loaded on this " +
                           deviceName() + " (unloaded, or loaded on another device)");
  for (const auto &candidate : it->second.kernels)
    if (candidate == kernel.info)
      return Launchable{it->second.backendModule, candidate};
  return Status::failure("launch '" + kernel.name() + "': the kernel handle does not " +
                         "belong to module " + std::to_string(kernel.moduleId) + " of this " +
                         deviceName());
}

Status DeviceBase::submit(const Kernel &kernel, const Launchable &target,
                          const LaunchConfig &config, const KernargBuffer &kernargs,
                          LaunchReport *report) {
  LaunchRequest request;
  request.backendModule = target.backendModule;
  request.function = kernel.function;
  request.info = target.info.get();
  request.config = &config;
  request.kernargs = &kernargs;
  request.report = report;
  if (report)
    report->counters.clear();
  if (Status s = backendLaunch(request); !s.ok())
    return Status::failure("launch '" + target.info->name + "' on the " + deviceName() + ": " +
                           s.message());
  return Status::success();
}

Status DeviceBase::launchPacked(const Kernel &kernel, const LaunchConfig &config,
                                const void *kernarg, size_t kernargBytes, LaunchReport *report) {
  Result<Launchable> target = findLaunchable(kernel);
  if (!target.ok())
    return target.status();
  const KernelInfo &info = *target.value().info;
  if (!kernarg)
    return Status::failure("launch '" + info.name + "': the kernarg buffer is null");
  if (kernargBytes != info.kernargSize)
    return Status::failure("launch '" + info.name + "': the kernarg buffer has " +
                           std::to_string(kernargBytes) + " bytes, the kernel's segment is " +
                           std::to_string(info.kernargSize));
  if (Status s = checkLaunchGeometry(
          info, LaunchGeometry{config.grid, config.workgroup, config.dynamicLdsBytes});
      !s.ok())
    return Status::failure("launch: " + s.message());
  KernargBuffer copy(info.kernargSize, std::max<size_t>(info.kernargAlign, KernargBuffer::kMinAlign));
  std::memcpy(copy.data(), kernarg, kernargBytes);
  return submit(kernel, target.value(), config, copy, report);
}

Status DeviceBase::launch(const Kernel &kernel, const LaunchConfig &config, const KernelArgs &args,
                          LaunchReport *report) {
  Result<Launchable> target = findLaunchable(kernel);
  if (!target.ok())
    return target.status();
  const std::shared_ptr<const KernelInfo> &info = target.value().info;
  Result<KernargBuffer> kernargs = packKernelArgs(
      *info, args, LaunchGeometry{config.grid, config.workgroup, config.dynamicLdsBytes});
  if (!kernargs.ok())
    return Status::failure("launch: " + kernargs.error());
  // A buffer argument must still be live here: on a GPU a freed one is a
  // memory fault at best, in the emulator an error far from its cause.
  {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t next = 0;
    for (size_t i = 0; i < info->args.size() && next < args.size(); ++i) {
      const KernelArgInfo &arg = info->args[i];
      if (arg.valueKind.rfind("hidden_", 0) == 0)
        continue;
      const KernelArg &given = args[next++];
      if (!given.fromBuffer() || given.address() == 0)
        continue;
      DeviceBuffer buffer{given.address() - given.byteOffset(), given.bufferSize()};
      if (Status s = checkBuffer("launch", buffer); !s.ok())
        return Status::failure(s.message() + " (kernel '" + info->name + "' argument " +
                               std::to_string(i) + " '" + arg.name + "')");
    }
  }
  return submit(kernel, target.value(), config, kernargs.value(), report);
}

void DeviceBase::releaseAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  // Failures cannot be reported from a destructor; the backend is going away.
  for (const auto &[address, size] : buffers_)
    (void)backendFree(address, size);
  buffers_.clear();
  for (const auto &[id, entry] : modules_)
    (void)backendUnload(entry.backendModule);
  modules_.clear();
}

} // namespace mxf::runtime
