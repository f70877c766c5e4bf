//===- test_capi_engine.cpp - The C API as a tensor-parallel engine uses it -===//
//
// Launching a kernel yourself (launch params, code object, packed kernarg
// segment) on the emulator, bit-exact against mxf_launch and the reference;
// formats and layouts as enums; device ordinals; and, over the fake HIP
// runtime, that no call leaves the caller's device changed and that a launch
// inside stream capture reaches HIP as the launch alone.
//
// FAKE_HIP_PATH is set by CMake.
//
//===----------------------------------------------------------------------===//

#include "tests/unit/capi/capi_test_support.h"
#include "tests/unit/runtime/fake_hip_client.h"
#include "tests/unit/test_seed.h"

#include <dlfcn.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace mxf {
namespace {

using testing::ContextPtr;
using testing::emuContext;
using testing::lastError;

constexpr const char *kSpec = "rotate_quant:K=512,RS=32,rot=hadamard,M=16,scale=even";
constexpr uint8_t kPoison = 0xA5;

/// A kernel's operands in mxf_malloc buffers: inputs random, outputs poisoned.
struct Operands {
  std::vector<void *> device;
  std::vector<std::vector<uint8_t>> host;
  std::vector<mxf_operand_info> info;

  Operands(mxf_context *context, const mxf_kernel *kernel, std::mt19937_64 &rng) {
    mxf_kernel_info kernelInfo;
    EXPECT_EQ(mxf_kernel_get_info(kernel, &kernelInfo), MXF_SUCCESS);
    info.resize(kernelInfo.operand_count);
    for (size_t i = 0; i < info.size(); ++i) {
      EXPECT_EQ(mxf_kernel_get_operand(kernel, i, &info[i]), MXF_SUCCESS);
      host.emplace_back(info[i].bytes, kPoison);
      if (!info[i].is_output)
        for (size_t b = 0; b + 1 < host[i].size(); b += 2) {
          host[i][b] = uint8_t(rng());
          host[i][b + 1] = uint8_t(0x3C + rng() % 8); // bf16 of moderate magnitude
        }
      void *pointer = nullptr;
      EXPECT_EQ(mxf_malloc(context, info[i].bytes, &pointer), MXF_SUCCESS) << lastError();
      EXPECT_EQ(mxf_memcpy_to_device(context, pointer, host[i].data(), host[i].size()),
                MXF_SUCCESS);
      device.push_back(pointer);
    }
  }

  std::vector<uint8_t> output(mxf_context *context, const char *name) {
    for (size_t i = 0; i < info.size(); ++i)
      if (std::strcmp(info[i].name, name) == 0) {
        std::vector<uint8_t> bytes(info[i].bytes);
        EXPECT_EQ(mxf_memcpy_to_host(context, bytes.data(), device[i], bytes.size()),
                  MXF_SUCCESS);
        return bytes;
      }
    ADD_FAILURE() << "no operand " << name;
    return {};
  }

