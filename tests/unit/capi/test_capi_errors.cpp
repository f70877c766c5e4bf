//===- test_capi_errors.cpp - Every bad call gets a status and a message --===//

#include "tests/unit/capi/capi_test_support.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <unistd.h>
#include <chrono>

namespace mxf {
namespace {

using testing::ContextPtr;
using testing::emuContext;
using testing::lastError;

const char *const kSpec = "rotate_quant:K=1024,RS=64,rot=hadamard,M=4";

TEST(CApiErrors, VersionsAndStatusStrings) {
  EXPECT_EQ(mxf_api_version(), uint32_t(MXFORGE_API_VERSION));
  EXPECT_NE(std::string(mxf_version_string()).find("mxforge "), std::string::npos);
  EXPECT_STREQ(mxf_status_string(MXF_SUCCESS), "success");
  EXPECT_STREQ(mxf_status_string(MXF_ERROR_BUNDLE), "bundle error");
  EXPECT_STREQ(mxf_status_string(static_cast<mxf_status>(99)), "unknown status");
}

TEST(CApiErrors, ContextCreationChecksItsOptions) {
  mxf_context *context = reinterpret_cast<mxf_context *>(0x1);
  EXPECT_EQ(mxf_context_create(nullptr, nullptr), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mxf_context_create: context is NULL");

  mxf_context_options options;
  mxf_context_options_init(&options);
  options.device = "emu";
  options.api_version = (MXFORGE_API_VERSION_MAJOR + 1) << 16;
  EXPECT_EQ(mxf_context_create(&options, &context), MXF_ERROR_VERSION);
  EXPECT_EQ(context, nullptr) << "set to NULL on failure";
  EXPECT_NE(lastError().find("C API version 2.0, this library is 1."), std::string::npos)
      << lastError();

  mxf_context_options_init(&options);
  options.device = "tpu";
  EXPECT_EQ(mxf_context_create(&options, &context), MXF_ERROR_DEVICE);
  EXPECT_NE(lastError().find("tpu"), std::string::npos) << lastError();

  mxf_context_options_init(&options);
  options.device = "emu";
  options.code_object_version = 4;
  EXPECT_EQ(mxf_context_create(&options, &context), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mxf_context_create: code_object_version 4 is not 5 or 6");

  mxf_context_options_init(&options);
  options.device = "emu";
  options.cache_mode = MXF_CACHE_DIRECTORY;
  EXPECT_EQ(mxf_context_create(&options, &context), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("cache_directory is empty"), std::string::npos);
  mxf_context_destroy(nullptr); // a no-op
}

TEST(CApiErrors, HipWithoutAGpuSaysSo) {
  // This machine has no AMD GPU (and usually no libamdhip64): the hip
  // device must fail to open with a message, never crash.
  mxf_context_options options;
  mxf_context_options_init(&options);
  options.cache_mode = MXF_CACHE_OFF;
  mxf_context *context = nullptr;
  mxf_status status = mxf_context_create(&options, &context);
  if (status == MXF_SUCCESS) {
    mxf_context_destroy(context);
    GTEST_SKIP() << "a HIP device is present";
  }
  EXPECT_EQ(status, MXF_ERROR_DEVICE);
  EXPECT_NE(lastError().find("mxf_context_create: "), std::string::npos);
  EXPECT_GT(lastError().size(), std::string("mxf_context_create: ").size());
}

TEST(CApiErrors, BadSpecsBundlesAndRowCounts) {
  ContextPtr context(emuContext());
  ASSERT_TRUE(context);
  EXPECT_EQ(mxf_compile(context.get(), "rotate_quant:K=1000"), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("mxf_compile: invalid spec: "), std::string::npos) << lastError();
  EXPECT_EQ(mxf_compile(context.get(), nullptr), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mxf_compile: spec is NULL");

  EXPECT_EQ(mxf_load_bundle(context.get(), "/nonexistent/x.mxfb", nullptr), MXF_ERROR_BUNDLE);
  EXPECT_NE(lastError().find("/nonexistent/x.mxfb"), std::string::npos) << lastError();
  char path[] = "/tmp/mxforge-capi-XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "not a bundle at all, just text", 30), 30);
  ::close(fd);
  EXPECT_EQ(mxf_load_bundle(context.get(), path, nullptr), MXF_ERROR_BUNDLE);
  EXPECT_NE(lastError().find(path), std::string::npos) << lastError();
  ::unlink(path);

  const mxf_kernel *kernel = reinterpret_cast<const mxf_kernel *>(0x1);
  EXPECT_EQ(mxf_find_kernel(context.get(), kSpec, 0, &kernel), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(kernel, nullptr);
  EXPECT_NE(lastError().find("M=0 is outside 1..256"), std::string::npos) << lastError();
  EXPECT_EQ(mxf_find_kernel(context.get(), kSpec, 257, &kernel), MXF_ERROR_INVALID_ARGUMENT);
}

TEST(CApiErrors, StrictModeWithoutABundleIsNotFound) {
  ContextPtr context(emuContext(/*strict=*/true));
  ASSERT_TRUE(context);
  const mxf_kernel *kernel = nullptr;
  EXPECT_EQ(mxf_find_kernel(context.get(), kSpec, 3, &kernel), MXF_ERROR_NOT_FOUND);
  EXPECT_NE(lastError().find("strict mode"), std::string::npos) << lastError();
  EXPECT_EQ(mxf_compile(context.get(), kSpec), MXF_ERROR_NOT_FOUND);
}

TEST(CApiErrors, CompileAllReportsEachSpec) {
  ContextPtr context(emuContext());
  ASSERT_TRUE(context);
  const char *specs[] = {kSpec, "rotate_quant:K=7", nullptr};
  mxf_status statuses[3];
  EXPECT_EQ(mxf_compile_all(context.get(), specs, 3, 2, statuses), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(statuses[0], MXF_SUCCESS);
  EXPECT_EQ(statuses[1], MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(statuses[2], MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("2 of 3 specs failed; first: specs[1]"), std::string::npos)
      << lastError();
  EXPECT_EQ(mxf_compile_all(context.get(), specs, 1, 0, nullptr), MXF_SUCCESS);
}

TEST(CApiErrors, LaunchAndMemoryArgumentsAreChecked) {
  ContextPtr context(emuContext());
  ContextPtr other(emuContext());
  ASSERT_TRUE(context && other);
  const mxf_kernel *kernel = nullptr;
  ASSERT_EQ(mxf_find_kernel(context.get(), kSpec, 2, &kernel), MXF_SUCCESS) << lastError();
  mxf_kernel_info info;
  ASSERT_EQ(mxf_kernel_get_info(kernel, &info), MXF_SUCCESS);
  ASSERT_EQ(info.operand_count, 3u); // x, q, s
  EXPECT_EQ(info.bucket, 2) << "M=2 needs the M=2 bucket";
  mxf_operand_info operand;
  EXPECT_EQ(mxf_kernel_get_operand(kernel, 3, &operand), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mxf_kernel_get_operand: index 3 >= operand count 3");

  void *buffers[3] = {};
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(mxf_kernel_get_operand(kernel, i, &operand), MXF_SUCCESS);
    ASSERT_EQ(mxf_malloc(context.get(), operand.bytes, &buffers[i]), MXF_SUCCESS);
  }
  EXPECT_EQ(mxf_launch(context.get(), kernel, 1, buffers, 2, nullptr), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("takes 3 operands, 2 were given"), std::string::npos) << lastError();
  EXPECT_EQ(mxf_launch(context.get(), kernel, 257, buffers, 3, nullptr),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("m=257 is outside 1..256"), std::string::npos) << lastError();
  // m = 3 is inside the class (the bucket, 2, only names it), but the
  // buffers were sized for 2 rows.
  EXPECT_EQ(mxf_launch(context.get(), kernel, 3, buffers, 3, nullptr), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("for m=3 rows"), std::string::npos) << lastError();
  EXPECT_EQ(mxf_launch(other.get(), kernel, 1, buffers, 3, nullptr), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mxf_launch: the kernel does not belong to this context");
  void *shifted[3] = {buffers[0], static_cast<char *>(buffers[1]) + 1, buffers[2]};
  // The buffers are sized for the bucket (2 rows): one byte short of that
  // is too small for m=2, and still enough for the m=1 rows a launch of one
  // row touches.
  EXPECT_EQ(mxf_launch(context.get(), kernel, 2, shifted, 3, nullptr), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("operand q has"), std::string::npos) << lastError();
  EXPECT_NE(lastError().find("for m=2 rows"), std::string::npos) << lastError();
  EXPECT_EQ(mxf_launch(context.get(), kernel, 1, shifted, 3, nullptr), MXF_SUCCESS) << lastError();
  void *withNull[3] = {buffers[0], nullptr, buffers[2]};
  EXPECT_EQ(mxf_launch(context.get(), kernel, 1, withNull, 3, nullptr), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mxf_launch: operand q is NULL");
  EXPECT_EQ(mxf_launch(context.get(), kernel, 1, buffers, 3, nullptr), MXF_SUCCESS) << lastError();

  char host[16];
  EXPECT_EQ(mxf_memcpy_to_host(context.get(), host, reinterpret_cast<void *>(0x10), 16),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("is not inside a buffer of mxf_malloc"), std::string::npos);
  ASSERT_EQ(mxf_kernel_get_operand(kernel, 2, &operand), MXF_SUCCESS);
  EXPECT_EQ(mxf_memcpy_to_host(context.get(), host,
                               static_cast<char *>(buffers[2]) + operand.bytes - 8, 16),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("run past the end"), std::string::npos) << lastError();
  EXPECT_EQ(mxf_free(context.get(), buffers[0]), MXF_SUCCESS);
  EXPECT_EQ(mxf_free(context.get(), buffers[0]), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("was freed already"), std::string::npos) << lastError();
  EXPECT_EQ(mxf_free(context.get(), nullptr), MXF_SUCCESS);
  // buffers[1] and [2] are released with the context.
}

// Each emu context allocates in an address window of its own, so a buffer of
// one context is no buffer in another: refused, never a launch that touches
// the first context's memory (issue 17, finding 7).
TEST(CApiErrors, ABufferOfAnotherContextIsRefused) {
  ContextPtr context(emuContext());
  ContextPtr other(emuContext());
  ASSERT_TRUE(context && other);
  const mxf_kernel *kernel = nullptr;
  ASSERT_EQ(mxf_find_kernel(context.get(), kSpec, 1, &kernel), MXF_SUCCESS) << lastError();
  void *mine[3] = {}, *theirs[3] = {};
  for (size_t i = 0; i < 3; ++i) {
    mxf_operand_info operand;
    ASSERT_EQ(mxf_kernel_get_operand(kernel, i, &operand), MXF_SUCCESS);
    ASSERT_EQ(mxf_malloc(context.get(), operand.bytes, &mine[i]), MXF_SUCCESS);
    ASSERT_EQ(mxf_malloc(other.get(), operand.bytes, &theirs[i]), MXF_SUCCESS);
    EXPECT_NE(mine[i], theirs[i]) << "two contexts handed out the same address";
  }
  EXPECT_EQ(mxf_launch(context.get(), kernel, 1, mine, 3, nullptr), MXF_SUCCESS) << lastError();
  void *mixed[3] = {mine[0], theirs[1], mine[2]};
  EXPECT_EQ(mxf_launch(context.get(), kernel, 1, mixed, 3, nullptr), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("operand q"), std::string::npos) << lastError();
  char host[8] = {};
  EXPECT_EQ(mxf_memcpy_to_device(context.get(), theirs[0], host, sizeof host),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("is not inside a buffer of mxf_malloc"), std::string::npos)
      << lastError();
  EXPECT_EQ(mxf_free(context.get(), theirs[0]), MXF_ERROR_INVALID_ARGUMENT);
}

// After mxf_context_mark_startup_done a JIT compile follows the late-JIT
// policy: MXFORGE_JIT sets the default, mxf_context_set_late_jit changes it.
TEST(CApiErrors, LateJitCompilesCanBeRefused) {
  ::setenv("MXFORGE_JIT", "often", 1);
  mxf_context_options options;
  mxf_context_options_init(&options);
  options.device = "emu";
  options.cache_mode = MXF_CACHE_OFF;
  mxf_context *refused = reinterpret_cast<mxf_context *>(0x1);
  EXPECT_EQ(mxf_context_create(&options, &refused), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(refused, nullptr);
  EXPECT_EQ(lastError(),
            "mxf_context_create: MXFORGE_JIT='often' is not one of allow, warn, error");
  ::setenv("MXFORGE_JIT", "error", 1);
  ContextPtr context(emuContext());
  ::unsetenv("MXFORGE_JIT");
  ASSERT_TRUE(context);
  const mxf_kernel *kernel = nullptr;
  ASSERT_EQ(mxf_find_kernel(context.get(), kSpec, 1, &kernel), MXF_SUCCESS) << lastError();
  ASSERT_EQ(mxf_context_mark_startup_done(context.get()), MXF_SUCCESS);
  EXPECT_EQ(mxf_find_kernel(context.get(), kSpec, 1, &kernel), MXF_SUCCESS)
      << "a kernel the table already holds is not a compile";
  EXPECT_EQ(mxf_find_kernel(context.get(), "rotate_quant:K=512", 1, &kernel), MXF_ERROR_COMPILE);
  EXPECT_NE(lastError().find("after start-up was marked done (MXFORGE_JIT=error) is refused"),
            std::string::npos)
      << lastError();
  ASSERT_EQ(mxf_context_set_late_jit(context.get(), MXF_LATE_JIT_ALLOW), MXF_SUCCESS);
  EXPECT_EQ(mxf_find_kernel(context.get(), "rotate_quant:K=768", 1, &kernel), MXF_SUCCESS)
      << lastError();
  EXPECT_EQ(mxf_context_set_late_jit(context.get(), 7), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mxf_context_set_late_jit: policy 7 is not MXF_LATE_JIT_ALLOW, _WARN "
                         "or _ERROR");
  EXPECT_EQ(mxf_context_mark_startup_done(nullptr), MXF_ERROR_INVALID_ARGUMENT);
}

TEST(CApiErrors, LastErrorIsPerThread) {
  std::string seenA, seenB;
  std::thread a([&] {
    (void)mxf_compile(nullptr, "x");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    seenA = mxf_last_error();
  });
  std::thread b([&] {
    (void)mxf_launch(nullptr, nullptr, 1, nullptr, 0, nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    seenB = mxf_last_error();
  });
  a.join();
  b.join();
  EXPECT_EQ(seenA, "mxf_compile: context is NULL");
  EXPECT_EQ(seenB, "mxf_launch: context is NULL");
}

} // namespace
} // namespace mxf
