//===- hip_device.cpp - The `hip` backend over the dlopen'ed HIP runtime -===//
//
// A thin layer: DeviceBase has already checked every handle, range and
// argument, so each hook is one HIP call plus the translation of its error
// code into a sentence that names the call.
//
// HIP's current device is per thread and the engine's: every hook runs on
// our ordinal through onDevice, which restores the caller's device.
//
//===----------------------------------------------------------------------===//

#include "runtime/hip_device.h"
#include "runtime/device_base.h"
#include "runtime/hip_api.h"
#include "runtime/hip_timing.h"

#include <map>

namespace mxf::runtime {

namespace {

/// Runs `body` with GPU `ordinal` current on the calling thread, and gives
/// the thread back the device it had. HIP's current device is per thread
/// and belongs to the engine (a tensor-parallel rank's torch device), so it
/// is read on every call rather than cached: the engine may have changed it
/// since. When it already is `ordinal` (the usual case) the call costs one
/// hipGetDevice, a thread-local read that is legal during stream capture.
template <typename Body> auto onDevice(const hip::Api &api, int ordinal, Body &&body) {
  using Return = decltype(body());
  int callers = -1;
  if (Status s = api.check(api.getDevice(&callers), "hipGetDevice"); !s.ok())
    return Return(s);
  if (callers == ordinal)
    return body();
  if (Status s = api.check(api.setDevice(ordinal), "hipSetDevice(" + std::to_string(ordinal) + ")");
      !s.ok())
    return Return(s);
  Return result = body();
  Status restored = api.check(api.setDevice(callers), "restoring the caller's device with hipSetDevice(" +
                                                          std::to_string(callers) + ")");
  if (!restored.ok() && result.ok())
    return Return(restored);
  return result;
}

class HipDevice final : public DeviceBase {
public:
  HipDevice(std::shared_ptr<const hip::Api> api, int ordinal, int deviceCount)
      : api_(std::move(api)), ordinal_(ordinal), deviceCount_(deviceCount) {}
  ~HipDevice() override { releaseAll(); }

  std::string_view kind() const override { return "hip"; }
  std::string description() const override {
    return "hip (AMD GPU " + std::to_string(ordinal_) + " of " + std::to_string(deviceCount_) +
           ", via " + api_->path + ")";
  }

  Result<LaunchTiming> timeLaunches(const EnqueuePass &enqueue,
                                    const TimingOptions &options) override {
    return onOurs([&] { return hip::timeWithGraphs(*api_, enqueue, options); });
  }

protected:
  template <typename Body> auto onOurs(Body &&body) -> decltype(body()) {
    return onDevice(*api_, ordinal_, std::forward<Body>(body));
  }

  Result<uint64_t> backendAllocate(uint64_t bytes) override {
    return onOurs([&]() -> Result<uint64_t> {
      void *pointer = nullptr;
      if (Status s = api_->check(api_->malloc(&pointer, bytes), "hipMalloc"); !s.ok())
        return s;
      if (!pointer)
        return Status::failure("hipMalloc returned success and a null pointer");
      return reinterpret_cast<uint64_t>(pointer);
    });
  }

  Status backendFree(uint64_t address, uint64_t) override {
    return onOurs([&] {
      return api_->check(api_->free(reinterpret_cast<void *>(address)), "hipFree");
    });
  }

  Status backendCopyIn(uint64_t address, const void *host, uint64_t bytes) override {
    return onOurs([&] {
      return api_->check(
          api_->memcpy(reinterpret_cast<void *>(address), host, bytes, hip::kMemcpyHostToDevice),
          "hipMemcpy (host to device, " + std::to_string(bytes) + " bytes)");
    });
  }

  Status backendCopyOut(uint64_t address, void *host, uint64_t bytes) override {
    return onOurs([&] {
      return api_->check(api_->memcpy(host, reinterpret_cast<const void *>(address), bytes,
                                      hip::kMemcpyDeviceToHost),
                         "hipMemcpy (device to host, " + std::to_string(bytes) + " bytes)");
    });
  }

  Result<uint64_t> backendLoad(const void *data, size_t size,
                               std::vector<KernelInfo> &kernels) override {
    if (kernels.empty())
      return Status::failure(
          "the hip backend needs the code object's KernelInfos (from the compiler's "
          "CodeObject or a bundle manifest): the core runtime does not parse ELF");
    // Kept until unload: some HIP versions read the image lazily.
    std::vector<uint8_t> image(static_cast<const uint8_t *>(data),
                               static_cast<const uint8_t *>(data) + size);
    Result<uint64_t> loaded = onOurs([&]() -> Result<uint64_t> {
      void *module = nullptr;
      if (Status s = api_->check(api_->moduleLoadData(&module, image.data()),
                                 "hipModuleLoadData (" + targetOf(kernels) + ")");
          !s.ok())
        return s;
      return reinterpret_cast<uint64_t>(module);
    });
    if (loaded.ok())
      images_[loaded.value()] = std::move(image);
    return loaded;
  }