  void poisonOutputs(mxf_context *context) {
    for (size_t i = 0; i < info.size(); ++i)
      if (info[i].is_output) {
        std::vector<uint8_t> poison(info[i].bytes, kPoison);
        EXPECT_EQ(mxf_memcpy_to_device(context, device[i], poison.data(), poison.size()),
                  MXF_SUCCESS);
      }
  }
};

TEST(CApiEngine, PackedLaunchOnTheEmulatorEqualsMxfLaunchAndTheReference) {
  std::mt19937_64 rng(testing::testSeed("CApiEngine.PackedLaunch"));
  ContextPtr context(emuContext());
  const int m = 1 + int(rng() % 16);
  const mxf_kernel *kernel = nullptr;
  ASSERT_EQ(mxf_find_kernel(context.get(), kSpec, m, &kernel), MXF_SUCCESS) << lastError();
  Operands operands(context.get(), kernel, rng);

  mxf_launch_params params;
  std::vector<uint8_t> kernarg(1024);
  ASSERT_EQ(mxf_kernel_launch_params(kernel, m, operands.device.data(), nullptr,
                                     operands.device.size(), kernarg.data(), kernarg.size(),
                                     &params),
            MXF_SUCCESS)
      << lastError();
  mxf_launch_info launch;
  ASSERT_EQ(mxf_kernel_get_launch(kernel, m, &launch), MXF_SUCCESS);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(params.grid[d], launch.grid[d]);
    EXPECT_EQ(params.workgroup[d], launch.workgroup[d]);
  }
  EXPECT_EQ(params.dynamic_lds_bytes, 0u);
  ASSERT_GT(params.kernarg_bytes, 0u);
  // The kernarg segment starts with the operand pointers, then m.
  for (size_t i = 0; i < operands.device.size(); ++i) {
    uint64_t pointer;
    std::memcpy(&pointer, kernarg.data() + 8 * i, 8);
    EXPECT_EQ(pointer, reinterpret_cast<uint64_t>(operands.device[i]));
  }
  int32_t rows;
  std::memcpy(&rows, kernarg.data() + 8 * operands.device.size(), 4);
  EXPECT_EQ(rows, m);

  const void *code = nullptr;
  size_t codeBytes = 0;
  const char *symbol = nullptr;
  ASSERT_EQ(mxf_kernel_code_object(kernel, &code, &codeBytes), MXF_SUCCESS);
  ASSERT_EQ(mxf_kernel_symbol(kernel, &symbol), MXF_SUCCESS);
  EXPECT_EQ(std::memcmp(code, "\x7f" "ELF", 4), 0);
  EXPECT_EQ(code, launch.code);
  EXPECT_NE(std::string(static_cast<const char *>(code), codeBytes).find(symbol),
            std::string::npos);

  ASSERT_EQ(mxf_launch_packed(context.get(), kernel, &params, kernarg.data(),
                              params.kernarg_bytes, nullptr),
            MXF_SUCCESS)
      << lastError();
  const std::vector<uint8_t> packedQ = operands.output(context.get(), "q");
  const std::vector<uint8_t> packedS = operands.output(context.get(), "s");
  operands.poisonOutputs(context.get());
  ASSERT_EQ(mxf_launch(context.get(), kernel, m, operands.device.data(), operands.device.size(),
                       nullptr),
            MXF_SUCCESS);
  EXPECT_EQ(operands.output(context.get(), "q"), packedQ);
  EXPECT_EQ(operands.output(context.get(), "s"), packedS);

  std::vector<uint8_t> wantQ(packedQ.size()), wantS(packedS.size());
  size_t qWritten = 0, sWritten = 0;
  ASSERT_EQ(mxf_reference(kSpec, m, operands.host[0].data(), nullptr, wantQ.data(), wantQ.size(),
                          &qWritten, wantS.data(), wantS.size(), &sWritten),
            MXF_SUCCESS)
      << lastError();
  ASSERT_LE(qWritten, packedQ.size());
  EXPECT_TRUE(std::equal(wantQ.begin(), wantQ.begin() + qWritten, packedQ.begin()));
  EXPECT_TRUE(std::equal(wantS.begin(), wantS.begin() + sWritten, packedS.begin()));
  for (size_t b = qWritten; b < packedQ.size(); ++b)
    ASSERT_EQ(packedQ[b], kPoison) << "q byte " << b << " past m=" << m << " rows was written";
}

