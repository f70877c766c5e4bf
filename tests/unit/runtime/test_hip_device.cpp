//===- test_hip_device.cpp - The hip backend against a fake HIP runtime ----===//
//
// This machine has no libamdhip64 and no GPU, so the hip backend is tested
// up to where a device is needed: the missing-library and no-GPU messages,
// and, with a fake libamdhip64 (fake_hip.cpp) loaded by path, every call it
// makes: memory, module loading, the kernarg buffer and grid it launches
// with, and how HIP's error codes and strings come back.
//
// FAKE_HIP_PATH and NOT_HIP_PATH are set by CMake.
//
//===----------------------------------------------------------------------===//

#include "runtime/hip_api.h"
#include "runtime/hip_device.h"

#include "tests/unit/runtime/fake_hip_client.h"
#include "kernel_infos.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <thread>

namespace mxf::runtime {
namespace {

using mxf::test::FakeHip;

HipDeviceOptions fakeOptions(int ordinal = 0) {
  HipDeviceOptions options;
  options.libraries = {FAKE_HIP_PATH};
  options.ordinal = ordinal;
  return options;
}

/// A hip device over the fake, which must open.
std::unique_ptr<Device> openFake(int ordinal = 0) {
  Result<std::unique_ptr<Device>> device = openHipDevice(fakeOptions(ordinal));
  EXPECT_TRUE(device.ok()) << device.error();
  return device.ok() ? std::move(device.value()) : nullptr;
}

/// A code object the fake accepts: the ELF magic, then its kernel names.
std::vector<uint8_t> fakeImage(std::initializer_list<const char *> kernels) {
  std::vector<uint8_t> image = {0x7f, 'E', 'L', 'F'};
  for (const char *name : kernels)
    image.insert(image.end(), name, name + std::strlen(name) + 1);
  image.push_back(0);
  return image;
}

class HipDeviceTest : public ::testing::Test {
protected:
  void SetUp() override { FakeHip::get().reset(kFakeHipWorking, 1); }
  FakeHip &fake = FakeHip::get();

