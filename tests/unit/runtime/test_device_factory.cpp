//===- test_device_factory.cpp - openDevice by name --------------------------===//
//
// This binary links the core runtime only, so "emu" is not registered here
// (test_emu_device.cpp checks that linking mxforge_runtime_emu registers it).
//
//===----------------------------------------------------------------------===//

#include "runtime/device_factory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

namespace mxf::runtime {
namespace {

TEST(DeviceFactory, UnknownKind) {
  Result<std::unique_ptr<Device>> device = openDevice("cuda");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().rfind("unknown device 'cuda'; expected ", 0), 0u) << device.error();
  EXPECT_NE(device.error().find("hip"), std::string::npos);
}

TEST(DeviceFactory, EmuWithoutTheEmuLibrary) {
  Result<std::unique_ptr<Device>> device = openDevice("emu");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error(), "the emu device is not in this program or library: it needs the "
                            "emulator, which links LLVM (use libmxforge, not "
                            "libmxforge_runtime, or link mxforge_runtime_emu)");
}

TEST(DeviceFactory, HipGoesThroughTheLibraryLookup) {
  const char *saved = std::getenv("MXFORGE_HIP_LIBRARY");
  std::string restore = saved ? saved : "";
  setenv("MXFORGE_HIP_LIBRARY", "/nonexistent/libamdhip64.so", 1);
  Result<std::unique_ptr<Device>> device = openDevice("hip");
  ASSERT_FALSE(device.ok());
  // The hint does not tell the user to set the variable they set (issue 31).
  EXPECT_EQ(device.error(), "cannot load the HIP runtime: MXFORGE_HIP_LIBRARY=/nonexistent/"
                            "libamdhip64.so names no loadable file (give the full path of an "
                            "existing libamdhip64.so, unset it to search the usual names, or use "
                            "the emu device)");
  if (saved)
    setenv("MXFORGE_HIP_LIBRARY", restore.c_str(), 1);
  else
    unsetenv("MXFORGE_HIP_LIBRARY");
}

Result<std::unique_ptr<Device>> openNothing(const DeviceOpenOptions &) { return Status::failure("opened the test kind"); }

TEST(DeviceFactory, RegisteredBackends) {
  registerDeviceBackend("test-kind", &openNothing);
  EXPECT_EQ(openDevice("test-kind").error(), "opened the test kind");
  std::vector<std::string> kinds = availableDeviceKinds();
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "test-kind"), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "hip"), kinds.end());
}

} // namespace
} // namespace mxf::runtime
