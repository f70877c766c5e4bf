//===- test_device_base.cpp - Handle tables and checks every backend shares -===//
//
// DeviceBase owns the bookkeeping of both backends, so it is tested here
// through a minimal backend over HostMemory that records what reaches it:
// nothing that fails a check may reach a backend.
//
//===----------------------------------------------------------------------===//

#include "runtime/device_base.h"
#include "runtime/host_memory.h"

#include "kernel_infos.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

namespace mxf::runtime {
namespace {

class RecordingDevice final : public DeviceBase {
public:
  ~RecordingDevice() override { releaseAll(); }
  std::string_view kind() const override { return "test"; }
  std::string description() const override { return "test"; }

  int backendCalls = 0;
  int loads = 0, unloads = 0, launches = 0, functionLookups = 0;
  std::vector<uint8_t> lastKernargs;
  std::vector<KernelInfo> codeObjectKernels; // what backendLoad "reads" when given none

protected:
  Result<uint64_t> backendAllocate(uint64_t bytes) override {
    ++backendCalls;
    return memory.allocate(bytes);
  }
  Status backendFree(uint64_t address, uint64_t) override {
    ++backendCalls;
    return memory.free(address);
  }
  Status backendCopyIn(uint64_t address, const void *host, uint64_t bytes) override {
    ++backendCalls;
    std::memcpy(memory.translate(address, bytes), host, bytes);
    return Status::success();
  }
  Status backendCopyOut(uint64_t address, void *host, uint64_t bytes) override {
    ++backendCalls;
    std::memcpy(host, memory.translate(address, bytes), bytes);
    return Status::success();
  }
  Result<uint64_t> backendLoad(const void *, size_t, std::vector<KernelInfo> &kernels) override {
    ++backendCalls;
    if (kernels.empty())
      kernels = codeObjectKernels;
    return uint64_t(100 + ++loads);
  }
  Status backendUnload(uint64_t) override {
    ++backendCalls;
    ++unloads;
    return Status::success();
  }
  Result<uint64_t> backendGetFunction(uint64_t, const KernelInfo &info) override {
    ++backendCalls;
    ++functionLookups;
    return uint64_t(info.name.size());
  }
  Status backendLaunch(const LaunchRequest &request) override {
    ++backendCalls;
    ++launches;
    lastKernargs.assign(request.kernargs->data(),
                        request.kernargs->data() + request.kernargs->size());
    if (request.report)
      request.report->counters.emplace_back("waves", 3);
    return Status::success();
  }
  Status backendSynchronize() override { return Status::success(); }

public:
  HostMemory memory;
};

const std::vector<uint8_t> kImage = {0x7f, 'E', 'L', 'F'};

//===--- Memory ---------------------------------------------------------------===//

TEST(DeviceBase, AllocateCopyRoundTrip) {
  RecordingDevice device;
  Result<DeviceBuffer> buffer = device.allocate(100);
  ASSERT_TRUE(buffer.ok()) << buffer.error();
  EXPECT_NE(buffer.value().address, 0u);
  EXPECT_EQ(buffer.value().size, 100u);
  std::vector<uint8_t> in(40), out(40);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint8_t(i * 7);
  ASSERT_TRUE(device.copyIn(buffer.value(), 60, in.data(), 40).ok());
  ASSERT_TRUE(device.copyOut(buffer.value(), 60, out.data(), 40).ok());
  EXPECT_EQ(in, out);
  // Bytes never written hold the poison pattern.
  uint8_t first = 0;
  ASSERT_TRUE(device.copyOut(buffer.value(), 0, &first, 1).ok());
  EXPECT_EQ(first, HostMemory::kPoison);
  EXPECT_EQ(device.liveBufferCount(), 1u);
  EXPECT_TRUE(device.free(buffer.value()).ok());
  EXPECT_EQ(device.liveBufferCount(), 0u);
}

TEST(DeviceBase, ZeroByteAllocationIsAnError) {
  RecordingDevice device;
  Result<DeviceBuffer> buffer = device.allocate(0);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.error(), "allocate on the test device: 0 bytes requested; a buffer needs at "
                            "least one byte");
  EXPECT_EQ(device.backendCalls, 0);
}

TEST(DeviceBase, FreedBufferIsRejectedEverywhere) {
  RecordingDevice device;
  DeviceBuffer buffer = device.allocate(64).value();
  ASSERT_TRUE(device.free(buffer).ok());
  int calls = device.backendCalls;
  uint8_t byte = 0;
  Status s = device.free(buffer);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("free: the 64-byte buffer at 0x"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("is not a live buffer of this test device (already freed, or "
                             "allocated elsewhere)"),
            std::string::npos)
      << s.message();
  EXPECT_FALSE(device.copyIn(buffer, 0, &byte, 1).ok());
  EXPECT_FALSE(device.copyOut(buffer, 0, &byte, 1).ok());
  EXPECT_EQ(device.backendCalls, calls);
}

TEST(DeviceBase, ForeignAndForgedHandles) {
  RecordingDevice a, b;
  DeviceBuffer fromA = a.allocate(64).value();
  uint8_t byte = 0;
  Status s = b.copyIn(fromA, 0, &byte, 1);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("copyIn:"), std::string::npos);
  DeviceBuffer forged = fromA;
  forged.size = 1 << 20; // a handle claiming more than was allocated
  s = a.copyOut(forged, 1000, &byte, 1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("has 64 bytes, but the handle says 1048576"), std::string::npos)
      << s.message();
  s = a.free(DeviceBuffer{});
  EXPECT_EQ(s.message(), "free: the buffer is null (address 0)");
}