  int callersDevice() { return fake.current(); }
};

//===--- No library, no GPU ----------------------------------------------------===//

TEST(HipLibrary, MissingLibraryNamesWhatWasTried) {
  HipDeviceOptions options;
  options.libraries = {"libmxforge_absent_hip.so", "/nonexistent/libamdhip64.so.6"};
  Result<std::unique_ptr<Device>> device = openHipDevice(options);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error(),
            "cannot load the HIP runtime: tried libmxforge_absent_hip.so and "
            "/nonexistent/libamdhip64.so.6 and none is installed (install ROCm's HIP runtime, or "
            "set MXFORGE_HIP_LIBRARY to the path of libamdhip64.so, or use the emu device)");
}

TEST(HipLibrary, DefaultCandidatesAreRocmsNames) {
  const char *saved = std::getenv("MXFORGE_HIP_LIBRARY");
  std::string restore = saved ? saved : "";
  unsetenv("MXFORGE_HIP_LIBRARY");
  EXPECT_EQ(hip::defaultLibraryCandidates(),
            (std::vector<std::string>{"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6",
                                      "libamdhip64.so.5"}));
  if (saved)
    setenv("MXFORGE_HIP_LIBRARY", restore.c_str(), 1);
}

// The real ROCm runtime: Debian's libamdhip64-5 (ROCm 5.2, which predates
// gfx950), installed by scripts/setup.sh. The backend finds it among the
// default names, binds every entry point it needs, and on a machine without
// an AMD GPU says so in one sentence with the codes HIP returned.
TEST(HipLibrary, RealRocmRuntimeBindsAndReportsNoGpu) {
  void *real = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(real, nullptr) << "Debian's libamdhip64-5 is not installed (scripts/setup.sh "
                              "installs it): "
                           << dlerror();
  Result<std::shared_ptr<const hip::Api>> api = hip::loadApi({"libamdhip64.so.5"});
  ASSERT_TRUE(api.ok()) << api.error();
  EXPECT_NE(api.value()->getErrorName, nullptr);
  EXPECT_EQ(api.value()->describe(100), "100 (hipErrorNoDevice)");

  const char *saved = std::getenv("MXFORGE_HIP_LIBRARY");
  std::string restore = saved ? saved : "";
  unsetenv("MXFORGE_HIP_LIBRARY");
  Result<std::unique_ptr<Device>> device = openHipDevice();
  if (saved)
    setenv("MXFORGE_HIP_LIBRARY", restore.c_str(), 1);
  ASSERT_FALSE(device.ok()) << "an AMD GPU is visible: this test is for machines without one";
  const std::string &error = device.error();
  EXPECT_EQ(error.rfind("no AMD GPU is visible to the HIP runtime libamdhip64.so.5 (hipInit "
                        "returned ",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("; run on a machine with an AMD GPU, or use the emu device"),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TEST(HipLibrary, EnvironmentVariableChoosesTheLibrary) {
  const char *saved = std::getenv("MXFORGE_HIP_LIBRARY");
  std::string restore = saved ? saved : "";
  setenv("MXFORGE_HIP_LIBRARY", "/opt/nowhere/libamdhip64.so", 1);
  EXPECT_EQ(hip::defaultLibraryCandidates(),
            std::vector<std::string>{"/opt/nowhere/libamdhip64.so"});
  Result<std::unique_ptr<Device>> device = openHipDevice();
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.error().find("MXFORGE_HIP_LIBRARY=/opt/nowhere/libamdhip64.so names no "
                                "loadable file"),
            std::string::npos)
      << device.error();
  EXPECT_EQ(device.error().find("or set MXFORGE_HIP_LIBRARY"), std::string::npos)
      << "the hint tells the user to set the variable they set: " << device.error();
  setenv("MXFORGE_HIP_LIBRARY", FAKE_HIP_PATH, 1);
  FakeHip::get().reset(kFakeHipWorking, 1);
  EXPECT_TRUE(openHipDevice().ok());
  if (saved)
    setenv("MXFORGE_HIP_LIBRARY", restore.c_str(), 1);
  else
    unsetenv("MXFORGE_HIP_LIBRARY");
}

TEST(HipLibrary, NotAHipRuntime) {
  HipDeviceOptions options;
  options.libraries = {NOT_HIP_PATH};
  Result<std::unique_ptr<Device>> device = openHipDevice(options);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error(), std::string("cannot use the HIP runtime ") + NOT_HIP_PATH +
                                ": it has no hipGetDeviceCount (is it a HIP runtime library?)");
}

TEST(HipLibrary, UnloadableFileReportsTheLoaderReason) {
  // A file that exists but is no shared library: "not installed" would lie.
  HipDeviceOptions options;
  options.libraries = {__FILE__};
  Result<std::unique_ptr<Device>> device = openHipDevice(options);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().rfind(std::string("cannot load the HIP runtime ") + __FILE__ + ": ", 0),
            0u)
      << device.error();
}

TEST_F(HipDeviceTest, NoGpu) {
  fake.reset(kFakeHipNoGpu, 0);
  Result<std::unique_ptr<Device>> device = openHipDevice(fakeOptions());
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error(),
            std::string("no AMD GPU is visible to the HIP runtime ") + FAKE_HIP_PATH +
                " (hipInit returned 101 (hipErrorInvalidDevice: invalid device ordinal), "
                "hipGetDeviceCount returned 100 (hipErrorNoDevice: no ROCm-capable device "
                "is detected) with a count of 0); run on a machine with an AMD GPU, or use the "
                "emu device");
}

TEST_F(HipDeviceTest, ZeroDevicesWithoutAnError) {
  fake.reset(kFakeHipZeroCount, 0);
  Result<std::unique_ptr<Device>> device = openHipDevice(fakeOptions());
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().rfind("no AMD GPU is visible to the HIP runtime", 0), 0u);
  EXPECT_NE(device.error().find("hipGetDeviceCount returned 0 (hipSuccess: no error) with "
                                "a count of 0"),
            std::string::npos)
      << device.error();
}

TEST_F(HipDeviceTest, InitFailsOtherwise) {
  fake.reset(kFakeHipInitFails, 1);
  Result<std::unique_ptr<Device>> device = openHipDevice(fakeOptions());
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.error().find("failed to initialize: hipInit returned 999 "
                                "(hipErrorUnknown: unknown error)"),
            std::string::npos)
      << device.error();
}