TEST(CApiEngine, LaunchParamsRefuseBadInput) {
  std::mt19937_64 rng(testing::testSeed("CApiEngine.LaunchParamsRefuseBadInput"));
  ContextPtr context(emuContext());
  const mxf_kernel *kernel = nullptr;
  ASSERT_EQ(mxf_find_kernel(context.get(), kSpec, 4, &kernel), MXF_SUCCESS) << lastError();
  Operands operands(context.get(), kernel, rng);
  mxf_launch_params params;
  uint8_t kernarg[1024];

  // A kernarg buffer too small: the size it needs still comes back.
  EXPECT_EQ(mxf_kernel_launch_params(kernel, 4, operands.device.data(), nullptr,
                                     operands.device.size(), kernarg, 16, &params),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("the kernarg buffer has 16 bytes"), std::string::npos)
      << lastError();
  EXPECT_GT(params.kernarg_bytes, 16u);

  // An operand whose buffer cannot hold m rows.
  void *small = nullptr;
  ASSERT_EQ(mxf_malloc(context.get(), 64, &small), MXF_SUCCESS);
  std::vector<void *> tooSmall = operands.device;
  tooSmall[0] = small;
  EXPECT_EQ(mxf_kernel_launch_params(kernel, 4, tooSmall.data(), nullptr, tooSmall.size(),
                                     kernarg, sizeof kernarg, &params),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("mxf_kernel_launch_params: operand x has 64 bytes"),
            std::string::npos)
      << lastError();

  // m outside the rows of the code object's class (256; the kernel's bucket
  // 4 only names the class), a missing operand, a wrong count.
  EXPECT_EQ(mxf_kernel_launch_params(kernel, 257, operands.device.data(), nullptr,
                                     operands.device.size(), kernarg, sizeof kernarg, &params),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("m=257 is outside 1..256 (the rows this code object serves)"),
            std::string::npos)
      << lastError();
  EXPECT_EQ(mxf_kernel_launch_params(kernel, 4, operands.device.data(), nullptr, 2, kernarg,
                                     sizeof kernarg, &params),
            MXF_ERROR_INVALID_ARGUMENT);

  // A packed launch with the wrong segment size or geometry.
  ASSERT_EQ(mxf_kernel_launch_params(kernel, 4, operands.device.data(), nullptr,
                                     operands.device.size(), kernarg, sizeof kernarg, &params),
            MXF_SUCCESS);
  EXPECT_EQ(mxf_launch_packed(context.get(), kernel, &params, kernarg, params.kernarg_bytes - 8,
                              nullptr),
            MXF_ERROR_DEVICE);
  EXPECT_NE(lastError().find("the kernarg buffer has"), std::string::npos) << lastError();
  mxf_launch_params wide = params;
  wide.workgroup[0] = 2048;
  EXPECT_EQ(mxf_launch_packed(context.get(), kernel, &wide, kernarg, params.kernarg_bytes,
                              nullptr),
            MXF_ERROR_DEVICE);
  // A grid no kernel of ours needs (grid.y = 2^32 - 1): refused at once
  // instead of hours of emulated workgroups (docs/emulator.md, "Limits").
  mxf_launch_params tall = params;
  tall.grid[1] = 0xFFFFFFFFu;
  EXPECT_EQ(mxf_launch_packed(context.get(), kernel, &tall, kernarg, params.kernarg_bytes,
                              nullptr),
            MXF_ERROR_DEVICE);
  EXPECT_NE(lastError().find("workgroups exceeds the emulator's limit"), std::string::npos)
      << lastError();
  // A kernel of another context.
  ContextPtr other(emuContext());
  EXPECT_EQ(mxf_launch_packed(other.get(), kernel, &params, kernarg, params.kernarg_bytes,
                              nullptr),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("does not belong to this context"), std::string::npos);
}

