//===- hip_device.h - The `hip` backend: a real AMD GPU -----------*- C++ -*-===//
//
// Runs code objects on an AMD GPU through the machine's own HIP runtime,
// loaded with dlopen (hip_api.h). On a machine without the library, or
// without a GPU, opening fails with one sentence that says which.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_HIP_DEVICE_H
#define MXFORGE_RUNTIME_HIP_DEVICE_H

#include "support/status.h"
#include "runtime/device.h"
#include "runtime/device_factory.h"

#include <memory>
#include <string>
#include <vector>

namespace mxf::runtime {

struct HipDeviceOptions {
  /// Libraries to try, in order. Empty: MXFORGE_HIP_LIBRARY when set, else
  /// libamdhip64.so, .so.7, .so.6, .so.5.
  std::vector<std::string> libraries;
  /// Which GPU (a hipSetDevice ordinal), or kCurrentDevice: the calling
  /// thread's current device when the device is opened (what a
  /// tensor-parallel rank has selected).
  int ordinal = 0;
};


/// Loads the HIP runtime, initializes it and checks GPU `ordinal`. Nothing
/// here or in the device's methods leaves the calling thread's current
/// device changed: a call that needs another GPU selects it and restores
/// the caller's before returning (docs/runtime.md, "Devices").
Result<std::unique_ptr<Device>> openHipDevice(const HipDeviceOptions &options = {});

} // namespace mxf::runtime

#endif // MXFORGE_RUNTIME_HIP_DEVICE_H