TEST_F(HipDeviceTest, OrdinalOutOfRange) {
  fake.reset(kFakeHipWorking, 2);
  Result<std::unique_ptr<Device>> device = openHipDevice(fakeOptions(2));
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error(),
            "AMD GPU 2 was requested, but the HIP runtime sees 2 (ordinals 0 to 1)");
  EXPECT_TRUE(openHipDevice(fakeOptions(1)).ok());
}

//===--- A working (fake) device ----------------------------------------------------===//

TEST_F(HipDeviceTest, OpensAndDescribesItself) {
  Result<std::unique_ptr<Device>> device = openHipDevice(fakeOptions());
  ASSERT_TRUE(device.ok()) << device.error();
  EXPECT_EQ(device.value()->kind(), "hip");
  EXPECT_EQ(device.value()->description(),
            std::string("hip (AMD GPU 0 of 1, via ") + FAKE_HIP_PATH + ")");
  // Opening selects nothing: the caller's device is the caller's.
  EXPECT_EQ(std::string(fake.callLog()), "hipInit hipGetDeviceCount");
}

TEST_F(HipDeviceTest, OpensTheCallersCurrentDevice) {
  fake.reset(kFakeHipWorking, 4);
  ASSERT_EQ(fake.setDevice(2), 0);
  fake.clearLog();
  Result<std::unique_ptr<Device>> device = openHipDevice(fakeOptions(kCurrentDevice));
  ASSERT_TRUE(device.ok()) << device.error();
  EXPECT_EQ(device.value()->description(),
            std::string("hip (AMD GPU 2 of 4, via ") + FAKE_HIP_PATH + ")");
  EXPECT_EQ(std::string(fake.callLog()), "hipInit hipGetDeviceCount hipGetDevice");
  // Its work goes to GPU 2 from a thread whose current device is 0.
  std::thread other([&] {
    EXPECT_EQ(callersDevice(), 0);
    Module module =
        device.value()->loadCodeObject(fakeImage({"fake_fill"}), {test::fakeFill()}).value();
    Kernel kernel = device.value()->getKernel(module, "fake_fill").value();
    DeviceBuffer out = device.value()->allocate(4).value();
    EXPECT_TRUE(device.value()
                    ->launch(kernel, LaunchConfig{}, KernelArgs().buffer(out).value(1u).value(1u))
                    .ok());
    EXPECT_EQ(fake.lastLaunch()->device, 2);
    EXPECT_EQ(callersDevice(), 0);
  });
  other.join();
  EXPECT_EQ(callersDevice(), 2);
}

TEST_F(HipDeviceTest, FailedDeviceQueryIsNamed) {
  fake.failNext("hipGetDevice", 999);
  Result<std::unique_ptr<Device>> device = openHipDevice(fakeOptions(kCurrentDevice));
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error(), "cannot find the caller's current AMD GPU: hipGetDevice failed: error "
                            "999 (hipErrorUnknown: unknown error)");
}

