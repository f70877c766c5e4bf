//===- device_base.h - What every backend shares: handles and checks -*- C++ -*-===//
//
// Both backends must reject the same mistakes with the same words: a freed
// buffer, a copy past a buffer's end, a kernel of an unloaded module, a
// launch whose arguments do not match the metadata. So the handle tables and
// every check live here, once, and a backend implements only the `backend*`
// hooks, which are called with arguments already checked. The emu backend's
// tests thereby test the hip backend's bookkeeping too.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_DEVICE_BASE_H
#define MXFORGE_RUNTIME_DEVICE_BASE_H

#include "runtime/device.h"

#include <map>
#include <mutex>

namespace mxf::runtime {

/// One launch, checked and packed, as a backend receives it.
struct LaunchRequest {
  uint64_t backendModule = 0;
  uint64_t function = 0;
  const KernelInfo *info = nullptr;
  const LaunchConfig *config = nullptr;
  const KernargBuffer *kernargs = nullptr;
  LaunchReport *report = nullptr; // may be null
};

class DeviceBase : public Device {
public:
  Result<DeviceBuffer> allocate(uint64_t bytes) final;
  Status free(DeviceBuffer buffer) final;
  Status copyIn(DeviceBuffer buffer, uint64_t offset, const void *host, uint64_t bytes) final;
  Status copyOut(DeviceBuffer buffer, uint64_t offset, void *host, uint64_t bytes) final;
  using Device::loadCodeObject;
  Result<Module> loadCodeObject(const void *data, size_t size,
                                std::vector<KernelInfo> kernels) final;
  Status unloadModule(Module module) final;
  Result<Kernel> getKernel(Module module, std::string_view name) final;
  Status launchPacked(const Kernel &kernel, const LaunchConfig &config, const void *kernarg,
                      size_t kernargBytes, LaunchReport *report = nullptr) final;
  Status launch(const Kernel &kernel, const LaunchConfig &config, const KernelArgs &args,
                LaunchReport *report = nullptr) final;
  Status synchronize() final { return backendSynchronize(); }

  /// Number of live buffers and modules (for tests and leak reports).
  size_t liveBufferCount() const;
  size_t liveModuleCount() const;

protected:
  /// Backends call this from their destructor (a base destructor cannot call
  /// the hooks): frees every live buffer and unloads every module.
  void releaseAll();

  /// A new allocation of `bytes` (> 0): its device address, never 0.
  virtual Result<uint64_t> backendAllocate(uint64_t bytes) = 0;
  virtual Status backendFree(uint64_t address, uint64_t bytes) = 0;
  /// Copies within one live allocation; bounds already checked.
  virtual Status backendCopyIn(uint64_t address, const void *host, uint64_t bytes) = 0;
  virtual Status backendCopyOut(uint64_t address, void *host, uint64_t bytes) = 0;
  /// Loads a code object; may fill `kernels` when the caller gave none.
  /// Returns the backend's module handle.
  virtual Result<uint64_t> backendLoad(const void *data, size_t size,
                                       std::vector<KernelInfo> &kernels) = 0;
  virtual Status backendUnload(uint64_t backendModule) = 0;
  /// The backend's handle of the kernel `info.name` in `backendModule`.
  virtual Result<uint64_t> backendGetFunction(uint64_t backendModule, const KernelInfo &info) = 0;
  virtual Status backendLaunch(const LaunchRequest &request) = 0;
  virtual Status backendSynchronize() = 0;

  /// "hip device", "emu device": how messages name this device.
  std::string deviceName() const { return std::string(kind()) + " device"; }

private:
  /// A kernel handle checked against the module table.
  struct Launchable {
    uint64_t backendModule = 0;
    std::shared_ptr<const KernelInfo> info;
  };
  Result<Launchable> findLaunchable(const Kernel &kernel);
  Status submit(const Kernel &kernel, const Launchable &target, const LaunchConfig &config,
                const KernargBuffer &kernargs, LaunchReport *report);

  struct ModuleEntry {
    uint64_t backendModule = 0;
    std::vector<std::shared_ptr<const KernelInfo>> kernels;
    std::map<std::string, uint64_t, std::less<>> functions; // resolved on first getKernel
  };

  /// The live buffer `buffer` names, or an error saying why it is not one.
  Status checkBuffer(const char *operation, DeviceBuffer buffer) const;
  Status checkRange(const char *operation, DeviceBuffer buffer, uint64_t offset, uint64_t bytes,
                    const void *host) const;

  mutable std::mutex mutex_;
  std::map<uint64_t, uint64_t> buffers_; // address -> size
  std::map<uint64_t, ModuleEntry> modules_;
  uint64_t nextModuleId_ = 1;
};

} // namespace mxf::runtime

#endif // MXFORGE_RUNTIME_DEVICE_BASE_H
