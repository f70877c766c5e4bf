//===- device.h - The Device interface: memory, code objects, launch -*- C++ -*-===//
//
// One interface over the two places a gfx950 code object can run: a real GPU
// through the HIP runtime (`hip`) and the functional emulator (`emu`). Code
// that launches kernels (the CLI, the e2e suite, an engine) is written once
// against this and picks the backend by name (device_factory.h).
//
// Errors are values (support/status.h): nothing here throws, because
// Debian's LLVM is built without exceptions and the emu backend links it.
//
// Ownership: the Device owns everything it hands out. Handles are plain
// values (cheap to copy, no destructor); `free` and `unloadModule` release one
// early, and destroying the Device releases whatever is left. A handle used
// after it was released, or on another Device, is an error naming it, never a
// crash: the device keeps a table of what it handed out and checks every
// handle against it. `ScopedBuffer` is the RAII form for code that prefers it.
//
// Thread safety: every method may be called from several threads at once;
// the handle tables are guarded by a mutex. Races *between* calls are the
// caller's (freeing a buffer while a launch on another thread reads it).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_DEVICE_H
#define MXFORGE_RUNTIME_DEVICE_H

#include "support/status.h"
#include "runtime/device_types.h"
#include "runtime/kernel_args.h"
#include "runtime/launch_timing.h"
#include "abi/kernel_info.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mxf::runtime {

/// A loaded code object. `id` is unique within one Device, never reused.
struct Module {
  uint64_t id = 0;
};

/// One kernel of a loaded module, with what is needed to launch it.
struct Kernel {
  uint64_t moduleId = 0;
  /// Backend handle of the function (hipFunction_t, or an index); opaque.
  uint64_t function = 0;
  /// Shared so that copying a Kernel stays cheap; never null for a Kernel
  /// returned by getKernel.
  std::shared_ptr<const KernelInfo> info;

  const std::string &name() const { return info->name; }
};

/// Where and how wide a launch is. `grid` counts workgroups per dimension
/// (as hipModuleLaunchKernel does), `workgroup` work-items per workgroup.
struct LaunchConfig {
  Dim3 grid;
  Dim3 workgroup;
  /// LDS beyond the kernel's static `.group_segment_fixed_size`.
  uint32_t dynamicLdsBytes = 0;
  /// hipStream_t for the hip backend (null: the default stream). The emu
  /// backend runs launches synchronously and ignores it.
  void *stream = nullptr;
};

/// What a backend can say about one finished launch, as named counters
/// (the emu backend: instructions by family, bytes moved, waves, ...; the hip
/// backend launches asynchronously and reports nothing).
struct LaunchReport {
  std::vector<std::pair<std::string, uint64_t>> counters;

  /// The value of `name`, or 0 when the backend did not report it.
  uint64_t get(std::string_view name) const {
    for (const auto &[key, value] : counters)
      if (key == name)
        return value;
    return 0;
  }
};

class Device {
public:
  virtual ~Device() = default;

  /// "hip" or "emu".
  virtual std::string_view kind() const = 0;
  /// One line for logs and `--stats`, e.g. "emu (gfx950 functional emulator)".
  virtual std::string description() const = 0;

  //===--- Memory ---------------------------------------------------------===//

  /// A new buffer of `bytes` (> 0) bytes. Contents are unspecified; the emu
  /// backend fills them with a poison pattern so that a read before a write
  /// shows.
  virtual Result<DeviceBuffer> allocate(uint64_t bytes) = 0;
  /// Releases `buffer`; it must be a live buffer of this device, as returned.
  virtual Status free(DeviceBuffer buffer) = 0;
  /// Copies `bytes` host bytes at `host` to `buffer` at byte `offset`.
  virtual Status copyIn(DeviceBuffer buffer, uint64_t offset, const void *host, uint64_t bytes) = 0;
  /// Copies `bytes` bytes of `buffer` from byte `offset` to `host`. Waits for
  /// earlier launches, like hipMemcpy.
  virtual Status copyOut(DeviceBuffer buffer, uint64_t offset, void *host, uint64_t bytes) = 0;

  //===--- Code objects and kernels ---------------------------------------===//

