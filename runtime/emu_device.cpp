//===- emu_device.cpp - The `emu` backend over the gfx950 emulator --------===//
//
// DeviceBase has checked handles, ranges and arguments; what is left is to
// keep host memory (HostMemory), hand code objects to the emulator, and
// translate its LaunchStats into the Device interface's named counters.
//
//===----------------------------------------------------------------------===//

#include "runtime/emu_device.h"
#include "runtime/device_base.h"
#include "runtime/device_factory.h"
#include "runtime/host_memory.h"

#include "emulator/emulator.h"

#include <cstring>
#include <map>
#include <mutex>

namespace mxf::runtime {

namespace {

/// Where the caller's KernelInfo (from a manifest, say) and the code
/// object's own metadata disagree on the argument layout, or "" when they
/// agree. A stale manifest would otherwise pack arguments at wrong offsets.
std::string layoutMismatch(const KernelInfo &given, const KernelInfo &actual) {
  if (given.kernargSize != actual.kernargSize)
    return "kernarg segment size " + std::to_string(given.kernargSize) + " vs " +
           std::to_string(actual.kernargSize);
  if (given.args.size() != actual.args.size())
    return std::to_string(given.args.size()) + " arguments vs " +
           std::to_string(actual.args.size());
  for (size_t i = 0; i < given.args.size(); ++i) {
    const KernelArgInfo &a = given.args[i];
    const KernelArgInfo &b = actual.args[i];
    if (a.offset != b.offset || a.size != b.size || a.valueKind != b.valueKind)
      return "argument " + std::to_string(i) + " is " + a.valueKind + " at " +
             std::to_string(a.offset) + " (" + std::to_string(a.size) + " bytes) vs " +
             b.valueKind + " at " + std::to_string(b.offset) + " (" + std::to_string(b.size) +
             " bytes)";
  }
  return "";
}

class EmuDevice final : public DeviceBase {
public:
  explicit EmuDevice(const EmuDeviceOptions &options) : options_(options) {}
  ~EmuDevice() override { releaseAll(); }

  std::string_view kind() const override { return "emu"; }
  std::string description() const override { return "emu (gfx950 functional emulator on the CPU)"; }

protected:
  Result<uint64_t> backendAllocate(uint64_t bytes) override { return memory_.allocate(bytes); }

  Status backendFree(uint64_t address, uint64_t) override { return memory_.free(address); }

  Status backendCopyIn(uint64_t address, const void *host, uint64_t bytes) override {
    uint8_t *at = memory_.translate(address, bytes);
    if (!at) // DeviceBase checked the range; this would be a bookkeeping bug.
      return Status::failure("internal error: no host memory behind the checked range");
    std::memcpy(at, host, bytes);
    return Status::success();
  }

  Status backendCopyOut(uint64_t address, void *host, uint64_t bytes) override {
    const uint8_t *at = memory_.translate(address, bytes);
    if (!at)
      return Status::failure("internal error: no host memory behind the checked range");
    std::memcpy(host, at, bytes);
    return Status::success();
  }