// Every method, from several threads whose current devices differ from the
// device's and from each other: each does its work on GPU 3 and leaves the
// thread on the device it had. The log shows each switch paired with its
// restore.
TEST_F(HipDeviceTest, NeverLeavesTheCallersDeviceChanged) {
  fake.reset(kFakeHipWorking, 4);
  std::unique_ptr<Device> device = openFake(3);
  Module module = device->loadCodeObject(fakeImage({"fake_fill"}), {test::fakeFill()}).value();
  Kernel kernel = device->getKernel(module, "fake_fill").value();
  EXPECT_EQ(callersDevice(), 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const int mine = t; // thread 3 already is on the device's GPU
      ASSERT_EQ(fake.setDevice(mine), 0);
      for (int round = 0; round < 20; ++round) {
        DeviceBuffer out = device->allocate(16).value();
        EXPECT_EQ(callersDevice(), mine);
        uint32_t in[4] = {1, 2, 3, 4}, back[4] = {};
        EXPECT_TRUE(device->copyIn(out, 0, in, 16).ok());
        EXPECT_EQ(callersDevice(), mine);
        EXPECT_TRUE(
            device->launch(kernel, LaunchConfig{}, KernelArgs().buffer(out).value(7u).value(4u))
                .ok());
        EXPECT_EQ(callersDevice(), mine);
        EXPECT_TRUE(device->synchronize().ok());
        EXPECT_TRUE(device->copyOut(out, 0, back, 16).ok());
        EXPECT_EQ(back[3], 7u);
        EXPECT_TRUE(device->free(out).ok());
        EXPECT_EQ(callersDevice(), mine);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(callersDevice(), 0);
  EXPECT_EQ(fake.lastLaunch()->device, 3);
}

// A launch is legal inside HIP graph capture: between the engine's
// hipStreamBeginCapture and hipStreamEndCapture only the launch (and the
// thread-local device query) reaches HIP, no allocation, copy or sync.
TEST_F(HipDeviceTest, LaunchInsideStreamCapture) {
  std::unique_ptr<Device> device = openFake();
  Module module = device->loadCodeObject(fakeImage({"fake_fill"}), {test::fakeFill()}).value();
  Kernel kernel = device->getKernel(module, "fake_fill").value();
  DeviceBuffer out = device->allocate(16).value();
  void *stream = reinterpret_cast<void *>(0x57ea);
  fake.clearLog();
  ASSERT_EQ(fake.beginCapture(stream, 0), 0);
  LaunchConfig config;
  config.stream = stream;
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(device->launch(kernel, config, KernelArgs().buffer(out).value(1u).value(4u)).ok());
  ASSERT_EQ(fake.endCapture(stream, nullptr), 0);
  EXPECT_EQ(std::string(fake.callLog()),
            "hipStreamBeginCapture hipGetDevice hipModuleLaunchKernel hipGetDevice "
            "hipModuleLaunchKernel hipGetDevice hipModuleLaunchKernel hipStreamEndCapture");
}

TEST_F(HipDeviceTest, MemoryGoesThroughHipWithTheRightCopyKinds) {
  std::unique_ptr<Device> device = openFake();
  DeviceBuffer buffer = device->allocate(64).value();
  EXPECT_EQ(fake.liveAllocations(), 1u);
  std::vector<uint32_t> in(16), out(16, 0);
  for (uint32_t i = 0; i < 16; ++i)
    in[i] = i * i;
  ASSERT_TRUE(device->copyIn(buffer, 0, in.data(), 64).ok());
  ASSERT_TRUE(device->copyOut(buffer, 0, out.data(), 64).ok());
  EXPECT_EQ(in, out);
  ASSERT_TRUE(device->free(buffer).ok());
  EXPECT_EQ(fake.liveAllocations(), 0u);
  std::string log = fake.callLog();
  EXPECT_NE(log.find("hipMalloc(64) hipGetDevice hipMemcpy(64,1) hipGetDevice hipMemcpy(64,2) "
                     "hipGetDevice hipFree"),
            std::string::npos)
      << log;
}

TEST_F(HipDeviceTest, HipErrorsComeBackWithTheirStrings) {
  std::unique_ptr<Device> device = openFake();
  fake.failNext("hipMalloc", 2);
  Result<DeviceBuffer> buffer = device->allocate(1 << 20);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.error(), "allocate 1048576 bytes on the hip device: hipMalloc failed: error 2 "
                            "(hipErrorOutOfMemory: out of memory)");
  DeviceBuffer ok = device->allocate(16).value();
  fake.failNext("hipMemcpy", 1);
  uint32_t word = 0;
  EXPECT_EQ(device->copyIn(ok, 0, &word, 4).message(),
            "hipMemcpy (host to device, 4 bytes) failed: error 1 (hipErrorInvalidValue: invalid "
            "argument)");
  fake.failNext("hipDeviceSynchronize", 719);
  EXPECT_EQ(device->synchronize().message(),
            "hipDeviceSynchronize failed: error 719 (hipErrorLaunchFailure: unspecified launch "
            "failure)");
}

TEST_F(HipDeviceTest, ModuleLoadingNeedsKernelInfos) {
  std::unique_ptr<Device> device = openFake();
  Result<Module> module = device->loadCodeObject(fakeImage({"fake_fill"}), {});
  ASSERT_FALSE(module.ok());
  EXPECT_NE(module.error().find("the hip backend needs the code object's KernelInfos"),
            std::string::npos)
      << module.error();
  EXPECT_EQ(fake.loadedModules(), 0u);
}

TEST_F(HipDeviceTest, ModuleErrors) {
  std::unique_ptr<Device> device = openFake();
  std::vector<uint8_t> notElf = {1, 2, 3, 4, 0};
  Result<Module> bad = device->loadCodeObject(notElf, {test::fakeFill()});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "loadCodeObject on the hip device: hipModuleLoadData (a code object for "
                         "gfx950) failed: error 200 (hipErrorInvalidImage: device kernel image "
                         "is invalid)");
  fake.failNext("hipModuleLoadData", 209);
  KernelInfo info = test::writeIds();
  bad = device->loadCodeObject(fakeImage({"write_ids"}), {info});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("(a code object for amdgcn-amd-amdhsa--gfx950) failed: error 209 "
                             "(hipErrorNoBinaryForGpu"),
            std::string::npos)
      << bad.error();

  // The KernelInfo names a kernel that the code object (per HIP) lacks.
  Module module = device->loadCodeObject(fakeImage({"other"}), {test::fakeFill()}).value();
  Result<Kernel> kernel = device->getKernel(module, "fake_fill");
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.error(), "getKernel 'fake_fill' on the hip device: hipModuleGetFunction "
                            "'fake_fill' failed: error 500 (hipErrorNotFound: named symbol not "
                            "found)");
  EXPECT_EQ(fake.loadedModules(), 1u);
  ASSERT_TRUE(device->unloadModule(module).ok());
  EXPECT_EQ(fake.loadedModules(), 0u);
}

