//===- device_factory.cpp - Opening a Device by name ----------------------===//

#include "runtime/device_factory.h"
#include "runtime/hip_device.h"

#include <map>
#include <mutex>

namespace mxf::runtime {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, DeviceOpener, std::less<>> openers;
};

// A function-local static: backends register from static initializers of
// other translation units, whose order relative to ours is unspecified.
Registry &registry() {
  static Registry instance;
  return instance;
}

Result<std::unique_ptr<Device>> openHip(const DeviceOpenOptions &options) {
  HipDeviceOptions hip;
  hip.ordinal = options.ordinal;
  return openHipDevice(hip);
}

} // namespace

void registerDeviceBackend(std::string_view kind, DeviceOpener opener) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.openers[std::string(kind)] = opener;
}

std::vector<std::string> availableDeviceKinds() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::map<std::string, bool> kinds{{"hip", true}};
  for (const auto &entry : r.openers)
    kinds[entry.first] = true;
  std::vector<std::string> out;
  for (const auto &entry : kinds)
    out.push_back(entry.first);
  return out;
}

Result<std::unique_ptr<Device>> openDevice(std::string_view kind, const DeviceOpenOptions &options) {
  DeviceOpener opener = nullptr;
  {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (auto it = r.openers.find(kind); it != r.openers.end())
      opener = it->second;
  }
  if (opener)
    return opener(options);
  if (kind == "hip")
    return openHip(options);
  if (kind == "emu")
    return Status::failure("the emu device is not in this program or library: it needs the "
                           "emulator, which links LLVM (use libmxforge, not "
                           "libmxforge_runtime, or link mxforge_runtime_emu)");
  std::string known;
  for (const std::string &name : availableDeviceKinds())
    known += (known.empty() ? "" : " or ") + name;
  return Status::failure("unknown device '" + std::string(kind) + "'; expected " + known);
}

} // namespace mxf::runtime
