//===- test_capi_runtime_only.cpp - libmxforge_runtime.so, without LLVM -----===//
//
// This binary links libmxforge_runtime only (CMake checks that it links no
// LLVM or MLIR library). It loads a bundle that `mxforge bundle` wrote and a
// disk cache that the CLI filled, launches their kernels on the hip backend
// over the fake HIP runtime, and refuses what it cannot do (JIT compiles,
// the emu device) in one sentence each.
//
// MXFORGE_TOOL_PATH and FAKE_HIP_PATH are set by CMake.
//
//===----------------------------------------------------------------------===//

#include <mxforge/mxforge.h>

#include "tests/unit/runtime/fake_hip_control.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr const char *kBundled = "rotate_quant:K=256,RS=64,rot=hadamard,M=4";
constexpr const char *kCached = "rotate_quant:K=512,RS=32,rot=hadamard,M=8";
constexpr const char *kNowhere = "rotate_quant:K=1024,RS=128,rot=hadamard,M=4";

std::string lastError() { return mxf_last_error(); }

struct ContextDeleter {
  void operator()(mxf_context *context) const { mxf_context_destroy(context); }
};
using ContextPtr = std::unique_ptr<mxf_context, ContextDeleter>;

/// A scratch directory with a bundle of kBundled and a cache holding
/// kCached, both written by the CLI (the full toolchain) once per run.
class RuntimeOnly : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    char pattern[] = "/tmp/mxforge-runtime-only-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    const std::string specs = dir_ + "/bundled.txt", cachedSpecs = dir_ + "/cached.txt";
    std::FILE *file = std::fopen(specs.c_str(), "w");
    std::fprintf(file, "%s\n", kBundled);
    std::fclose(file);
    file = std::fopen(cachedSpecs.c_str(), "w");
    std::fprintf(file, "%s\n", kCached);
    std::fclose(file);
    std::string command = std::string(MXFORGE_TOOL_PATH) + " bundle --no-cache --specs " + specs +
                          " -o " + dir_ + "/decode.mxfb > /dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    // Compiling into the cache (the bundle itself is thrown away).
    command = "MXFORGE_CACHE_DIR=" + dir_ + "/cache " + MXFORGE_TOOL_PATH + " bundle --specs " +
              cachedSpecs + " -o " + dir_ + "/unused.mxfb > /dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  static void TearDownTestSuite() {
    const std::string command = "rm -rf " + dir_;
    (void)std::system(command.c_str());
  }

  void SetUp() override {
    setenv("MXFORGE_HIP_LIBRARY", FAKE_HIP_PATH, 1);
    void *fake = dlopen(FAKE_HIP_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(fake, nullptr) << dlerror();
    reinterpret_cast<FakeHipResetFn>(dlsym(fake, "fakeHipReset"))(kFakeHipWorking, 1);
    launchCount_ = reinterpret_cast<FakeHipLaunchCountFn>(dlsym(fake, "fakeHipLaunchCount"));
  }

  mxf_context *context(const char *device, bool withCache, int strict = 0) {
    mxf_context_options options;
    mxf_context_options_init(&options);
    options.device = device;
    options.strict = strict;
    const std::string cache = dir_ + "/cache";
    options.cache_mode = withCache ? MXF_CACHE_DIRECTORY : MXF_CACHE_OFF;
    options.cache_directory = cache.c_str();
    mxf_context *created = nullptr;
    mxf_status status = mxf_context_create(&options, &created);
    EXPECT_TRUE(status == MXF_SUCCESS || !created);
    return created;
  }

  /// Finds `spec`'s kernel for 3 rows and launches it on fake-hip buffers.
  void findAndLaunch(mxf_context *ctx, const char *spec, const char *origin) {
    const mxf_kernel *kernel = nullptr;
    ASSERT_EQ(mxf_find_kernel(ctx, spec, 3, &kernel), MXF_SUCCESS) << lastError();
    mxf_kernel_info info;
    ASSERT_EQ(mxf_kernel_get_info(kernel, &info), MXF_SUCCESS);
    EXPECT_STREQ(info.origin, origin);
    std::vector<void *> operands(info.operand_count);
    for (size_t i = 0; i < info.operand_count; ++i) {
      mxf_operand_info operand;
      ASSERT_EQ(mxf_kernel_get_operand(kernel, i, &operand), MXF_SUCCESS);
      ASSERT_EQ(mxf_malloc(ctx, operand.bytes, &operands[i]), MXF_SUCCESS) << lastError();
    }
    const int before = launchCount_();
    ASSERT_EQ(mxf_launch(ctx, kernel, 3, operands.data(), operands.size(), nullptr), MXF_SUCCESS)
        << lastError();
    uint8_t kernarg[1024];
    mxf_launch_params params;
    ASSERT_EQ(mxf_kernel_launch_params(kernel, 3, operands.data(), nullptr, operands.size(),
                                       kernarg, sizeof kernarg, &params),
              MXF_SUCCESS)
        << lastError();
    ASSERT_EQ(mxf_launch_packed(ctx, kernel, &params, kernarg, params.kernarg_bytes, nullptr),
              MXF_SUCCESS)
        << lastError();
    EXPECT_EQ(launchCount_(), before + 2);
    for (void *pointer : operands)
      EXPECT_EQ(mxf_free(ctx, pointer), MXF_SUCCESS);
  }

  static std::string dir_;
  FakeHipLaunchCountFn launchCount_ = nullptr;
};
std::string RuntimeOnly::dir_;