TEST_F(HipDeviceTest, LaunchPassesTheKernargBufferGridAndBlock) {
  std::unique_ptr<Device> device = openFake();
  Module module =
      device->loadCodeObject(fakeImage({"write_ids", "fake_fill"}), {test::writeIds()}).value();
  Kernel kernel = device->getKernel(module, "write_ids").value();
  DeviceBuffer out = device->allocate(4096).value();
  LaunchConfig config;
  config.grid = {16, 2, 1};
  config.workgroup = {256, 1, 1};
  config.dynamicLdsBytes = 2048;
  config.stream = reinterpret_cast<void *>(0x5eed);
  Status s = device->launch(kernel, config, KernelArgs().buffer(out).value(uint32_t(1000)));
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(fake.launchCount(), 1);
  const FakeHipLaunch &launch = *fake.lastLaunch();
  EXPECT_STREQ(launch.functionName, "write_ids");
  EXPECT_EQ(launch.grid[0], 16u);
  EXPECT_EQ(launch.grid[1], 2u);
  EXPECT_EQ(launch.grid[2], 1u);
  EXPECT_EQ(launch.block[0], 256u);
  EXPECT_EQ(launch.block[1], 1u);
  EXPECT_EQ(launch.block[2], 1u);
  EXPECT_EQ(launch.sharedMemBytes, 2048u);
  EXPECT_EQ(launch.stream, reinterpret_cast<void *>(0x5eed));
  EXPECT_TRUE(launch.kernelParamsWasNull);
  EXPECT_TRUE(launch.extraWellFormed);
  EXPECT_EQ(launch.device, 0);
  ASSERT_EQ(launch.kernargSize, 272u);
  auto u64 = [&](size_t at) {
    uint64_t v;
    std::memcpy(&v, launch.kernarg + at, 8);
    return v;
  };
  auto u32 = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, launch.kernarg + at, 4);
    return v;
  };
  auto u16 = [&](size_t at) {
    uint16_t v;
    std::memcpy(&v, launch.kernarg + at, 2);
    return v;
  };
  EXPECT_EQ(u64(0), out.address);
  EXPECT_EQ(u32(8), 1000u);
  EXPECT_EQ(u32(16), 16u);
  EXPECT_EQ(u32(20), 2u);
  EXPECT_EQ(u32(24), 1u);
  EXPECT_EQ(u16(28), 256u);
  EXPECT_EQ(u16(30), 1u);
  EXPECT_EQ(u16(80), 2u);     // hidden_grid_dims
  EXPECT_EQ(u32(136), 2048u); // hidden_dynamic_lds_size
}