  /// Loads a gfx950 code object (HSACO bytes; copied, so the caller's bytes
  /// may go away). `kernels` are its KernelInfos as the compiler or a bundle
  /// manifest recorded them: the core runtime does not parse ELF (it links no
  /// LLVM). The emu backend reads them from the code object when `kernels`
  /// is empty; the hip backend needs them.
  virtual Result<Module> loadCodeObject(const void *data, size_t size,
                                        std::vector<KernelInfo> kernels) = 0;
  Result<Module> loadCodeObject(const std::vector<uint8_t> &hsaco,
                                std::vector<KernelInfo> kernels) {
    return loadCodeObject(hsaco.data(), hsaco.size(), std::move(kernels));
  }
  /// Unloads `module`; its Kernels become invalid.
  virtual Status unloadModule(Module module) = 0;
  /// The kernel `name` (its `.name`, not the `.kd` symbol) of `module`.
  virtual Result<Kernel> getKernel(Module module, std::string_view name) = 0;

  //===--- Launch -----------------------------------------------------------===//

  /// Packs `args` per the kernel's KernelInfo (kernel_args.h) and launches.
  /// Every argument and dimension is checked before anything reaches the
  /// backend. On the hip backend the launch is asynchronous (call
  /// synchronize or copyOut); on the emu backend it has finished on return
  /// and `report`, when given, receives its counters.
  virtual Status launch(const Kernel &kernel, const LaunchConfig &config, const KernelArgs &args,
                        LaunchReport *report = nullptr) = 0;
  /// Launches with a kernarg segment the caller packed (mxf_kernel_launch_params):
  /// exactly the kernel's `kernargSize` bytes, hidden arguments included.
  /// The geometry is checked as in launch; the bytes are the caller's.
  virtual Status launchPacked(const Kernel &kernel, const LaunchConfig &config,
                              const void *kernarg, size_t kernargBytes,
                              LaunchReport *report = nullptr) = 0;
  /// Waits until every launch on this device has finished.
  virtual Status synchronize() = 0;

  //===--- Timing ------------------------------------------------------------===//

  /// Times `enqueue`'s launches (launch_timing.h): the hip backend with
  /// hipEvents around graph-captured launches. The emu backend has no clock
  /// and refuses, naming the MI355X model's estimate instead.
  virtual Result<LaunchTiming> timeLaunches(const EnqueuePass &enqueue,
                                            const TimingOptions &options) {
    return Result<LaunchTiming>::failure(
        "the " + std::string(kind()) +
        " device does not time launches (only hip does; on emu, mxforge bench prints the MI355X "
        "model's estimate)");
  }
};

/// RAII owner of one buffer: frees it on destruction (a failure there has no
/// one to report to and is ignored; call release() to free with a Status).
class ScopedBuffer {
public:
  ScopedBuffer() = default;
  ScopedBuffer(Device &device, DeviceBuffer buffer) : device_(&device), buffer_(buffer) {}
  ScopedBuffer(ScopedBuffer &&other) noexcept
      : device_(std::exchange(other.device_, nullptr)), buffer_(other.buffer_) {}
  ScopedBuffer &operator=(ScopedBuffer &&other) noexcept {
    if (this != &other) {
      (void)release();
      device_ = std::exchange(other.device_, nullptr);
      buffer_ = other.buffer_;
    }
    return *this;
  }
  ScopedBuffer(const ScopedBuffer &) = delete;
  ScopedBuffer &operator=(const ScopedBuffer &) = delete;
  ~ScopedBuffer() { (void)release(); }

  /// Allocates `bytes` on `device` and takes ownership.
  static Result<ScopedBuffer> allocate(Device &device, uint64_t bytes) {
    Result<DeviceBuffer> buffer = device.allocate(bytes);
    if (!buffer.ok())
      return buffer.status();
    return ScopedBuffer(device, buffer.value());
  }

  const DeviceBuffer &get() const { return buffer_; }
  operator DeviceBuffer() const { return buffer_; }

  /// Frees the buffer now; a no-op when it owns none.
  Status release() {
    if (!device_)
      return Status::success();
    Device *device = std::exchange(device_, nullptr);
    return device->free(buffer_);
  }

private:
  Device *device_ = nullptr;
  DeviceBuffer buffer_;
};

} // namespace mxf::runtime

#endif // MXFORGE_RUNTIME_DEVICE_H
