//===- hip_api.cpp - dlopen of the HIP runtime ------------------------------===//
//
// The failure most users will meet is "no HIP runtime here", so its message
// names every library tried and says what to do, in one sentence. A library
// that exists but fails to load (a missing dependency, a wrong architecture)
// is reported with the loader's own reason instead, since "not installed"
// would then be a lie.
//
//===----------------------------------------------------------------------===//

#include "runtime/hip_api.h"

#include <string_view>

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <type_traits>

namespace mxf::runtime::hip {

std::string Api::describe(int error) const {
  std::string text = std::to_string(error);
  const char *name = getErrorName ? getErrorName(error) : nullptr;
  const char *message = getErrorString ? getErrorString(error) : nullptr;
  // ROCm 5.2's hipGetErrorString returns the name itself: say it once.
  if (name && *name && message && *message && std::string_view(name) != message)
    return text + " (" + name + ": " + message + ")";
  if (message && *message)
    return text + " (" + message + ")";
  if (name && *name)
    return text + " (" + name + ")";
  return text;
}

Status Api::check(int error, const std::string &what) const {
  if (error == kSuccess)
    return Status::success();
  return Status::failure(what + " failed: error " + describe(error));
}

std::vector<std::string> defaultLibraryCandidates() {
  if (const char *path = std::getenv("MXFORGE_HIP_LIBRARY"); path && *path)
    return {path};
  return {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"};
}

namespace {

bool isNotFound(const std::string &dlerrorText) {
  return dlerrorText.find("No such file or directory") != std::string::npos ||
         dlerrorText.find("cannot open shared object file") != std::string::npos;
}

std::string joinNames(const std::vector<std::string> &names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

/// Resolves every entry point of `api` from `handle`; names the first missing.
Status resolve(void *handle, Api &api) {
  auto bind = [&](auto &slot, const char *name, bool required) -> bool {
    void *symbol = dlsym(handle, name);
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(symbol);
    return symbol != nullptr || !required;
  };
  const char *missing = nullptr;
  auto need = [&](auto &slot, const char *name) {
    if (!missing && !bind(slot, name, true))
      missing = name;
  };
  need(api.init, "hipInit");
  need(api.getDeviceCount, "hipGetDeviceCount");
  need(api.setDevice, "hipSetDevice");
  need(api.getDevice, "hipGetDevice");
  need(api.malloc, "hipMalloc");
  need(api.free, "hipFree");
  need(api.memcpy, "hipMemcpy");
  need(api.moduleLoadData, "hipModuleLoadData");
  need(api.moduleUnload, "hipModuleUnload");
  need(api.moduleGetFunction, "hipModuleGetFunction");
  need(api.moduleLaunchKernel, "hipModuleLaunchKernel");
  need(api.deviceSynchronize, "hipDeviceSynchronize");
  need(api.getErrorString, "hipGetErrorString");
  bind(api.getErrorName, "hipGetErrorName", false);
  bind(api.streamCreate, "hipStreamCreate", false);
  bind(api.streamDestroy, "hipStreamDestroy", false);
  bind(api.streamSynchronize, "hipStreamSynchronize", false);
  bind(api.streamBeginCapture, "hipStreamBeginCapture", false);
  bind(api.streamEndCapture, "hipStreamEndCapture", false);
  bind(api.graphInstantiate, "hipGraphInstantiate", false);
  bind(api.graphLaunch, "hipGraphLaunch", false);
  bind(api.graphExecDestroy, "hipGraphExecDestroy", false);
  bind(api.graphDestroy, "hipGraphDestroy", false);
  bind(api.eventCreate, "hipEventCreate", false);
  bind(api.eventDestroy, "hipEventDestroy", false);
  bind(api.eventRecord, "hipEventRecord", false);
  bind(api.eventSynchronize, "hipEventSynchronize", false);
  bind(api.eventElapsedTime, "hipEventElapsedTime", false);
  bind(api.memsetAsync, "hipMemsetAsync", false);
  if (missing)
    return Status::failure(std::string("it has no ") + missing + " (is it a HIP runtime library?)");
  return Status::success();
}

} // namespace

Result<std::shared_ptr<const Api>> loadApi(const std::vector<std::string> &candidates) {
  // One Api per library name per process: dlopen would hand back the same
  // handle anyway, and resolving twice gains nothing.
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const Api>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (candidates.empty())
    return Status::failure("cannot load the HIP runtime: no library name was given");

  std::vector<std::string> notFound;
  for (const std::string &name : candidates) {
    if (auto it = loaded.find(name); it != loaded.end())
      return it->second;
    void *handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *reason = dlerror();
      std::string text = reason ? reason : "unknown dlopen error";
      if (isNotFound(text)) {
        notFound.push_back(name);
        continue;
      }
      return Status::failure("cannot load the HIP runtime " + name + ": " + text);
    }
    auto api = std::make_shared<Api>();
    api->path = name;
    if (Status s = resolve(handle, *api); !s.ok())
      return Status::failure("cannot use the HIP runtime " + name + ": " + s.message());
    loaded.emplace(name, api);
    return std::shared_ptr<const Api>(api);
  }
  // The hint depends on whether the user already named a library: telling
  // them to set the variable they set is no help.
  const char *named = std::getenv("MXFORGE_HIP_LIBRARY");
  if (named && *named)
    return Status::failure("cannot load the HIP runtime: MXFORGE_HIP_LIBRARY=" +
                           std::string(named) +
                           " names no loadable file (give the full path of an existing "
                           "libamdhip64.so, unset it to search the usual names, or use the emu "
                           "device)");
  return Status::failure("cannot load the HIP runtime: tried " + joinNames(notFound) +
                         " and none is installed (install ROCm's HIP runtime, or set "
                         "MXFORGE_HIP_LIBRARY to the path of libamdhip64.so, or use the emu "
                         "device)");
}

} // namespace mxf::runtime::hip