TEST_F(RuntimeOnly, HasNoJit) { EXPECT_EQ(mxf_library_has_jit(), 0); }

TEST_F(RuntimeOnly, LaunchesBundleKernels) {
  ContextPtr ctx(context("hip", /*withCache=*/false));
  ASSERT_TRUE(ctx) << lastError();
  const std::string bundle = dir_ + "/decode.mxfb";
  size_t kernels = 0;
  ASSERT_EQ(mxf_load_bundle(ctx.get(), bundle.c_str(), &kernels), MXF_SUCCESS) << lastError();
  EXPECT_EQ(kernels, 1u);
  findAndLaunch(ctx.get(), kBundled, "bundle");
}

// Class dispatch without a compiler (issue 32): the bundle's bucket-4 entry
// holds the code object of its class (256 rows), so m = 5..256 are served
// from it; before, they were "in no loaded bundle".
TEST_F(RuntimeOnly, ABundleServesEveryMOfItsClass) {
  ContextPtr ctx(context("hip", /*withCache=*/false, /*strict=*/1));
  ASSERT_TRUE(ctx) << lastError();
  ASSERT_EQ(mxf_load_bundle(ctx.get(), (dir_ + "/decode.mxfb").c_str(), nullptr), MXF_SUCCESS)
      << lastError();
  for (int m : {5, 17, 256}) {
    const mxf_kernel *kernel = nullptr;
    ASSERT_EQ(mxf_find_kernel(ctx.get(), kBundled, m, &kernel), MXF_SUCCESS)
        << "M=" << m << ": " << lastError();
    mxf_kernel_info info;
    ASSERT_EQ(mxf_kernel_get_info(kernel, &info), MXF_SUCCESS);
    EXPECT_STREQ(info.origin, "bundle");
    EXPECT_GE(info.bucket, m);
  }
}