  Status backendUnload(uint64_t backendModule) override {
    images_.erase(backendModule);
    return onOurs([&] {
      return api_->check(api_->moduleUnload(reinterpret_cast<void *>(backendModule)),
                         "hipModuleUnload");
    });
  }

  Result<uint64_t> backendGetFunction(uint64_t backendModule, const KernelInfo &info) override {
    return onOurs([&]() -> Result<uint64_t> {
      void *function = nullptr;
      if (Status s = api_->check(api_->moduleGetFunction(
                                     &function, reinterpret_cast<void *>(backendModule),
                                     info.name.c_str()),
                                 "hipModuleGetFunction '" + info.name + "'");
          !s.ok())
        return s;
      return reinterpret_cast<uint64_t>(function);
    });
  }

  // Nothing but the launch itself (and the device query of onOurs): no
  // allocation, copy or synchronisation, so a launch is legal inside HIP
  // stream capture (tests: HipDevice.LaunchInsideStreamCapture).
  Status backendLaunch(const LaunchRequest &request) override {
    const LaunchConfig &config = *request.config;
    // HIP copies the kernarg buffer when the launch is enqueued, so the
    // packed buffer may die when this returns.
    size_t kernargSize = request.kernargs->size();
    void *extra[] = {hip::kLaunchParamBufferPointer,
                     const_cast<uint8_t *>(request.kernargs->data()), hip::kLaunchParamBufferSize,
                     &kernargSize, hip::kLaunchParamEnd};
    return onOurs([&] {
      return api_->check(api_->moduleLaunchKernel(reinterpret_cast<void *>(request.function),
                                                  config.grid.x, config.grid.y, config.grid.z,
                                                  config.workgroup.x, config.workgroup.y,
                                                  config.workgroup.z, config.dynamicLdsBytes,
                                                  config.stream, nullptr, extra),
                         "hipModuleLaunchKernel");
    });
  }

  Status backendSynchronize() override {
    return onOurs(
        [&] { return api_->check(api_->deviceSynchronize(), "hipDeviceSynchronize"); });
  }

private:
  static std::string targetOf(const std::vector<KernelInfo> &kernels) {
    const std::string &target = kernels.front().target;
    return "a code object for " + (target.empty() ? std::string("gfx950") : target);
  }

  std::shared_ptr<const hip::Api> api_;
  int ordinal_;
  int deviceCount_;
  std::map<uint64_t, std::vector<uint8_t>> images_; // guarded by DeviceBase's mutex
};

/// The one-sentence error for a machine on which HIP sees no GPU.
Status noGpu(const hip::Api &api, const std::string &what) {
  return Status::failure("no AMD GPU is visible to the HIP runtime " + api.path + " (" + what +
                         "); run on a machine with an AMD GPU, or use the emu device");
}

} // namespace

Result<std::unique_ptr<Device>> openHipDevice(const HipDeviceOptions &options) {
  Result<std::shared_ptr<const hip::Api>> loaded =
      hip::loadApi(options.libraries.empty() ? hip::defaultLibraryCandidates() : options.libraries);
  if (!loaded.ok())
    return loaded.status();
  std::shared_ptr<const hip::Api> api = loaded.value();

  // Without a GPU, hipInit returns 101 and hipGetDeviceCount 100 with a count
  // of 0, silently (TOOLCHAIN.md). Both codes go into the message: they are
  // what a user would search for.
  int initError = api->init(0);
  int count = 0;
  int countError = api->getDeviceCount(&count);
  std::string codes = "hipInit returned " + api->describe(initError) +
                      ", hipGetDeviceCount returned " + api->describe(countError) +
                      " with a count of " + std::to_string(count);
  bool noDeviceCode = initError == hip::kErrorNoDevice || initError == hip::kErrorInvalidDevice ||
                      countError == hip::kErrorNoDevice;
  if (noDeviceCode || (initError == hip::kSuccess && countError == hip::kSuccess && count <= 0))
    return noGpu(*api, codes);
  if (initError != hip::kSuccess)
    return Status::failure("the HIP runtime " + api->path + " failed to initialize: " + codes);
  if (countError != hip::kSuccess)
    return Status::failure("the HIP runtime " + api->path + " cannot count GPUs: " + codes);
  int ordinal = options.ordinal;
  if (ordinal == kCurrentDevice) {
    if (Status s = api->check(api->getDevice(&ordinal), "hipGetDevice"); !s.ok())
      return Status::failure("cannot find the caller's current AMD GPU: " + s.message());
  }
  if (ordinal < 0 || ordinal >= count)
    return Status::failure("AMD GPU " + std::to_string(ordinal) + " was requested, but " +
                           "the HIP runtime sees " + std::to_string(count) + " (ordinals 0 to " +
                           std::to_string(count - 1) + ")");
  return std::unique_ptr<Device>(new HipDevice(api, ordinal, count));
}

} // namespace mxf::runtime
