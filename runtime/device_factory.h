//===- device_factory.h - Opening a Device by name ----------------*- C++ -*-===//
//
// `openDevice("hip")` or `openDevice("emu")`: what the CLI's `--device` and
// an engine's configuration pass through. The hip backend is part of the
// core runtime; the emu backend lives in mxforge_runtime_emu (it links the
// emulator, hence LLVM, which the core must not) and registers itself here
// when that library is linked in.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_DEVICE_FACTORY_H
#define MXFORGE_RUNTIME_DEVICE_FACTORY_H

#include "support/status.h"
#include "runtime/device.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mxf::runtime {

/// Opens the device `kind` ("hip" or "emu") with default options.
/// The `ordinal` meaning "the calling thread's current GPU when the device
/// is opened" (hipGetDevice), what an engine's tensor-parallel rank wants.
inline constexpr int kCurrentDevice = -1;

/// How a device is opened, whatever its kind.
struct DeviceOpenOptions {
  /// Which GPU: an ordinal, or kCurrentDevice. The emu device has one, 0.
  int ordinal = kCurrentDevice;
};

Result<std::unique_ptr<Device>> openDevice(std::string_view kind,
                                           const DeviceOpenOptions &options = {});

using DeviceOpener = Result<std::unique_ptr<Device>> (*)(const DeviceOpenOptions &);

/// Makes `openDevice(kind)` call `opener`. Called by backends outside the
/// core library at static-initialization time; a later call for the same
/// kind replaces the earlier one.
void registerDeviceBackend(std::string_view kind, DeviceOpener opener);

/// Every kind openDevice knows in this program, sorted ("emu", "hip").
std::vector<std::string> availableDeviceKinds();

} // namespace mxf::runtime

#endif // MXFORGE_RUNTIME_DEVICE_FACTORY_H
