//===- test_capi_run.cpp - Kernels through the C API, checked bit for bit -===//

#include "tests/unit/capi/capi_test_support.h"
#include "tests/support/scratch_directory.h"
#include "tests/unit/test_seed.h"

#include <dirent.h>
#include <cstring>
#include <algorithm>
#include <map>
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

// Class dispatch (issue 32): a bundle of buckets 1-8 holds one code object
// whose class serves 256 rows. With MXFORGE_JIT=error and start-up marked
// done, it serves every m = 9..256 from that code object: each m finds a
// bundle kernel (of the bucket >= m, its class's entry), nothing compiles and
// nothing is refused. The bucket-8 kernel itself takes m up to the class
// limit. Before, m = 9 compiled bucket 16 again, refused here.
TEST(CApiRun, ABundleOfBuckets1To8ServesEveryMOfItsClass) {
  std::mt19937_64 rng(testing::testSeed("CApiRun.ABundleOfBuckets1To8ServesEveryMOfItsClass"));
  testing::ScratchDirectory dir("mxforge-capi-class");
  ASSERT_TRUE(dir.ok());
  const char *family = "rotate_quant:K=512,RS=64,rot=hadamard,M=1";
  {
    FILE *file = std::fopen(dir.file("specs.txt").c_str(), "w");
    ASSERT_NE(file, nullptr);
    for (int bucket : {1, 2, 4, 8})
      std::fprintf(file, "rotate_quant:K=512,RS=64,rot=hadamard,M=%d\n", bucket);
    std::fclose(file);
  }
  const std::string command = std::string(MXFORGE_TOOL_PATH) + " bundle --no-cache --specs " +
                              dir.file("specs.txt") + " -o " + dir.file("b.mxfb") + " > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;

  ::setenv("MXFORGE_JIT", "error", 1);
  ContextPtr context(emuContext());
  ::unsetenv("MXFORGE_JIT");
  ASSERT_TRUE(context);
  ASSERT_EQ(mxf_load_bundle(context.get(), dir.file("b.mxfb").c_str(), nullptr), MXF_SUCCESS)
      << lastError();
  ASSERT_EQ(mxf_context_mark_startup_done(context.get()), MXF_SUCCESS);
  for (int m = 9; m <= 256; ++m) {
    const mxf_kernel *kernel = nullptr;
    ASSERT_EQ(mxf_find_kernel(context.get(), family, m, &kernel), MXF_SUCCESS)
        << "M=" << m << ": " << lastError();
    mxf_kernel_info info;
    ASSERT_EQ(mxf_kernel_get_info(kernel, &info), MXF_SUCCESS);
    EXPECT_STREQ(info.origin, "bundle") << "M=" << m;
    EXPECT_GE(info.bucket, m);
    mxf_launch_info launch;
    ASSERT_EQ(mxf_kernel_get_launch(kernel, m, &launch), MXF_SUCCESS) << lastError();
    EXPECT_EQ(launch.max_rows, 256u);
  }
  mxf_cache_info stats;
  ASSERT_EQ(mxf_context_get_cache(context.get(), &stats), MXF_SUCCESS);
  EXPECT_EQ(stats.compiled, 0u);
  EXPECT_EQ(stats.failures, 0u);
  // Launched on the emulator, bit for bit against the reference.
  runAndCheck(context.get(), family, 9, rng, 16);
  runAndCheck(context.get(), family, 256, rng, 256);

  // The bucket-8 kernel takes every m of its class, and no more.
  const mxf_kernel *bucket8 = nullptr;
  ASSERT_EQ(mxf_find_kernel(context.get(), family, 8, &bucket8), MXF_SUCCESS) << lastError();
  mxf_launch_info launch;
  ASSERT_EQ(mxf_kernel_get_launch(bucket8, 256, &launch), MXF_SUCCESS) << lastError();
  EXPECT_EQ(launch.grid[1], 256u / 16);
  EXPECT_EQ(mxf_kernel_get_launch(bucket8, 257, &launch), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("m=257 is outside 1..256 (the rows this code object serves)"),
            std::string::npos)
      << lastError();
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

/// An engine's views (x and q rows wider than the row) launch as they are
/// and give the dense launch's bytes; the gaps keep what they held.
TEST(CApiRun, StridedViewsAndTheLaunchInfo) {
  ContextPtr context(emuContext());
  ASSERT_TRUE(context);
  const mxf_kernel *kernel = nullptr;
  ASSERT_EQ(mxf_find_kernel(context.get(), "rotate_quant:K=512,RS=64,rot=hadamard,M=8", 3,
                            &kernel),
            MXF_SUCCESS)
      << lastError();
  const int m = 3;
  const size_t k = 512, qRow = 256, sBytes = m * 16;
  const int64_t xStride = 576, qStride = 320;
  std::mt19937_64 rng(testing::testSeed("CApiRun.StridedViewsAndTheLaunchInfo"));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<uint16_t> dense(m * k), strided((m - 1) * xStride + k, 0x7FC1); // NaN gaps
  for (int row = 0; row < m; ++row)
    for (size_t c = 0; c < k; ++c)
      strided[row * xStride + c] = dense[row * k + c] = bf16(normal(rng));

  mxf_operand_info q;
  ASSERT_EQ(mxf_kernel_get_operand(kernel, 1, &q), MXF_SUCCESS);
  EXPECT_STREQ(q.row_stride_arg, "q_stride");
  auto run = [&](const std::vector<uint16_t> &x, const int64_t *strides, size_t qBytes,
                 std::vector<uint8_t> &qOut, std::vector<uint8_t> &sOut) {
    void *buffers[3];
    EXPECT_EQ(mxf_malloc(context.get(), x.size() * 2, &buffers[0]), MXF_SUCCESS);
    EXPECT_EQ(mxf_malloc(context.get(), qBytes, &buffers[1]), MXF_SUCCESS);
    EXPECT_EQ(mxf_malloc(context.get(), sBytes, &buffers[2]), MXF_SUCCESS);
    qOut.assign(qBytes, kPoison);
    sOut.assign(sBytes, kPoison);
    EXPECT_EQ(mxf_memcpy_to_device(context.get(), buffers[0], x.data(), x.size() * 2),
              MXF_SUCCESS);
    EXPECT_EQ(mxf_memcpy_to_device(context.get(), buffers[1], qOut.data(), qBytes), MXF_SUCCESS);
    EXPECT_EQ(mxf_memcpy_to_device(context.get(), buffers[2], sOut.data(), sBytes), MXF_SUCCESS);
    const mxf_status status =
        mxf_launch_strided(context.get(), kernel, m, buffers, strides, 3, nullptr);
    EXPECT_EQ(mxf_memcpy_to_host(context.get(), qOut.data(), buffers[1], qBytes), MXF_SUCCESS);
    EXPECT_EQ(mxf_memcpy_to_host(context.get(), sOut.data(), buffers[2], sBytes), MXF_SUCCESS);
    for (void *buffer : buffers)
      EXPECT_EQ(mxf_free(context.get(), buffer), MXF_SUCCESS);
    return status;
  };
  std::vector<uint8_t> qDense, sDense, qView, sView;
  ASSERT_EQ(run(dense, nullptr, m * qRow, qDense, sDense), MXF_SUCCESS) << lastError();
  const int64_t strides[3] = {xStride, qStride, 0};
  ASSERT_EQ(run(strided, strides, (m - 1) * qStride + qRow, qView, sView), MXF_SUCCESS)
      << lastError();
  EXPECT_EQ(sView, sDense);
  size_t differ = 0, gapsWritten = 0;
  for (int row = 0; row < m; ++row) {
    for (size_t c = 0; c < qRow; ++c)
      differ += qView[row * qStride + c] != qDense[row * qRow + c];
    for (size_t c = qRow; row + 1 < m && c < size_t(qStride); ++c)
      gapsWritten += qView[row * qStride + c] != kPoison;
  }
  EXPECT_EQ(differ, 0u);
  EXPECT_EQ(gapsWritten, 0u);

  // A stride below the row is refused, naming it.
  const int64_t narrow[3] = {500, 0, 0};
  EXPECT_EQ(run(dense, narrow, m * qRow, qView, sView), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("the row stride of 'x' is 500"), std::string::npos) << lastError();

  // The launch info: the record's grid for m, and the code object itself.
  mxf_launch_info launch;
  ASSERT_EQ(mxf_kernel_get_launch(kernel, m, &launch), MXF_SUCCESS) << lastError();
  EXPECT_EQ(launch.grid[0], 512u / 64 / 4);
  EXPECT_EQ(launch.grid[1], 1u);
  EXPECT_EQ(launch.workgroup[0], 256u);
  EXPECT_EQ(launch.abi_version, 2u);
  ASSERT_NE(launch.code, nullptr);
  EXPECT_GT(launch.code_bytes, 4u);
  EXPECT_EQ(std::memcmp(launch.code, "\x7f" "ELF", 4), 0);
  // Up to its class's limit (256), not its bucket (4): the bucket only names the class.
  EXPECT_EQ(mxf_kernel_get_launch(kernel, 9, &launch), MXF_SUCCESS) << lastError();
  EXPECT_EQ(mxf_kernel_get_launch(kernel, 257, &launch), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("m=257 is outside 1..256 (the rows this code object serves)"),
            std::string::npos)
      << lastError();
}

// rotate_quant_moe through the C API on the emu device: found, launched and
// its sort well formed; ids outside [0, E) are refused before any launch,
// naming the token and the slot, with every output still poisoned.
TEST(CapiRun, MoeKernelsLaunchAndMalformedIdsAreRefused) {
  const uint64_t seed = testing::testSeed("CapiRun.MoeKernelsLaunchAndMalformedIdsAreRefused");
  std::mt19937_64 rng(seed);
  ContextPtr context(emuContext());
  const char *spec = "rotate_quant_moe:K=512,RS=64,rot=hadamard,topk=4,E=16,block=16,scale=rceil,"
                     "layout=a4w4_shuffle";
  const int m = 7, topk = 4, experts = 16, block = 16;
  const mxf_kernel *kernel = nullptr;
  ASSERT_EQ(mxf_find_kernel(context.get(), spec, m, &kernel), MXF_SUCCESS) << lastError();
  mxf_kernel_info info;
  ASSERT_EQ(mxf_kernel_get_info(kernel, &info), MXF_SUCCESS);
  std::vector<mxf_operand_info> operands(info.operand_count);
  std::vector<void *> device(info.operand_count);
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < info.operand_count; ++i) {
    ASSERT_EQ(mxf_kernel_get_operand(kernel, i, &operands[i]), MXF_SUCCESS);
    index[operands[i].name] = i;
  }
  // Buffers for m tokens: the launch checks m rows' spans, not the bucket's.
  std::vector<mxf_operand_shape> shapes(info.operand_count);
  size_t count = 0;
  ASSERT_EQ(mxf_spec_get_operands(spec, m, shapes.data(), shapes.size(), &count), MXF_SUCCESS)
      << lastError();
  ASSERT_EQ(count, info.operand_count);
  std::vector<std::vector<uint8_t>> host(count);
  for (size_t i = 0; i < count; ++i) {
    host[i].assign(shapes[i].bytes, kPoison);
    ASSERT_EQ(mxf_malloc(context.get(), host[i].size(), &device[i]), MXF_SUCCESS);
  }
  auto upload = [&](const char *name, const void *data, size_t bytes) {
    ASSERT_EQ(bytes, host[index.at(name)].size()) << name;
    std::memcpy(host[index.at(name)].data(), data, bytes);
  };
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<uint16_t> x(size_t(m) * 512);
  for (uint16_t &v : x)
    v = bf16(normal(rng));
  std::vector<int32_t> ids(size_t(m) * topk);
  for (int t = 0; t < m; ++t)
    for (int slot = 0; slot < topk; ++slot) // distinct in a row
      ids[size_t(t) * topk + slot] = (t * 5 + slot * 3 + int(seed % 16)) % experts;
  std::vector<float> weights(ids.size(), 0.25f);
  upload("x", x.data(), x.size() * 2);
  upload("topk_ids", ids.data(), ids.size() * 4);
  upload("topk_weights", weights.data(), weights.size() * 4);
  auto copyAllIn = [&] {
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(mxf_memcpy_to_device(context.get(), device[i], host[i].data(), host[i].size()),
                MXF_SUCCESS);
  };
  auto readBack = [&](const char *name) {
    std::vector<uint8_t> bytes(host[index.at(name)].size());
    EXPECT_EQ(mxf_memcpy_to_host(context.get(), bytes.data(), device[index.at(name)], bytes.size()),
              MXF_SUCCESS);
    return bytes;
  };
  copyAllIn();
  ASSERT_EQ(mxf_launch(context.get(), kernel, m, device.data(), device.size(), nullptr),
            MXF_SUCCESS)
      << lastError();
  std::vector<uint8_t> validBytes = readBack("num_valid_ids");
  int32_t valid[2];
  std::memcpy(valid, validBytes.data(), 8);
  EXPECT_EQ(valid[1], m);
  EXPECT_EQ(valid[0] % block, 0);
  // Every (slot << 24) | token exactly once among the valid rows, the
  // sentinel everywhere else.
  std::vector<uint8_t> sortedBytes = readBack("sorted_ids");
  std::vector<int32_t> sorted(sortedBytes.size() / 4);
  std::memcpy(sorted.data(), sortedBytes.data(), sortedBytes.size());
  std::map<int32_t, int> seen;
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != ((topk << 24) | m))
      ++seen[sorted[i]];
  EXPECT_EQ(seen.size(), size_t(m) * topk);
  for (const auto &[entry, times] : seen) {
    EXPECT_EQ(times, 1) << entry;
    EXPECT_LT(entry & 0xFFFFFF, m);
    EXPECT_LT(entry >> 24, topk);
  }

  // A sorted_ids buffer one entry short of the capacity for m: refused by name.
  void *shortSorted = nullptr;
  const size_t sortedIndex = index.at("sorted_ids");
  ASSERT_EQ(mxf_malloc(context.get(), host[sortedIndex].size() - 4, &shortSorted), MXF_SUCCESS);
  std::vector<void *> shortOperands = device;
  shortOperands[sortedIndex] = shortSorted;
  EXPECT_EQ(mxf_launch(context.get(), kernel, m, shortOperands.data(), shortOperands.size(),
                       nullptr),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("operand sorted_ids has " +
                             std::to_string(host[sortedIndex].size() - 4) + " bytes"),
            std::string::npos)
      << lastError();
  EXPECT_NE(lastError().find("capacity"), std::string::npos) << lastError();
  EXPECT_EQ(mxf_free(context.get(), shortSorted), MXF_SUCCESS);

  // Malformed ids: refused, naming the token and the slot; nothing runs.
  ids[2 * topk + 3] = experts; // token 2, slot 3
  upload("topk_ids", ids.data(), ids.size() * 4);
  for (const char *output : {"q", "s", "sorted_ids", "num_valid_ids"})
    std::fill(host[index.at(output)].begin(), host[index.at(output)].end(), kPoison);
  copyAllIn();
  EXPECT_EQ(mxf_launch(context.get(), kernel, m, device.data(), device.size(), nullptr),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("topk_ids[token 2][slot 3] = 16 is outside [0, E = 16)"),
            std::string::npos)
      << lastError();
  for (const char *output : {"q", "s", "sorted_ids", "num_valid_ids"}) {
    const std::vector<uint8_t> bytes = readBack(output);
    EXPECT_EQ(std::count(bytes.begin(), bytes.end(), kPoison), long(bytes.size())) << output;
  }
  for (void *pointer : device)
    EXPECT_EQ(mxf_free(context.get(), pointer), MXF_SUCCESS);
}

} // namespace
} // namespace mxf