TEST(CApiEngine, FormatsAndLayoutsAsEnums) {
  mxf_quant_layout layout;
  ASSERT_EQ(mxf_spec_get_quant_layout(
                "rotate_quant:K=4096,RS=64,rot=hadamard,layout=a4w4_shuffle,scale=rceil",
                &layout),
            MXF_SUCCESS)
      << lastError();
  EXPECT_EQ(layout.format, MXF_FORMAT_FP4_E2M1);
  EXPECT_EQ(layout.code_layout, MXF_LAYOUT_PLAIN);
  EXPECT_EQ(layout.scale_layout, MXF_LAYOUT_A4W4_SHUFFLE);
  EXPECT_EQ(layout.scale_rule, MXF_SCALE_RCEIL);
  EXPECT_EQ(layout.block, 32);
  EXPECT_EQ(layout.rotation, 64);
  ASSERT_EQ(mxf_spec_get_quant_layout("quant_weight:K=4096,N=256,RS=32,rot=hadamard,"
                                      "wlayout=preshuffle_16x16,layout=a4w4_shuffle",
                                      &layout),
            MXF_SUCCESS)
      << lastError();
  EXPECT_EQ(layout.format, MXF_FORMAT_FP4_E2M1);
  EXPECT_EQ(layout.code_layout, MXF_LAYOUT_PRESHUFFLE_16X16);
  EXPECT_EQ(layout.scale_layout, MXF_LAYOUT_A4W4_SHUFFLE);
  ASSERT_EQ(mxf_spec_get_quant_layout("quant_weight:K=4096,N=256,fmt=fp6_e2m3,scale=even126",
                                      &layout),
            MXF_SUCCESS)
      << lastError();
  EXPECT_EQ(layout.format, MXF_FORMAT_FP6_E2M3);
  EXPECT_EQ(layout.code_layout, MXF_LAYOUT_PLAIN);
  EXPECT_EQ(layout.scale_layout, MXF_LAYOUT_PLAIN);
  EXPECT_EQ(layout.scale_rule, MXF_SCALE_EVEN126);
  EXPECT_EQ(layout.rotation, 0);
  // AITER's A6W6 tiles are one layout of codes and scales.
  ASSERT_EQ(mxf_spec_get_quant_layout("rotate_quant:K=4096,RS=32,fmt=fp6_e2m3,scale=a6w6,"
                                      "round=rna,layout=mxfp6_c0c1_256_padk2",
                                      &layout),
            MXF_SUCCESS)
      << lastError();
  EXPECT_EQ(layout.format, MXF_FORMAT_FP6_E2M3);
  EXPECT_EQ(layout.code_layout, MXF_LAYOUT_MXFP6_C0C1_256_PADK2);
  EXPECT_EQ(layout.scale_layout, MXF_LAYOUT_MXFP6_C0C1_256_PADK2);
  EXPECT_EQ(layout.scale_rule, MXF_SCALE_A6W6);
  EXPECT_EQ(mxf_spec_get_quant_layout("rotate_quant:K=4096,layout=zigzag", &layout),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("layout"), std::string::npos) << lastError();

  ContextPtr context(emuContext());
  const mxf_kernel *kernel = nullptr;
  ASSERT_EQ(mxf_find_kernel(context.get(), kSpec, 1, &kernel), MXF_SUCCESS) << lastError();
  ASSERT_EQ(mxf_kernel_get_quant_layout(kernel, &layout), MXF_SUCCESS);
  EXPECT_EQ(layout.scale_layout, MXF_LAYOUT_PLAIN);
  EXPECT_EQ(layout.scale_rule, MXF_SCALE_EVEN);
  EXPECT_EQ(mxf_library_has_jit(), 1);
}

TEST(CApiEngine, DeviceOrdinals) {
  mxf_context_options options;
  mxf_context_options_init(&options);
  EXPECT_EQ(options.device_ordinal, MXF_DEVICE_CURRENT);
  options.device = "emu";
  options.cache_mode = MXF_CACHE_OFF;
  mxf_context *context = nullptr;
  for (int ordinal : {MXF_DEVICE_CURRENT, 0}) {
    options.device_ordinal = ordinal;
    ASSERT_EQ(mxf_context_create(&options, &context), MXF_SUCCESS) << lastError();
    mxf_context_destroy(context);
  }
  options.device_ordinal = 1;
  EXPECT_EQ(mxf_context_create(&options, &context), MXF_ERROR_DEVICE);
  EXPECT_EQ(context, nullptr);
  EXPECT_NE(lastError().find("the emu device has one GPU, ordinal 0; ordinal 1 does not exist"),
            std::string::npos)
      << lastError();
  options.device_ordinal = -7;
  EXPECT_EQ(mxf_context_create(&options, &context), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("device_ordinal -7 is not a GPU ordinal"), std::string::npos)
      << lastError();
}

