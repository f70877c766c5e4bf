//===- test_capi_run.cpp - Kernels through the C API, checked bit for bit -===//

#include "tests/unit/capi/capi_test_support.h"
#include "tests/unit/test_seed.h"

#include <dirent.h>
#include <cstring>
#include <random>
#include <vector>

namespace mxf {
namespace {

using testing::ContextPtr;
using testing::emuContext;
using testing::lastError;

constexpr uint8_t kPoison = 0xA5;

uint16_t bf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return uint16_t((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

/// Runs `family` for `m` rows with random inputs and compares every output
/// byte with mxf_reference; bytes past the reference's must stay poisoned.
void runAndCheck(mxf_context *context, const char *family, int m, std::mt19937_64 &rng,
                 int expectBucket) {
  const mxf_kernel *kernel = nullptr;
  ASSERT_EQ(mxf_find_kernel(context, family, m, &kernel), MXF_SUCCESS) << lastError();
  mxf_kernel_info info;
  ASSERT_EQ(mxf_kernel_get_info(kernel, &info), MXF_SUCCESS);
  EXPECT_EQ(info.bucket, expectBucket);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::vector<uint8_t>> host(info.operand_count);
  std::vector<void *> device(info.operand_count);
  std::vector<mxf_operand_info> operands(info.operand_count);
  int x = -1, r = -1, q = -1, s = -1;
  for (size_t i = 0; i < info.operand_count; ++i) {
    ASSERT_EQ(mxf_kernel_get_operand(kernel, i, &operands[i]), MXF_SUCCESS);
    const std::string name = operands[i].name;
    host[i].assign(operands[i].bytes, kPoison);
    if (!operands[i].is_output) {
      uint16_t *values = reinterpret_cast<uint16_t *>(host[i].data());
      // Rotation matrices stay small; activations get outliers.
      for (size_t e = 0; e < host[i].size() / 2; ++e)
        values[e] = bf16(name == "r" ? normal(rng) * 0.125f
                                     : normal(rng) * (rng() % 50 == 0 ? 30.0f : 1.0f));
    }
    (name == "x" ? x : name == "r" ? r : name == "q" ? q : s) = int(i);
    ASSERT_EQ(mxf_malloc(context, operands[i].bytes, &device[i]), MXF_SUCCESS);
    ASSERT_EQ(mxf_memcpy_to_device(context, device[i], host[i].data(), host[i].size()),
              MXF_SUCCESS);
  }
  ASSERT_GE(x, 0);
  ASSERT_GE(q, 0);
  ASSERT_GE(s, 0);
  ASSERT_EQ(mxf_launch(context, kernel, m, device.data(), device.size(), nullptr), MXF_SUCCESS)
      << lastError();
  ASSERT_EQ(mxf_synchronize(context), MXF_SUCCESS);
  for (size_t i = 0; i < info.operand_count; ++i) {
    if (operands[i].is_output) {
      ASSERT_EQ(mxf_memcpy_to_host(context, host[i].data(), device[i], host[i].size()),
                MXF_SUCCESS);
    }
  }

  std::vector<uint8_t> wantQ(host[q].size()), wantS(host[s].size());
  size_t qWritten = 0, sWritten = 0;
  ASSERT_EQ(mxf_reference(info.spec, m, host[x].data(), r >= 0 ? host[r].data() : nullptr,
                          wantQ.data(), wantQ.size(), &qWritten, wantS.data(), wantS.size(),
                          &sWritten),
            MXF_SUCCESS)
      << lastError();
  ASSERT_GT(qWritten, 0u);
  ASSERT_GT(sWritten, 0u);
  size_t mismatches = 0, touched = 0;
  auto compare = [&](const std::vector<uint8_t> &got, const std::vector<uint8_t> &want,
                     size_t written) {
    for (size_t b = 0; b < got.size(); ++b) {
      if (b < written)
        mismatches += got[b] != want[b];
      else
        touched += got[b] != kPoison;
    }
  };
  compare(host[q], wantQ, qWritten);
  compare(host[s], wantS, sWritten);
  EXPECT_EQ(mismatches, 0u) << info.spec << " M=" << m;
  EXPECT_EQ(touched, 0u) << info.spec << ": bytes past M were written";
  for (void *pointer : device)
    EXPECT_EQ(mxf_free(context, pointer), MXF_SUCCESS);
}

TEST(CApiRun, JitKernelsMatchTheReferenceBitForBit) {
  std::mt19937_64 rng(testing::testSeed("CApiRun.JitKernelsMatchTheReferenceBitForBit"));
  ContextPtr context(emuContext());
  ASSERT_TRUE(context);
  const int m = 1 + int(rng() % 8); // a random ragged batch
  const int bucket = m == 1 ? 1 : m <= 2 ? 2 : m <= 4 ? 4 : 8;
  runAndCheck(context.get(), "rotate_quant:K=1024,RS=64,rot=hadamard,M=1", m, rng, bucket);
  runAndCheck(context.get(),
              "rotate_quant:K=512,RS=32,rot=learned,M=1,scale=rceil,layout=a4w4_shuffle", m, rng,
              bucket);
  runAndCheck(context.get(), "rotate_quant:K=512,RS=0,M=1,inter=bf16", m, rng, bucket);
}

TEST(CApiRun, CacheDirectoryModeFillsTheCache) {
  char pattern[] = "/tmp/mxforge-capi-cache-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  mxf_context_options options;
  mxf_context_options_init(&options);
  options.device = "emu";
  options.cache_mode = MXF_CACHE_DIRECTORY;
  options.cache_directory = dir.c_str();
  for (const char *expectOrigin : {"jit", "cache"}) {
    mxf_context *raw = nullptr;
    ASSERT_EQ(mxf_context_create(&options, &raw), MXF_SUCCESS) << lastError();
    ContextPtr context(raw);
    const mxf_kernel *kernel = nullptr;
    ASSERT_EQ(mxf_find_kernel(context.get(), "rotate_quant:K=256,RS=32,rot=hadamard", 1, &kernel),
              MXF_SUCCESS)
        << lastError();
    mxf_kernel_info info;
    ASSERT_EQ(mxf_kernel_get_info(kernel, &info), MXF_SUCCESS);
    EXPECT_STREQ(info.origin, expectOrigin);
  }
  size_t entries = 0;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *entry = ::readdir(d))
      entries += std::strstr(entry->d_name, ".mxfc") != nullptr;
    ::closedir(d);
  }
  EXPECT_EQ(entries, 1u);
  (void)std::system(("rm -rf '" + dir + "'").c_str());
}

} // namespace
} // namespace mxf
