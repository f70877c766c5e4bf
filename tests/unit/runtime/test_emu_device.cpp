//===- test_emu_device.cpp - The emu backend through the Device interface --===//
//
// Memory management of the emu device, registration with openDevice, and
// one real launch: write_ids.hsaco (Inputs/write_ids.ll, compiled by llc-22
// at build time; WRITE_IDS_HSACO is its path) run on the emulator, reading
// its hidden arguments from the kernarg segment the runtime packed.
//
//===----------------------------------------------------------------------===//

#include "runtime/device_factory.h"
#include "runtime/emu_device.h"
#include "runtime/host_memory.h"

#include "kernel_infos.h"

#include <gtest/gtest.h>

#include <cstdio>

#include <fstream>
#include <iterator>

namespace mxf::runtime {
namespace {

std::unique_ptr<Device> emu() {
  Result<std::unique_ptr<Device>> device = openEmuDevice();
  EXPECT_TRUE(device.ok()) << device.error();
  return std::move(device.value());
}

std::vector<uint8_t> readWriteIds() {
  std::ifstream in(WRITE_IDS_HSACO, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << WRITE_IDS_HSACO;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

TEST(EmuDevice, IsRegisteredWithOpenDevice) {
  Result<std::unique_ptr<Device>> device = openDevice("emu");
  ASSERT_TRUE(device.ok()) << device.error();
  EXPECT_EQ(device.value()->kind(), "emu");
  std::vector<std::string> kinds = availableDeviceKinds();
  EXPECT_EQ(kinds, (std::vector<std::string>{"emu", "hip"}));
}

TEST(EmuDevice, RefusesToTimeLaunchesAndSaysWhatToUse) {
  std::unique_ptr<Device> device = emu();
  bool enqueued = false;
  Result<LaunchTiming> timing = device->timeLaunches(
      [&](void *) {
        enqueued = true;
        return Status::success();
      },
      TimingOptions{});
  ASSERT_FALSE(timing.ok());
  EXPECT_NE(timing.error().find("the emu device does not time launches"), std::string::npos)
      << timing.error();
  EXPECT_NE(timing.error().find("MI355X model's estimate"), std::string::npos) << timing.error();
  EXPECT_FALSE(enqueued);
}

TEST(EmuDevice, MemoryRoundTripAndPoison) {
  std::unique_ptr<Device> device = emu();
  DeviceBuffer a = device->allocate(32).value();
  DeviceBuffer b = device->allocate(32).value();
  EXPECT_NE(a.address, 0u);
  EXPECT_EQ(a.address % 256, 0u);
  EXPECT_GT(b.address, a.address + 32); // a gap between buffers
  std::vector<uint8_t> out(32);
  ASSERT_TRUE(device->copyOut(a, 0, out.data(), 32).ok());
  EXPECT_EQ(out, std::vector<uint8_t>(32, HostMemory::kPoison));
  std::vector<uint8_t> in(16, 7);
  ASSERT_TRUE(device->copyIn(a, 8, in.data(), 16).ok());
  ASSERT_TRUE(device->copyOut(a, 8, out.data(), 16).ok());
  EXPECT_TRUE(std::equal(in.begin(), in.end(), out.begin()));
  ASSERT_TRUE(device->free(a).ok());
  ASSERT_TRUE(device->free(b).ok());
}

TEST(EmuDevice, BadHandlesAndRanges) {
  std::unique_ptr<Device> device = emu();
  DeviceBuffer a = device->allocate(16).value();
  uint8_t bytes[32] = {};
  Status s = device->copyIn(a, 8, bytes, 9);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("copyIn: bytes [8, 17) are outside the 16-byte buffer"),
            std::string::npos)
      << s.message();
  EXPECT_FALSE(device->copyOut(a, 16, bytes, 1).ok());
  ASSERT_TRUE(device->free(a).ok());
  s = device->free(a);
  EXPECT_NE(s.message().find("is not a live buffer of this emu device"), std::string::npos)
      << s.message();
  EXPECT_FALSE(device->copyOut(a, 0, bytes, 1).ok());
  EXPECT_FALSE(device->allocate(0).ok());
}

TEST(EmuDevice, LoadReadsKernelInfosFromTheCodeObject) {
  std::unique_ptr<Device> device = emu();
  Result<Module> module = device->loadCodeObject(readWriteIds(), {});
  ASSERT_TRUE(module.ok()) << module.error();
  Result<Kernel> kernel = device->getKernel(module.value(), "write_ids");
  ASSERT_TRUE(kernel.ok()) << kernel.error();
  EXPECT_EQ(kernel.value().info->kernargSize, 272u);
  EXPECT_EQ(kernel.value().info->explicitArgCount(), 2u);
}

TEST(EmuDevice, LoadRejectsAStaleKernelInfo) {
  std::unique_ptr<Device> device = emu();
  KernelInfo stale = test::writeIds(); // has an extra hidden_dynamic_lds_size
  Result<Module> module = device->loadCodeObject(readWriteIds(), {stale});
  ASSERT_FALSE(module.ok());
  EXPECT_NE(module.error().find("the KernelInfo given for 'write_ids' disagrees with the code "
                                "object's metadata"),
            std::string::npos)
      << module.error();
  stale.name = "other";
  module = device->loadCodeObject(readWriteIds(), {stale});
  ASSERT_FALSE(module.ok());
  EXPECT_NE(module.error().find("the code object has no kernel 'other'"), std::string::npos)
      << module.error();
}

TEST(EmuDevice, LoadRejectsGarbage) {
  std::unique_ptr<Device> device = emu();
  std::vector<uint8_t> garbage(64, 0x42);
  Result<Module> module = device->loadCodeObject(garbage, {});
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.error().rfind("loadCodeObject on the emu device: ", 0), 0u) << module.error();
}

TEST(EmuDevice, LaunchWritesGlobalIds) {
  std::unique_ptr<Device> device = emu();
  Module module = device->loadCodeObject(readWriteIds(), {}).value();
  Kernel kernel = device->getKernel(module, "write_ids").value();
  const uint32_t n = 200; // a ragged last workgroup: 4 x 64 = 256 work-items
  DeviceBuffer out = device->allocate((n + 1) * 4).value();
  LaunchConfig config;
  config.grid = {4, 1, 1};
  config.workgroup = {64, 1, 1};
  LaunchReport report;
  Status s = device->launch(kernel, config, KernelArgs().buffer(out).value(n), &report);
  ASSERT_TRUE(s.ok()) << s.message();
  std::vector<uint32_t> result(n + 1);
  ASSERT_TRUE(device->copyOut(out, 0, result.data(), result.size() * 4).ok());
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(result[i], i) << "out[" << i << "]";
  EXPECT_EQ(result[n], 4u); // hidden_block_count_x
  EXPECT_EQ(report.get("waves"), 4u);
  EXPECT_EQ(report.get("workgroups"), 4u);
  EXPECT_GT(report.get("instructions"), 0u);
  EXPECT_EQ(report.get("global_bytes_written"), (n + 1) * 4u);
}

TEST(EmuDevice, OutOfBoundsAccessIsAnError) {
  std::unique_ptr<Device> device = emu();
  Module module = device->loadCodeObject(readWriteIds(), {}).value();
  Kernel kernel = device->getKernel(module, "write_ids").value();
  DeviceBuffer small = device->allocate(16).value(); // room for 4 ids, kernel writes 65
  LaunchConfig config;
  config.workgroup = {64, 1, 1};
  Status s = device->launch(kernel, config, KernelArgs().buffer(small).value(64u));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("launch 'write_ids' on the emu device: ", 0), 0u) << s.message();
  // Lane 4 is the first past the buffer; the gap after it belongs to no
  // buffer. (The address from the buffer itself: where a device's memory
  // starts depends on the devices opened before it in this process.)
  char past[32];
  std::snprintf(past, sizeof past, "0x%llx", (unsigned long long)(small.address + 16));
  EXPECT_NE(s.message().find(std::string("address ") + past + " (4 bytes)"), std::string::npos)
      << s.message();
}

} // namespace
} // namespace mxf::runtime