// A 1.1 caller's options end before device_ordinal: only its own bytes are
// read (the struct here is followed by a poisoned tail that must not be).
TEST(CApiEngine, OptionsOfAnOlderMinorVersion) {
  struct {
    mxf_context_options options;
    char tail[64];
  } old;
  std::memset(&old, 0x5A, sizeof old);
  mxf_context_options_init(&old.options);
  old.options.api_version = (1u << 16) | 1u;
  old.options.device = "emu";
  old.options.cache_mode = MXF_CACHE_OFF;
  std::memset(reinterpret_cast<char *>(&old.options) +
                  offsetof(mxf_context_options, device_ordinal),
              0x5A, sizeof old.options - offsetof(mxf_context_options, device_ordinal));
  mxf_context *context = nullptr;
  ASSERT_EQ(mxf_context_create(&old.options, &context), MXF_SUCCESS) << lastError();
  mxf_context_destroy(context);
}

//===--- Over the fake HIP runtime -------------------------------------------===//

using mxf::test::FakeHip;

class CApiOnFakeHip : public ::testing::Test {
protected:
  void SetUp() override {
    setenv("MXFORGE_HIP_LIBRARY", FAKE_HIP_PATH, 1);
    fake.reset(kFakeHipWorking, 4);
  }
  void TearDown() override { unsetenv("MXFORGE_HIP_LIBRARY"); }

  mxf_context *hipContext(int ordinal) {
    mxf_context_options options;
    mxf_context_options_init(&options);
    options.device = "hip";
    options.cache_mode = MXF_CACHE_OFF;
    options.device_ordinal = ordinal;
    mxf_context *context = nullptr;
    EXPECT_EQ(mxf_context_create(&options, &context), MXF_SUCCESS) << lastError();
    return context;
  }

  FakeHip &fake = FakeHip::get();
};

TEST_F(CApiOnFakeHip, AnOrdinalThatDoesNotExist) {
  mxf_context_options options;
  mxf_context_options_init(&options);
  options.device = "hip";
  options.cache_mode = MXF_CACHE_OFF;
  options.device_ordinal = 9;
  mxf_context *context = nullptr;
  EXPECT_EQ(mxf_context_create(&options, &context), MXF_ERROR_DEVICE);
  EXPECT_NE(lastError().find("AMD GPU 9 was requested, but the HIP runtime sees 4"),
            std::string::npos)
      << lastError();
}

TEST_F(CApiOnFakeHip, TheCallersCurrentDevice) {
  ASSERT_EQ(fake.setDevice(3), 0);
  ContextPtr context(hipContext(MXF_DEVICE_CURRENT));
  ASSERT_TRUE(context);
  EXPECT_NE(std::string(mxf_context_device(context.get())).find("AMD GPU 3 of 4"),
            std::string::npos)
      << mxf_context_device(context.get());
  ASSERT_EQ(fake.setDevice(0), 0);
}