namespace mxf {
namespace {

/// Selective rotation through the C API: the selection value picks the
/// path (the rotated spec's or the RS=0 spec's reference bytes), the packed
/// launch of an engine carries it too, and the wrong launch form or a layer
/// outside the mask is refused by name before anything runs.
TEST(CApiRun, SelectiveRotationLaunchesAndRefusals) {
  testing::ContextPtr context(testing::emuContext());
  ASSERT_TRUE(context);
  const char *spec = "rotate_quant:K=512,RS=64,rot=hadamard,M=8,select=mask,layers=4";
  const int m = 3;
  const mxf_kernel *kernel = nullptr, *plain = nullptr;
  ASSERT_EQ(mxf_find_kernel(context.get(), spec, m, &kernel), MXF_SUCCESS) << testing::lastError();
  ASSERT_EQ(mxf_find_kernel(context.get(), "rotate_quant:K=512,RS=64,M=8", m, &plain),
            MXF_SUCCESS);
  const char *argName = "unset";
  ASSERT_EQ(mxf_kernel_get_selection(kernel, &argName), MXF_SUCCESS);
  EXPECT_STREQ(argName, "layer");
  ASSERT_EQ(mxf_kernel_get_selection(plain, &argName), MXF_SUCCESS);
  EXPECT_EQ(argName, nullptr);
  EXPECT_EQ(mxf_kernel_get_selection(kernel, nullptr), MXF_ERROR_INVALID_ARGUMENT);

  mxf_kernel_info info;
  ASSERT_EQ(mxf_kernel_get_info(kernel, &info), MXF_SUCCESS);
  ASSERT_EQ(info.operand_count, 4u); // x, layer_mask, q, s
  mxf_operand_info maskInfo;
  ASSERT_EQ(mxf_kernel_get_operand(kernel, 1, &maskInfo), MXF_SUCCESS);
  EXPECT_STREQ(maskInfo.name, "layer_mask");
  EXPECT_EQ(maskInfo.bytes, 16u);

  std::mt19937_64 rng(testing::testSeed("CApiRun.SelectiveRotationLaunchesAndRefusals"));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<uint16_t> x(size_t(m) * 512);
  for (uint16_t &value : x)
    value = bf16(normal(rng) * (rng() % 40 == 0 ? 20.0f : 1.0f));
  const int32_t mask[4] = {0, 1, 0, 1};
  const size_t qBytes = size_t(m) * 256, sBytes = size_t(m) * 16;
  void *buffers[4];
  const size_t sizes[4] = {x.size() * 2, sizeof mask, qBytes, sBytes};
  for (int i = 0; i < 4; ++i)
    ASSERT_EQ(mxf_malloc(context.get(), sizes[i], &buffers[i]), MXF_SUCCESS);
  ASSERT_EQ(mxf_memcpy_to_device(context.get(), buffers[0], x.data(), sizes[0]), MXF_SUCCESS);
  ASSERT_EQ(mxf_memcpy_to_device(context.get(), buffers[1], mask, sizeof mask), MXF_SUCCESS);
  auto poisonAndRead = [&](bool read) {
    std::vector<uint8_t> bytes(qBytes + sBytes, kPoison);
    if (read) {
      EXPECT_EQ(mxf_memcpy_to_host(context.get(), bytes.data(), buffers[2], qBytes), MXF_SUCCESS);
      EXPECT_EQ(mxf_memcpy_to_host(context.get(), bytes.data() + qBytes, buffers[3], sBytes),
                MXF_SUCCESS);
      return bytes;
    }
    EXPECT_EQ(mxf_memcpy_to_device(context.get(), buffers[2], bytes.data(), qBytes), MXF_SUCCESS);
    EXPECT_EQ(mxf_memcpy_to_device(context.get(), buffers[3], bytes.data(), sBytes), MXF_SUCCESS);
    return bytes;
  };
  auto reference = [&](const char *text) {
    std::vector<uint8_t> bytes(qBytes + sBytes);
    size_t qWritten = 0, sWritten = 0;
    EXPECT_EQ(mxf_reference(text, m, x.data(), nullptr, bytes.data(), qBytes, &qWritten,
                            bytes.data() + qBytes, sBytes, &sWritten),
              MXF_SUCCESS)
        << testing::lastError();
    return bytes;
  };
  const std::vector<uint8_t> rotated = reference("rotate_quant:K=512,RS=64,rot=hadamard,M=8");
  const std::vector<uint8_t> unrotated = reference("rotate_quant:K=512,RS=0,M=8");
  ASSERT_NE(rotated, unrotated);

  for (int32_t layer = 0; layer < 4; ++layer) {
    poisonAndRead(false);
    ASSERT_EQ(mxf_launch_selected(context.get(), kernel, m, buffers, nullptr, 4, layer, nullptr),
              MXF_SUCCESS)
        << testing::lastError();
    EXPECT_EQ(poisonAndRead(true), mask[layer] ? rotated : unrotated) << "layer " << layer;
  }
  // An engine's packed launch carries the layer after the row strides; it
  // is packed by the selection's form, then by the values form (C API 1.7).
  mxf_launch_params params;
  std::vector<uint8_t> kernarg(512);
  auto launchPacked = [&](mxf_status packed, int32_t layer) {
    ASSERT_EQ(packed, MXF_SUCCESS) << testing::lastError();
    poisonAndRead(false);
    ASSERT_EQ(mxf_launch_packed(context.get(), kernel, &params, kernarg.data(),
                                params.kernarg_bytes, nullptr),
              MXF_SUCCESS)
        << testing::lastError();
    EXPECT_EQ(poisonAndRead(true), mask[layer] ? rotated : unrotated) << "layer " << layer;
  };
  launchPacked(mxf_kernel_launch_params_selected(kernel, m, buffers, nullptr, 4, 3,
                                                 kernarg.data(), kernarg.size(), &params),
               3);
  // The values form (C API 1.7) takes the selection by its name.
  for (int32_t layer : {0, 3}) {
    const mxf_value values[] = {{"layer", double(layer)}};
    poisonAndRead(false);
    ASSERT_EQ(mxf_launch_values(context.get(), kernel, m, buffers, nullptr, 4, values, 1, nullptr),
              MXF_SUCCESS)
        << testing::lastError();
    EXPECT_EQ(poisonAndRead(true), mask[layer] ? rotated : unrotated) << "layer " << layer;
  }
  {
    const mxf_value values[] = {{"layer", 0}};
    launchPacked(mxf_kernel_launch_params_values(kernel, m, buffers, nullptr, 4, values, 1,
                                                 kernarg.data(), kernarg.size(), &params),
                 0);
  }

  // Refusals, each before anything runs (the outputs keep their poison).
  const std::vector<uint8_t> poisoned = poisonAndRead(false);
  auto refused = [&](mxf_status status, std::initializer_list<const char *> parts) {
    EXPECT_EQ(status, MXF_ERROR_INVALID_ARGUMENT);
    const std::string message = testing::lastError();
    for (const char *part : parts)
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
    EXPECT_EQ(poisonAndRead(true), poisoned);
  };
  refused(mxf_launch(context.get(), kernel, m, buffers, 4, nullptr),
          {"mxf_launch", "select=mask needs the by-value 'layer'", "mxf_launch_selected"});
  refused(mxf_launch_selected(context.get(), kernel, m, buffers, nullptr, 4, 4, nullptr),
          {"mxf_launch_selected", "layer=4 is outside 0..3"});
  refused(mxf_launch_selected(context.get(), kernel, m, buffers, nullptr, 4, -1, nullptr),
          {"layer=-1"});
  {
    const mxf_value half[] = {{"layer", 1.5}};
    refused(mxf_launch_values(context.get(), kernel, m, buffers, nullptr, 4, half, 1, nullptr),
            {"mxf_launch_values", "layer=1.5", "not an i32 integer"});
    refused(mxf_launch_values(context.get(), kernel, m, buffers, nullptr, 4, nullptr, 0, nullptr),
            {"mxf_launch_values", "select=mask needs the by-value 'layer'"});
    const mxf_value foreign[] = {{"layer", 1}, {"eps", 1e-6}};
    refused(mxf_launch_values(context.get(), kernel, m, buffers, nullptr, 4, foreign, 2, nullptr),
            {"mxf_launch_values", "'eps' is not a value of rotate_quant (it takes none)"});
    const mxf_value twice[] = {{"layer", 1}, {"layer", 2}};
    refused(mxf_launch_values(context.get(), kernel, m, buffers, nullptr, 4, twice, 2, nullptr),
            {"mxf_launch_values", "'layer' is given twice"});
  }
  refused(mxf_kernel_launch_params(kernel, m, buffers, nullptr, 4, kernarg.data(),
                                   kernarg.size(), &params),
          {"mxf_kernel_launch_params", "'layer'", "mxf_kernel_launch_params_selected"});
  void *plainBuffers[3] = {buffers[0], buffers[2], buffers[3]};
  refused(mxf_launch_selected(context.get(), plain, m, plainBuffers, nullptr, 3, 1, nullptr),
          {"select=off", "no rotate or layer value", "mxf_launch_strided"});
  for (void *buffer : buffers)
    EXPECT_EQ(mxf_free(context.get(), buffer), MXF_SUCCESS);
}

} // namespace
} // namespace mxf