TEST(DeviceBase, CopiesOutOfBounds) {
  RecordingDevice device;
  DeviceBuffer buffer = device.allocate(64).value();
  std::vector<uint8_t> data(128);
  int calls = device.backendCalls;
  Status s = device.copyIn(buffer, 0, data.data(), 65);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("copyIn: bytes [0, 65) are outside the 64-byte buffer at 0x", 0), 0u)
      << s.message();
  EXPECT_FALSE(device.copyOut(buffer, 60, data.data(), 5).ok());
  EXPECT_FALSE(device.copyOut(buffer, 65, data.data(), 0).ok());
  // An offset near 2^64 must not wrap around into range.
  s = device.copyIn(buffer, ~uint64_t(0) - 2, data.data(), 8);
  EXPECT_NE(s.message().find("bytes [18446744073709551613, 18446744073709551613 + 8)"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(device.backendCalls, calls);
  // The edges themselves are fine.
  EXPECT_TRUE(device.copyIn(buffer, 0, data.data(), 64).ok());
  EXPECT_TRUE(device.copyIn(buffer, 64, data.data(), 0).ok());
  EXPECT_EQ(device.copyOut(buffer, 0, nullptr, 4).message(), "copyOut: the host pointer is null");
}

TEST(DeviceBase, ScopedBufferFrees) {
  RecordingDevice device;
  {
    Result<ScopedBuffer> scoped = ScopedBuffer::allocate(device, 32);
    ASSERT_TRUE(scoped.ok());
    EXPECT_EQ(device.liveBufferCount(), 1u);
    ScopedBuffer moved = std::move(scoped.value());
    EXPECT_EQ(device.liveBufferCount(), 1u);
    EXPECT_EQ(moved.get().size, 32u);
  }
  EXPECT_EQ(device.liveBufferCount(), 0u);
}

TEST(DeviceBase, ConcurrentAllocationsAndCopies) {
  RecordingDevice device;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        Result<DeviceBuffer> b = device.allocate(64 + t);
        uint32_t v = uint32_t(t * 1000 + i), back = 0;
        if (!b.ok() || !device.copyIn(b.value(), 4, &v, 4).ok() ||
            !device.copyOut(b.value(), 4, &back, 4).ok() || back != v ||
            !device.free(b.value()).ok())
          ++failures;
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(device.liveBufferCount(), 0u);
}

//===--- Modules and kernels -------------------------------------------------------===//

TEST(DeviceBase, LoadGetKernelUnload) {
  RecordingDevice device;
  Result<Module> module = device.loadCodeObject(kImage, {test::writeIds(), test::fakeFill()});
  ASSERT_TRUE(module.ok()) << module.error();
  Result<Kernel> kernel = device.getKernel(module.value(), "fake_fill");
  ASSERT_TRUE(kernel.ok()) << kernel.error();
  EXPECT_EQ(kernel.value().name(), "fake_fill");
  EXPECT_EQ(kernel.value().info->kernargSize, 24u);
  // The backend's function is looked up once per kernel, then cached.
  ASSERT_TRUE(device.getKernel(module.value(), "fake_fill").ok());
  EXPECT_EQ(device.functionLookups, 1);

  Result<Kernel> missing = device.getKernel(module.value(), "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), "getKernel: module 1 has no kernel 'nope' (it has 'write_ids', "
                             "'fake_fill')");
  ASSERT_TRUE(device.unloadModule(module.value()).ok());
  EXPECT_EQ(device.unloads, 1);
  EXPECT_EQ(device.unloadModule(module.value()).message(),
            "unloadModule: module 1 is not loaded on this test device");
  EXPECT_FALSE(device.getKernel(module.value(), "fake_fill").ok());
}

TEST(DeviceBase, BackendMayProvideTheKernelInfos) {
  RecordingDevice device;
  device.codeObjectKernels = {test::writeIds()};
  Result<Module> module = device.loadCodeObject(kImage, {});
  ASSERT_TRUE(module.ok()) << module.error();
  EXPECT_TRUE(device.getKernel(module.value(), "write_ids").ok());
}

TEST(DeviceBase, LoadRejectsBadInput) {
  RecordingDevice device;
  EXPECT_EQ(device.loadCodeObject(nullptr, 0, {}).error(),
            "loadCodeObject on the test device: the code object is empty");
  EXPECT_EQ(device.loadCodeObject(kImage, {test::writeIds(), test::writeIds()}).error(),
            "loadCodeObject: two KernelInfos are named 'write_ids'");
  EXPECT_EQ(device.loads, 0);
}

TEST(DeviceBase, DestructionReleasesEverything) {
  auto device = std::make_unique<RecordingDevice>();
  device->allocate(10).value();
  device->allocate(20).value();
  device->loadCodeObject(kImage, {test::writeIds()}).value();
  HostMemory *memory = &device->memory;
  EXPECT_EQ(memory->regions().size(), 2u);
  device.reset(); // must not leak (ASan builds check) nor crash
}

//===--- Launch -------------------------------------------------------------------===//

struct Launchable {
  RecordingDevice device;
  Module module;
  Kernel kernel;
  DeviceBuffer out;

  Launchable() {
    module = device.loadCodeObject(kImage, {test::writeIds()}).value();
    kernel = device.getKernel(module, "write_ids").value();
    out = device.allocate(1024).value();
  }
};

TEST(DeviceBase, LaunchPacksAndReports) {
  Launchable l;
  LaunchConfig config;
  config.grid = {4, 1, 1};
  config.workgroup = {64, 1, 1};
  LaunchReport report;
  Status s =
      l.device.launch(l.kernel, config, KernelArgs().buffer(l.out).value(uint32_t(256)), &report);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(l.device.lastKernargs.size(), 272u);
  uint64_t pointer;
  std::memcpy(&pointer, l.device.lastKernargs.data(), 8);
  EXPECT_EQ(pointer, l.out.address);
  EXPECT_EQ(l.device.lastKernargs[16], 4);  // hidden_block_count_x
  EXPECT_EQ(l.device.lastKernargs[28], 64); // hidden_group_size_x
  EXPECT_EQ(report.get("waves"), 3u);
  EXPECT_EQ(report.get("nothing"), 0u);
}

TEST(DeviceBase, LaunchErrorsNameTheKernel) {
  Launchable l;
  LaunchConfig config;
  config.grid = {1, 1, 1};
  config.workgroup = {64, 1, 1};
  Status s = l.device.launch(l.kernel, config, KernelArgs().buffer(l.out));
  EXPECT_EQ(s.message().substr(0, 47), "launch: kernel 'write_ids': takes 2 explicit ar");
  EXPECT_EQ(l.device.launches, 0);
}

TEST(DeviceBase, LaunchWithAFreedBuffer) {
  Launchable l;
  DeviceBuffer stale = l.device.allocate(64).value();
  ASSERT_TRUE(l.device.free(stale).ok());
  LaunchConfig config;
  config.workgroup = {64, 1, 1};
  Status s = l.device.launch(l.kernel, config, KernelArgs().buffer(stale).value(1u));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is not a live buffer"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("(kernel 'write_ids' argument 0 'out')"), std::string::npos)
      << s.message();
  EXPECT_EQ(l.device.launches, 0);
}

TEST(DeviceBase, LaunchOfAnUnloadedModule) {
  Launchable l;
  ASSERT_TRUE(l.device.unloadModule(l.module).ok());
  LaunchConfig config;
  Status s = l.device.launch(l.kernel, config, KernelArgs().buffer(l.out).value(1u));
  EXPECT_EQ(s.message(), "launch 'write_ids': its module 1 is not loaded on this test device "
                         "(unloaded, or loaded on another device)");
  EXPECT_EQ(l.device.launch(Kernel{}, config, KernelArgs()).message(),
            "launch: the kernel handle is empty (not from getKernel)");
}

TEST(DeviceBase, LaunchWithAKernelOfAnotherDevice) {
  Launchable a, b;
  LaunchConfig config;
  // Same module id on both devices, but the KernelInfo is not b's.
  Status s = b.device.launch(a.kernel, config, KernelArgs().buffer(b.out).value(1u));
  EXPECT_NE(s.message().find("the kernel handle does not belong to module 1"), std::string::npos)
      << s.message();
}

} // namespace
} // namespace mxf::runtime
