//===- test_emu_registration.cpp - openDevice("emu") from a program that ----===//
//===- names nothing of the emu backend --------------------------------------===//
//
// The CLI opens devices by name only. This binary links mxforge_runtime_emu
// but references none of its symbols, as the CLI would: the emu backend must
// still be registered (the library's `--undefined` link option keeps its
// object file, whose static initializer registers it).
//
//===----------------------------------------------------------------------===//

#include "runtime/device_factory.h"

#include <gtest/gtest.h>

namespace mxf::runtime {
namespace {

TEST(EmuRegistration, OpenDeviceFindsEmuByName) {
  Result<std::unique_ptr<Device>> device = openDevice("emu");
  ASSERT_TRUE(device.ok()) << device.error();
  EXPECT_EQ(device.value()->kind(), "emu");
  Result<DeviceBuffer> buffer = device.value()->allocate(8);
  ASSERT_TRUE(buffer.ok()) << buffer.error();
  EXPECT_TRUE(device.value()->free(buffer.value()).ok());
}

} // namespace
} // namespace mxf::runtime