// A tensor-parallel engine: four ranks, each a thread on its own GPU, each
// with a context on that GPU, plus one context on GPU 2 shared by all. Every
// call (compile, load, allocate, copy, launch, synchronize) leaves each
// thread on its own device.
TEST_F(CApiOnFakeHip, NoCallLeavesTheCallersDeviceChanged) {
  ContextPtr shared(hipContext(2));
  ASSERT_TRUE(shared);
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < 4; ++rank)
    ranks.emplace_back([&, rank] {
      ASSERT_EQ(fake.setDevice(rank), 0);
      ContextPtr own(hipContext(MXF_DEVICE_CURRENT));
      ASSERT_TRUE(own);
      EXPECT_EQ(fake.current(), rank);
      for (mxf_context *context : {own.get(), shared.get()}) {
        const mxf_kernel *kernel = nullptr;
        ASSERT_EQ(mxf_find_kernel(context, kSpec, 3, &kernel), MXF_SUCCESS) << lastError();
        EXPECT_EQ(fake.current(), rank);
        std::mt19937_64 rng{uint64_t(rank)};
        Operands operands(context, kernel, rng);
        EXPECT_EQ(fake.current(), rank);
        ASSERT_EQ(mxf_launch(context, kernel, 3, operands.device.data(), operands.device.size(),
                             nullptr),
                  MXF_SUCCESS)
            << lastError();
        EXPECT_EQ(fake.current(), rank);
        ASSERT_EQ(mxf_synchronize(context), MXF_SUCCESS);
        (void)operands.output(context, "q");
        for (void *pointer : operands.device)
          ASSERT_EQ(mxf_free(context, pointer), MXF_SUCCESS);
        EXPECT_EQ(fake.current(), rank);
      }
      own.reset();
      EXPECT_EQ(fake.current(), rank);
    });
  for (std::thread &rank : ranks)
    rank.join();
  EXPECT_EQ(fake.current(), 0);
}

// Inside the engine's stream capture, a launch through the C API, and the
// engine's own launch from mxf_kernel_launch_params, reach HIP as the launch
// alone (plus the thread-local device query): nothing that capture forbids.
TEST_F(CApiOnFakeHip, LaunchInsideStreamCapture) {
  ASSERT_EQ(fake.setDevice(1), 0);
  ContextPtr context(hipContext(MXF_DEVICE_CURRENT));
  ASSERT_TRUE(context);
  const mxf_kernel *kernel = nullptr;
  ASSERT_EQ(mxf_find_kernel(context.get(), kSpec, 5, &kernel), MXF_SUCCESS) << lastError();
  std::mt19937_64 rng(5);
  Operands operands(context.get(), kernel, rng);
  uint8_t kernarg[1024];
  mxf_launch_params params;
  void *stream = reinterpret_cast<void *>(0xca97);
  fake.clearLog();
  const int launchesBefore = fake.launchCount();
  ASSERT_EQ(fake.beginCapture(stream, 0), 0);
  ASSERT_EQ(mxf_launch(context.get(), kernel, 5, operands.device.data(), operands.device.size(),
                       stream),
            MXF_SUCCESS)
      << lastError();
  ASSERT_EQ(mxf_kernel_launch_params(kernel, 5, operands.device.data(), nullptr,
                                     operands.device.size(), kernarg, sizeof kernarg, &params),
            MXF_SUCCESS);
  ASSERT_EQ(mxf_launch_packed(context.get(), kernel, &params, kernarg, params.kernarg_bytes,
                              stream),
            MXF_SUCCESS)
      << lastError();
  ASSERT_EQ(fake.endCapture(stream, nullptr), 0);
  EXPECT_EQ(std::string(fake.callLog()),
            "hipStreamBeginCapture hipGetDevice hipModuleLaunchKernel hipGetDevice "
            "hipModuleLaunchKernel hipStreamEndCapture");
  EXPECT_EQ(fake.launchCount(), launchesBefore + 2);
  const FakeHipLaunch &last = *fake.lastLaunch();
  EXPECT_EQ(last.stream, stream);
  EXPECT_EQ(last.device, 1);
  EXPECT_EQ(last.kernargSize, params.kernarg_bytes);
  EXPECT_EQ(std::memcmp(last.kernarg, kernarg, params.kernarg_bytes), 0);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(last.grid[d], params.grid[d]);
    EXPECT_EQ(last.block[d], params.workgroup[d]);
  }
  ASSERT_EQ(fake.setDevice(0), 0);
}

} // namespace
} // namespace mxf