TEST_F(HipDeviceTest, ArgumentErrorsNeverReachHip) {
  std::unique_ptr<Device> device = openFake();
  Module module = device->loadCodeObject(fakeImage({"write_ids"}), {test::writeIds()}).value();
  Kernel kernel = device->getKernel(module, "write_ids").value();
  DeviceBuffer out = device->allocate(64).value();
  LaunchConfig config;
  config.workgroup = {64, 1, 1};
  Status s = device->launch(kernel, config, KernelArgs().buffer(out).value(uint64_t(1)));
  EXPECT_EQ(s.message(), "launch: kernel 'write_ids': argument 1 ('n', by_value, 4 bytes): "
                         "expected 4 bytes, got 8");
  EXPECT_EQ(fake.launchCount(), 0);
}

TEST_F(HipDeviceTest, LaunchFailureNamesTheKernel) {
  std::unique_ptr<Device> device = openFake();
  Module module = device->loadCodeObject(fakeImage({"write_ids"}), {test::writeIds()}).value();
  Kernel kernel = device->getKernel(module, "write_ids").value();
  DeviceBuffer out = device->allocate(64).value();
  fake.failNext("hipModuleLaunchKernel", 209);
  LaunchConfig config;
  Status s = device->launch(kernel, config, KernelArgs().buffer(out).value(1u));
  EXPECT_EQ(s.message(), "launch 'write_ids' on the hip device: hipModuleLaunchKernel failed: "
                         "error 209 (hipErrorNoBinaryForGpu: no kernel image is available for "
                         "execution on the device)");
}

TEST_F(HipDeviceTest, RoundTripThroughAFakeKernel) {
  std::unique_ptr<Device> device = openFake();
  Module module = device->loadCodeObject(fakeImage({"fake_fill"}), {test::fakeFill()}).value();
  Kernel kernel = device->getKernel(module, "fake_fill").value();
  DeviceBuffer out = device->allocate(40).value();
  LaunchConfig config;
  ASSERT_TRUE(
      device->launch(kernel, config, KernelArgs().buffer(out).value(0xc0ffeeu).value(10u)).ok());
  ASSERT_TRUE(device->synchronize().ok());
  std::vector<uint32_t> result(10);
  ASSERT_TRUE(device->copyOut(out, 0, result.data(), 40).ok());
  EXPECT_EQ(result, std::vector<uint32_t>(10, 0xc0ffeeu));
}

TEST_F(HipDeviceTest, SelectsItsDeviceOnEveryThreadAndRestoresIt) {
  fake.reset(kFakeHipWorking, 2);
  std::unique_ptr<Device> device = openFake(1);
  Module module = device->loadCodeObject(fakeImage({"fake_fill"}), {test::fakeFill()}).value();
  Kernel kernel = device->getKernel(module, "fake_fill").value();
  DeviceBuffer out = device->allocate(4).value();
  std::thread other([&] {
    fake.clearLog();
    LaunchConfig config;
    EXPECT_TRUE(device->launch(kernel, config, KernelArgs().buffer(out).value(1u).value(1u)).ok());
    EXPECT_EQ(std::string(fake.callLog()),
              "hipGetDevice hipSetDevice(1) hipModuleLaunchKernel hipSetDevice(0)");
    EXPECT_EQ(callersDevice(), 0);
  });
  other.join();
  EXPECT_EQ(fake.lastLaunch()->device, 1);
}

TEST_F(HipDeviceTest, DestructionFreesAndUnloads) {
  {
    std::unique_ptr<Device> device = openFake();
    device->allocate(8).value();
    device->allocate(8).value();
    device->loadCodeObject(fakeImage({"fake_fill"}), {test::fakeFill()}).value();
    EXPECT_EQ(fake.liveAllocations(), 2u);
    EXPECT_EQ(fake.loadedModules(), 1u);
  }
  EXPECT_EQ(fake.liveAllocations(), 0u);
  EXPECT_EQ(fake.loadedModules(), 0u);
}

//===--- Timing (hip_timing.h) ---------------------------------------------===//

/// How often `call` appears in the fake's log, and where it first does.
size_t countCalls(const std::string &log, const std::string &call) {
  size_t n = 0;
  for (size_t at = log.find(call); at != std::string::npos; at = log.find(call, at + 1))
    n += log.compare(at, call.size() + 1, call + " ") == 0 || at + call.size() == log.size();
  return n;
}