  Result<uint64_t> backendLoad(const void *data, size_t size,
                               std::vector<KernelInfo> &kernels) override {
    Result<std::shared_ptr<const emu::LoadedCodeObject>> loaded =
        emu::LoadedCodeObject::load(static_cast<const uint8_t *>(data), size);
    if (!loaded.ok())
      return loaded.status();
    std::shared_ptr<const emu::LoadedCodeObject> code = loaded.value();
    std::vector<KernelInfo> actual = code->kernelInfos();
    if (kernels.empty()) {
      kernels = std::move(actual);
    } else {
      for (const KernelInfo &given : kernels) {
        const KernelInfo *match = nullptr;
        for (const KernelInfo &candidate : actual)
          if (candidate.name == given.name)
            match = &candidate;
        if (!match)
          return Status::failure("the code object has no kernel '" + given.name + "'");
        if (std::string why = layoutMismatch(given, *match); !why.empty())
          return Status::failure("the KernelInfo given for '" + given.name +
                                 "' disagrees with the code object's metadata: " + why);
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    uint64_t id = nextModule_++;
    modules_[id] = std::move(code);
    return id;
  }

  Status backendUnload(uint64_t backendModule) override {
    std::lock_guard<std::mutex> lock(mutex_);
    modules_.erase(backendModule);
    return Status::success();
  }

  Result<uint64_t> backendGetFunction(uint64_t backendModule, const KernelInfo &info) override {
    std::shared_ptr<const emu::LoadedCodeObject> code = module(backendModule);
    if (!code || !code->findKernel(info.name))
      return Status::failure("the emulator found no kernel '" + info.name + "' in the code object");
    return uint64_t(0); // the emulator launches by name
  }

  Status backendLaunch(const LaunchRequest &request) override {
    std::shared_ptr<const emu::LoadedCodeObject> code = module(request.backendModule);
    if (!code)
      return Status::failure("internal error: the module is not loaded in the emulator");
    const LaunchConfig &config = *request.config;
    std::vector<emu::EmuBuffer> buffers;
    for (const HostMemory::Region &region : memory_.regions())
      buffers.push_back(emu::EmuBuffer{region.address, region.host, size_t(region.size)});
    std::vector<uint8_t> kernargs(request.kernargs->data(),
                                  request.kernargs->data() + request.kernargs->size());
    emu::LaunchOptions options;
    options.threads = options_.threads;
    options.workgroupOrder = options_.workgroupOrder;
    options.workgroupOrderSeed = options_.workgroupOrderSeed;
    options.runsWorkgroup = options_.runsWorkgroup;
    options.maxInstructionsPerWave = options_.maxInstructionsPerWave;
    options.timeline = options_.timeline;
    options.countsOnly = options_.countsOnly;
    Result<emu::LaunchStats> stats =
        emu::launch(*code, request.info->name, {config.grid.x, config.grid.y, config.grid.z},
                    {config.workgroup.x, config.workgroup.y, config.workgroup.z},
                    config.dynamicLdsBytes, kernargs, buffers, options);
    if (!stats.ok())
      return stats.status();
    if (request.report)
      fillReport(stats.value(), *request.report);
    return Status::success();
  }

  Status backendSynchronize() override { return Status::success(); }

private:
  std::shared_ptr<const emu::LoadedCodeObject> module(uint64_t id) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = modules_.find(id);
    return it == modules_.end() ? nullptr : it->second;
  }

  static void fillReport(const emu::LaunchStats &stats, LaunchReport &report) {
    auto &out = report.counters;
    out.emplace_back("instructions", stats.instructions());
    for (size_t f = 0; f < emu::kNumFamilies; ++f)
      out.emplace_back(std::string("instructions.") + emu::familyName(emu::Family(f)),
                       stats.instructionsByFamily[f]);
    out.emplace_back("global_bytes_read", stats.globalBytesRead);
    out.emplace_back("global_bytes_written", stats.globalBytesWritten);
    out.emplace_back("lds_bytes_read", stats.ldsBytesRead);
    out.emplace_back("lds_bytes_written", stats.ldsBytesWritten);
    out.emplace_back("mfma", stats.mfmaCount);
    out.emplace_back("waves", stats.waves);
    out.emplace_back("workgroups", stats.workgroups);
    // Reported as a count (index + 1) so that "none" is 0, not -1.
    out.emplace_back("vgprs_touched", uint64_t(stats.peakVgprIndex + 1));
    out.emplace_back("vgprs_allocated", stats.allocatedVgprs);
    out.emplace_back("lds_bytes_allocated", stats.ldsBytes);
    if (stats.timelineCycles)
      out.emplace_back("timeline_cycles", stats.timelineCycles);
  }

  EmuDeviceOptions options_;
  HostMemory memory_;
  mutable std::mutex mutex_; // guards modules_ (hooks run outside DeviceBase's lock)
  std::map<uint64_t, std::shared_ptr<const emu::LoadedCodeObject>> modules_;
  uint64_t nextModule_ = 1;
};

Result<std::unique_ptr<Device>> openDefaultEmu(const DeviceOpenOptions &options) {
  if (options.ordinal != kCurrentDevice && options.ordinal != 0)
    return Status::failure("the emu device has one GPU, ordinal 0; ordinal " +
                           std::to_string(options.ordinal) + " does not exist");
  return openEmuDevice();
}

// Registers "emu" with openDevice when this object file is linked in. The
// library's CMake target passes `-u mxforge_runtime_emu_anchor` to every
// program that links it, so the linker keeps this file even when nothing
// else in the program names it.
const bool registered = (registerDeviceBackend("emu", &openDefaultEmu), true);

} // namespace

Result<std::unique_ptr<Device>> openEmuDevice(const EmuDeviceOptions &options) {
  return std::unique_ptr<Device>(new EmuDevice(options));
}

} // namespace mxf::runtime

extern "C" {
// Referenced by the linker flag above; its value means nothing.
extern const int mxforge_runtime_emu_anchor;
const int mxforge_runtime_emu_anchor = 1;
}