TEST_F(RuntimeOnly, AStrictContextRefusesTheNullStream) {
  ContextPtr ctx(context("hip", /*withCache=*/false, /*strict=*/1));
  ASSERT_TRUE(ctx) << lastError();
  const std::string bundle = dir_ + "/decode.mxfb";
  ASSERT_EQ(mxf_load_bundle(ctx.get(), bundle.c_str(), nullptr), MXF_SUCCESS) << lastError();
  const mxf_kernel *kernel = nullptr;
  ASSERT_EQ(mxf_find_kernel(ctx.get(), kBundled, 2, &kernel), MXF_SUCCESS) << lastError();
  mxf_kernel_info info;
  ASSERT_EQ(mxf_kernel_get_info(kernel, &info), MXF_SUCCESS);
  std::vector<void *> operands(info.operand_count);
  for (size_t i = 0; i < operands.size(); ++i) {
    mxf_operand_info operand;
    ASSERT_EQ(mxf_kernel_get_operand(kernel, i, &operand), MXF_SUCCESS);
    ASSERT_EQ(mxf_malloc(ctx.get(), operand.bytes, &operands[i]), MXF_SUCCESS);
  }
  const int before = launchCount_();
  EXPECT_EQ(mxf_launch(ctx.get(), kernel, 2, operands.data(), operands.size(), nullptr),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("mxf_launch: the stream is NULL (the default stream), which a "
                             "strict context refuses"),
            std::string::npos)
      << lastError();
  uint8_t kernarg[1024];
  mxf_launch_params params;
  ASSERT_EQ(mxf_kernel_launch_params(kernel, 2, operands.data(), nullptr, operands.size(),
                                     kernarg, sizeof kernarg, &params),
            MXF_SUCCESS);
  EXPECT_EQ(mxf_launch_packed(ctx.get(), kernel, &params, kernarg, params.kernarg_bytes, nullptr),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(launchCount_(), before); // nothing launched
  void *stream = reinterpret_cast<void *>(0x5157);
  EXPECT_EQ(mxf_launch(ctx.get(), kernel, 2, operands.data(), operands.size(), stream),
            MXF_SUCCESS)
      << lastError();
  EXPECT_EQ(launchCount_(), before + 1);
}

TEST_F(RuntimeOnly, ReadsTheDiskCacheTheJitFilled) {
  ContextPtr ctx(context("hip", /*withCache=*/true));
  ASSERT_TRUE(ctx) << lastError();
  findAndLaunch(ctx.get(), kCached, "cache");
  mxf_cache_info cache;
  ASSERT_EQ(mxf_context_get_cache(ctx.get(), &cache), MXF_SUCCESS);
  EXPECT_EQ(cache.cache_hits, 1u);
  EXPECT_EQ(cache.compiled, 0u);
}

TEST_F(RuntimeOnly, ASpecNoBundleOrCacheHoldsIsNotFound) {
  ContextPtr ctx(context("hip", /*withCache=*/true));
  ASSERT_TRUE(ctx) << lastError();
  EXPECT_EQ(mxf_compile(ctx.get(), kNowhere), MXF_ERROR_NOT_FOUND);
  EXPECT_NE(lastError().find("is in no loaded bundle and not in the disk cache ("),
            std::string::npos)
      << lastError();
  EXPECT_NE(lastError().find("libmxforge_runtime has no JIT: load a bundle that holds it, or "
                             "use libmxforge"),
            std::string::npos)
      << lastError();
  const mxf_kernel *kernel = nullptr;
  EXPECT_EQ(mxf_find_kernel(ctx.get(), kNowhere, 2, &kernel), MXF_ERROR_NOT_FOUND);
  EXPECT_EQ(kernel, nullptr);
  // Without a cache the message says so.
  ContextPtr uncached(context("hip", /*withCache=*/false));
  EXPECT_EQ(mxf_compile(uncached.get(), kNowhere), MXF_ERROR_NOT_FOUND);
  EXPECT_NE(lastError().find("(the disk cache is off)"), std::string::npos) << lastError();
}

TEST_F(RuntimeOnly, HasNoEmulator) {
  mxf_context *ctx = context("emu", false);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_NE(lastError().find("the emu device is not in this program or library"),
            std::string::npos)
      << lastError();
}

TEST_F(RuntimeOnly, TheReferenceAndSpecQueriesWork) {
  mxf_quant_layout layout;
  ASSERT_EQ(mxf_spec_get_quant_layout(kBundled, &layout), MXF_SUCCESS) << lastError();
  EXPECT_EQ(layout.rotation, 64);
  std::vector<uint16_t> x(256, 0x3F80); // 1.0
  std::vector<uint8_t> q(128), s(8);
  size_t qWritten = 0, sWritten = 0;
  ASSERT_EQ(mxf_reference(kBundled, 1, x.data(), nullptr, q.data(), q.size(), &qWritten,
                          s.data(), s.size(), &sWritten),
            MXF_SUCCESS)
      << lastError();
  EXPECT_EQ(qWritten, 128u);
  EXPECT_EQ(sWritten, 8u);
}

} // namespace