class HipTimingTest : public HipDeviceTest {
protected:
  void SetUp() override {
    HipDeviceTest::SetUp();
    device = openFake();
    module = device->loadCodeObject(fakeImage({"fake_fill"}), {test::fakeFill()}).value();
    kernel = device->getKernel(module, "fake_fill").value();
    out = device->allocate(16).value();
  }
  /// One pass: two fake_fill launches of 4 words (the second wins), on
  /// the stream timing hands over.
  EnqueuePass twoLaunches(int *passes = nullptr, int failOnPass = -1) {
    return [this, passes, failOnPass](void *stream) -> Status {
      const int pass = passes ? (*passes)++ : 0;
      if (pass == failOnPass)
        return Status::failure("pass " + std::to_string(pass) + " refused");
      LaunchConfig config;
      config.stream = stream;
      if (Status s = device->launch(kernel, config, KernelArgs().buffer(out).value(7u).value(4u));
          !s.ok())
        return s;
      return device->launch(kernel, config, KernelArgs().buffer(out).value(9u).value(4u));
    };
  }
  std::unique_ptr<Device> device;
  Module module;
  Kernel kernel;
  DeviceBuffer out;
};

TEST_F(HipTimingTest, EventsAroundGraphLaunchesOfCapturedPasses) {
  TimingOptions options;
  options.warmup = 2;
  options.repeats = 5;
  options.passesPerGraph = 3;
  const size_t allocations = fake.liveAllocations();
  fake.clearLog();
  Result<LaunchTiming> timing = device->timeLaunches(twoLaunches(), options);
  ASSERT_TRUE(timing.ok()) << timing.error();
  // The fake's k-th elapsed time is (k + 1) * 10 us; a graph holds 3 passes.
  ASSERT_EQ(timing.value().usPerPass.size(), 5u);
  for (size_t k = 0; k < 5; ++k)
    EXPECT_NEAR(timing.value().usPerPass[k], double(k + 1) * 10 / 3, 1e-4) << k;
  EXPECT_NEAR(timing.value().medianUs, 10.0, 1e-4);
  EXPECT_NEAR(timing.value().p10Us, 10.0 / 3, 1e-4);
  EXPECT_NEAR(timing.value().p90Us, 50.0 / 3, 1e-4);
  EXPECT_EQ(timing.value().passesPerGraph, 3);
  EXPECT_NE(timing.value().method.find("3 passes"), std::string::npos) << timing.value().method;

  const std::string log = fake.callLog();
  // One uncaptured pass, then three captured into the graph, which runs
  // 2 warm-up and 5 timed times; each timed launch between two events.
  EXPECT_EQ(countCalls(log, "hipModuleLaunchKernel"), 2u + 6u) << log;
  EXPECT_EQ(countCalls(log, "hipGraphLaunch"), 7u) << log;
  EXPECT_EQ(countCalls(log, "hipEventRecord"), 10u) << log;
  EXPECT_EQ(countCalls(log, "hipEventElapsedTime"), 5u) << log;
  EXPECT_EQ(countCalls(log, "hipMemsetAsync"), 0u) << log;
  EXPECT_EQ(fake.graphLaunchCount(), 7);
  EXPECT_EQ(fake.launchCount(), 2 + 6); // the calls that reached hipModuleLaunchKernel
  const std::string order[] = {"hipStreamCreate", "hipStreamSynchronize", "hipStreamBeginCapture",
                               "hipStreamEndCapture", "hipGraphInstantiate", "hipGraphLaunch",
                               "hipEventCreate", "hipEventRecord", "hipGraphLaunch",
                               "hipEventRecord", "hipEventSynchronize", "hipEventElapsedTime",
                               "hipEventDestroy", "hipGraphExecDestroy", "hipGraphDestroy",
                               "hipStreamDestroy"};
  size_t at = 0;
  for (const std::string &call : order) {
    at = log.find(call, at);
    ASSERT_NE(at, std::string::npos) << call << " missing or out of order in: " << log;
  }
  // The captured launches ran when the graph did: the buffer holds the last.
  uint32_t back[4] = {};
  ASSERT_TRUE(device->copyOut(out, 0, back, 16).ok());
  EXPECT_EQ(back[0], 9u);
  EXPECT_EQ(fake.liveTimingObjects(), 0u);
  EXPECT_EQ(fake.liveAllocations(), allocations);
}

TEST_F(HipTimingTest, AFlushedL2TimesOnePassAfterAMemsetOutsideTheEvents) {
  TimingOptions options;
  options.warmup = 1;
  options.repeats = 3;
  options.flushL2 = true;
  options.flushBytes = 4096;
  const size_t allocations = fake.liveAllocations();
  fake.clearLog();
  Result<LaunchTiming> timing = device->timeLaunches(twoLaunches(), options);
  ASSERT_TRUE(timing.ok()) << timing.error();
  EXPECT_EQ(timing.value().passesPerGraph, 1);
  EXPECT_TRUE(timing.value().flushedL2);
  EXPECT_NEAR(timing.value().usPerPass[2], 30.0, 1e-4);
  const std::string log = fake.callLog();
  EXPECT_EQ(countCalls(log, "hipModuleLaunchKernel"), 2u + 2u) << log;
  EXPECT_EQ(countCalls(log, "hipMemsetAsync"), 3u) << log;
  EXPECT_EQ(countCalls(log, "hipMalloc(4096)"), 1u) << log;
  // Each memset comes just before its start event.
  const std::string flushThenStart = "hipMemsetAsync hipEventRecord";
  for (size_t at = log.find("hipMemsetAsync"); at != std::string::npos;
       at = log.find("hipMemsetAsync", at + 1))
    EXPECT_EQ(log.compare(at, flushThenStart.size(), flushThenStart), 0) << log.substr(at, 60);
  EXPECT_EQ(fake.liveTimingObjects(), 0u);
  EXPECT_EQ(fake.liveAllocations(), allocations);
}

TEST_F(HipTimingTest, FailuresNameTheCallAndReleaseEverything) {
  const size_t allocations = fake.liveAllocations();
  TimingOptions options;
  options.repeats = 2;
  fake.failNext("hipGraphInstantiate", 1);
  Result<LaunchTiming> timing = device->timeLaunches(twoLaunches(), options);
  ASSERT_FALSE(timing.ok());
  EXPECT_NE(timing.error().find("hipGraphInstantiate failed"), std::string::npos)
      << timing.error();
  EXPECT_EQ(fake.liveTimingObjects(), 0u);

  // A pass that fails while captured: the capture still ends.
  int passes = 0;
  fake.clearLog();
  timing = device->timeLaunches(twoLaunches(&passes, /*failOnPass=*/2), options);
  ASSERT_FALSE(timing.ok());
  EXPECT_NE(timing.error().find("while capturing the launches into a graph: pass 2 refused"),
            std::string::npos)
      << timing.error();
  EXPECT_NE(std::string(fake.callLog()).find("hipStreamEndCapture"), std::string::npos);
  EXPECT_EQ(fake.liveTimingObjects(), 0u);

  fake.failNext("hipGraphLaunch", 719);
  timing = device->timeLaunches(twoLaunches(), options);
  ASSERT_FALSE(timing.ok());
  EXPECT_NE(timing.error().find("hipGraphLaunch (warm-up) failed: error 719"), std::string::npos)
      << timing.error();
  EXPECT_EQ(fake.liveTimingObjects(), 0u);
  EXPECT_EQ(fake.liveAllocations(), allocations);

  options.repeats = 0;
  timing = device->timeLaunches(twoLaunches(), options);
  ASSERT_FALSE(timing.ok());
  EXPECT_NE(timing.error().find("repeats >= 1"), std::string::npos) << timing.error();
}

TEST(LaunchTiming, PercentilesAreNearestRank) {
  LaunchTiming timing;
  timing.usPerPass = {5, 1, 4, 2, 3, 9, 8, 7, 6, 10};
  summarizeTiming(timing);
  EXPECT_DOUBLE_EQ(timing.medianUs, 5.5);
  EXPECT_DOUBLE_EQ(timing.p10Us, 1);
  EXPECT_DOUBLE_EQ(timing.p90Us, 9);
  timing.usPerPass = {4};
  summarizeTiming(timing);
  EXPECT_DOUBLE_EQ(timing.medianUs, 4);
  EXPECT_DOUBLE_EQ(timing.p10Us, 4);
  EXPECT_DOUBLE_EQ(timing.p90Us, 4);
}

} // namespace
} // namespace mxf::runtime
