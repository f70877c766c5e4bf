//===- test_capi_introspection.cpp - Spec shapes, kernel listing, cache info ===//

#include "tests/unit/capi/capi_test_support.h"

#include <dirent.h>
#include <cstdlib>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mxf {
namespace {

using testing::ContextPtr;
using testing::emuContext;
using testing::lastError;

TEST(CApiIntrospection, CanonicalSpecAndItsBufferSize) {
  char text[512];
  size_t length = 0;
  ASSERT_EQ(mxf_spec_canonical("rotate_quant:K=4096,RS=64", text, sizeof text, &length),
            MXF_SUCCESS)
      << lastError();
  EXPECT_STREQ(text, "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=even,"
                     "round=rne,inter=f32,layout=plain,arch=gfx950");
  EXPECT_EQ(length, std::strlen(text));

  // Too small: refused, nothing written, but the length is reported.
  char small[8];
  std::memset(small, 'z', sizeof small);
  size_t needed = 0;
  EXPECT_EQ(mxf_spec_canonical("rotate_quant:K=64", small, sizeof small, &needed),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_GT(needed, sizeof small);
  EXPECT_EQ(small[0], 'z');
  EXPECT_NE(lastError().find("needs"), std::string::npos) << lastError();

  EXPECT_EQ(mxf_spec_canonical("rotate_quant:K=100", text, sizeof text, nullptr),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mxf_spec_canonical: invalid spec: K=100: K must be a multiple of 32 "
                         "in 32..65536");
  EXPECT_EQ(mxf_spec_canonical(nullptr, text, sizeof text, nullptr),
            MXF_ERROR_INVALID_ARGUMENT);
}

// The vocabulary bindings read instead of restating (C API 1.5): every key
// the parser knows, and no other; the buckets and bucket_for agree with
// what a launch takes.
TEST(CApiIntrospection, SpecKeyNamesAreExactlyWhatTheParserAccepts) {
  const char *const *names = nullptr;
  size_t count = 0;
  ASSERT_EQ(mxf_spec_key_names(&names, &count), MXF_SUCCESS) << lastError();
  ASSERT_GT(count, 10u);
  std::set<std::string> listed;
  for (size_t i = 0; i < count; ++i)
    listed.insert(names[i]);
  EXPECT_EQ(listed.size(), count) << "a key is listed twice";
  // Every key an op's canonical text writes is listed ...
  for (const char *spec : {"rotate_quant:K=4096,RS=64,rot=learned", "rotate_quant_moe:K=4096,topk=8,E=64",
                           "rotate_quant_gemm:K=4096,N=512", "quant_weight:K=4096,N=512",
                           "rotate_quant:K=4096,RS=64,select=mask,layers=4"}) {
    char text[1024];
    ASSERT_EQ(mxf_spec_canonical(spec, text, sizeof text, nullptr), MXF_SUCCESS) << lastError();
    std::string body = std::strchr(text, ':') + 1;
    for (size_t start = 0; start < body.size();) {
      const size_t end = std::min(body.find(',', start), body.size());
      const std::string key = body.substr(start, body.find('=', start) - start);
      EXPECT_TRUE(listed.count(key)) << key << " of " << text << " is not listed";
      start = end + 1;
    }
  }
  // ... and a name that is not a key is not.
  EXPECT_FALSE(listed.count("k"));
  EXPECT_FALSE(listed.count("bucket"));
  EXPECT_EQ(mxf_spec_key_names(nullptr, &count), MXF_ERROR_INVALID_ARGUMENT);
}

TEST(CApiIntrospection, EachOpsValuesAreListedByName) {
  size_t count = 0;
  ASSERT_EQ(mxf_op_count(&count), MXF_SUCCESS);
  std::map<std::string, std::vector<std::string>> values;
  for (size_t i = 0; i < count; ++i) {
    mxf_op_info info{};
    ASSERT_EQ(mxf_op_get_info(i, &info), MXF_SUCCESS) << lastError();
    size_t valueCount = 99;
    ASSERT_EQ(mxf_op_get_value(i, 0, nullptr, nullptr, &valueCount), MXF_SUCCESS);
    for (size_t v = 0; v < valueCount; ++v) {
      const char *name = nullptr, *meaning = nullptr;
      ASSERT_EQ(mxf_op_get_value(i, v, &name, &meaning, nullptr), MXF_SUCCESS) << lastError();
      EXPECT_GT(std::strlen(meaning), 10u) << name;
      values[info.name].push_back(name);
    }
    // Past the last: an error naming the count.
    const char *name = nullptr;
    EXPECT_EQ(mxf_op_get_value(i, valueCount, &name, nullptr, nullptr),
              MXF_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(lastError().find(">= value count " + std::to_string(valueCount)), std::string::npos);
  }
  EXPECT_EQ(values["rmsnorm_rotate_quant"], std::vector<std::string>{"eps"});
  EXPECT_TRUE(values["rotate_quant"].empty());
  EXPECT_EQ(mxf_op_get_value(count, 0, nullptr, nullptr, nullptr), MXF_ERROR_INVALID_ARGUMENT);
}

TEST(CApiIntrospection, EachOpsInterfaceNamesItsKeysOperandsRowsAndShapeKeys) {
  size_t count = 0;
  ASSERT_EQ(mxf_op_count(&count), MXF_SUCCESS);
  std::map<std::string, mxf_op_info> ops;
  for (size_t i = 0; i < count; ++i) {
    mxf_op_info info{};
    ASSERT_EQ(mxf_op_get_info(i, &info), MXF_SUCCESS) << lastError();
    ops[info.name] = info;
    EXPECT_GT(std::strlen(info.description), 200u) << info.name << " has no help text";
    // Every key its canonical text writes is one of its keys, in their order.
    char canonical[1024];
    // A spec of this op from the sizes it has among K, N, topk, E.
    std::string spec = std::string(info.name) + ":";
    const std::map<std::string, std::string> sizes = {
        {"K", "4096"}, {"N", "512"}, {"topk", "8"}, {"E", "64"}};
    for (size_t k = 0; k < info.key_count; ++k)
      if (sizes.count(info.keys[k]))
        spec += std::string(info.keys[k]) + "=" + sizes.at(info.keys[k]) + ",";
    spec.pop_back();
    ASSERT_EQ(mxf_spec_canonical(spec.c_str(), canonical, sizeof canonical, nullptr),
              MXF_SUCCESS)
        << lastError();
    const std::string body = std::strchr(canonical, ':') + 1;
    size_t next = 0;
    for (size_t start = 0; start < body.size();) {
      const size_t end = std::min(body.find(',', start), body.size());
      const std::string key = body.substr(start, body.find('=', start) - start);
      while (next < info.key_count && key != info.keys[next])
        ++next;
      EXPECT_LT(next, info.key_count) << info.name << ": " << key << " is not among its keys";
      start = end + 1;
    }
    // Every operand of that spec is one of its slots.
    mxf_operand_shape shapes[16];
    size_t operandCount = 0;
    ASSERT_EQ(mxf_spec_get_operands(spec.c_str(), 4, shapes, 16, &operandCount), MXF_SUCCESS);
    for (size_t o = 0; o < operandCount; ++o) {
      bool found = false;
      for (size_t slot = 0; slot < info.operand_count; ++slot)
        found |= std::strcmp(info.operands[slot].name, shapes[o].name) == 0 &&
                 std::strcmp(info.operands[slot].element, shapes[o].element) == 0 &&
                 info.operands[slot].is_output == shapes[o].is_output &&
                 (info.operands[slot].ranks >> shapes[o].rank & 1u);
      EXPECT_TRUE(found) << info.name << ": operand " << shapes[o].name << " has no slot";
    }
  }
  ASSERT_EQ(ops.size(), count) << "an op is listed twice";
  ASSERT_TRUE(ops.count("rotate_quant") && ops.count("quant_weight") &&
              ops.count("rotate_quant_gemm") && ops.count("rotate_quant_moe"));
  EXPECT_STREQ(ops["rotate_quant"].rows_from, "x");
  EXPECT_EQ(ops["quant_weight"].rows_from, nullptr) << "a weight pass has no row count";
  const mxf_op_info &gemm = ops["rotate_quant_gemm"];
  std::map<std::string, std::string> shapeKeys;
  for (size_t i = 0; i < gemm.shape_key_count; ++i)
    shapeKeys[gemm.shape_keys[i].key] =
        std::string(gemm.shape_keys[i].operand) + ":" + std::to_string(gemm.shape_keys[i].dimension);
  EXPECT_EQ(shapeKeys, (std::map<std::string, std::string>{{"K", "x:1"}, {"N", "w_q:0"}}));

  mxf_op_info info{};
  EXPECT_EQ(mxf_op_get_info(count, &info), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("op count"), std::string::npos) << lastError();
  EXPECT_EQ(mxf_op_get_info(0, nullptr), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(mxf_op_count(nullptr), MXF_ERROR_INVALID_ARGUMENT);
}

TEST(CApiIntrospection, RowExtentsGiveTheOperandShapesAtEveryRowCount) {
  const char *spec = "rotate_quant_moe:K=512,RS=32,M=8,topk=2,E=8,block=16";
  mxf_row_extent extents[8];
  size_t count = 0;
  ASSERT_EQ(mxf_spec_get_row_extents(spec, extents, 8, &count), MXF_SUCCESS) << lastError();
  ASSERT_GE(count, 5u);
  std::map<std::string, mxf_row_extent> byLabel;
  for (size_t i = 0; i < count; ++i)
    byLabel[extents[i].label] = extents[i];
  auto at = [](const mxf_row_extent &e, int64_t m) {
    const int64_t divided = (e.scale * m + e.offset + e.divisor - 1) / e.divisor;
    return (divided + e.multiple - 1) / e.multiple * e.multiple;
  };
  for (int m : {1, 5, 8, 300}) {
    mxf_operand_shape shapes[16];
    size_t operandCount = 0;
    ASSERT_EQ(mxf_spec_get_operands(spec, m, shapes, 16, &operandCount), MXF_SUCCESS);
    std::map<std::string, int64_t> first;
    for (size_t o = 0; o < operandCount; ++o)
      first[shapes[o].name] = shapes[o].shape[0];
    EXPECT_EQ(first["sorted_ids"], at(byLabel.at("capacity"), m)) << m;
    EXPECT_EQ(first["s"], at(byLabel.at("pad32(capacity)"), m)) << m;
    EXPECT_EQ(first["sorted_expert_ids"], at(byLabel.at("ceil(capacity/block)"), m)) << m;
    EXPECT_EQ(first["x"], at(byLabel.at("rows"), m)) << m;
  }
  // Counting only, then bad input.
  ASSERT_EQ(mxf_spec_get_row_extents("rotate_quant:K=64", nullptr, 0, &count), MXF_SUCCESS);
  EXPECT_EQ(count, 2u) << "rows and pad256(rows)";
  EXPECT_EQ(mxf_spec_get_row_extents("rotate_quant:K=63", extents, 8, &count),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("invalid spec"), std::string::npos) << lastError();
  EXPECT_EQ(mxf_spec_get_row_extents(spec, nullptr, 4, &count), MXF_ERROR_INVALID_ARGUMENT);
}

// A GEMM narrow enough to split its chains over workgroups lists a
// workspace after y (abi/gemm_split.h): mxf_spec_get_workspace names its
// place and size, which grow with the 16-row tiles and follow the op's row
// extent; a wide one, and other ops, take none.
TEST(CApiIntrospection, TheWorkspaceOfASplitGemmIsNamed) {
  const char *split = "rotate_quant_gemm:K=4096,N=4096,RS=64,rot=hadamard";
  mxf_row_extent extents[8];
  size_t extentCount = 0;
  ASSERT_EQ(mxf_spec_get_row_extents(split, extents, 8, &extentCount), MXF_SUCCESS);
  const mxf_row_extent *tiles = nullptr;
  for (size_t i = 0; i < extentCount; ++i)
    if (std::string(extents[i].label) == "ceil(rows/16)")
      tiles = &extents[i];
  ASSERT_NE(tiles, nullptr) << "the workspace's rows follow a declared extent";
  for (int m : {1, 16, 17, 256}) {
    size_t index = 0;
    uint64_t bytes = 0;
    ASSERT_EQ(mxf_spec_get_workspace(split, m, &index, &bytes), MXF_SUCCESS) << lastError();
    mxf_operand_shape shapes[16];
    size_t count = 0;
    ASSERT_EQ(mxf_spec_get_operands(split, m, shapes, 16, &count), MXF_SUCCESS);
    ASSERT_EQ(index, count - 1) << "after y";
    EXPECT_STREQ(shapes[index].name, "ws");
    EXPECT_STREQ(shapes[index].element, "i32");
    EXPECT_EQ(shapes[index].is_output, 0);
    EXPECT_EQ(shapes[index].shape[0], (m + 15) / 16);
    EXPECT_EQ(shapes[index].shape[0], (tiles->scale * m + tiles->offset + tiles->divisor - 1) /
                                          tiles->divisor);
    // 64 column groups: 64 counters, then 4 chains x 4 waves x 64 lanes x 4 words each.
    EXPECT_EQ(shapes[index].shape[1], 64 + 64 * 4 * 4 * 64 * 4);
    EXPECT_EQ(bytes, shapes[index].bytes);
  }
  for (const char *none : {"rotate_quant_gemm:K=4096,N=24576,RS=64,rot=hadamard",
                           "rotate_quant_gemm:K=4096,N=4096,RS=256,rot=hadamard",
                           "rotate_quant_gemm:K=4224,N=4096", "rotate_quant:K=4096"}) {
    size_t index = 0;
    uint64_t bytes = 1;
    ASSERT_EQ(mxf_spec_get_workspace(none, 1, &index, &bytes), MXF_SUCCESS) << none;
    EXPECT_EQ(index, SIZE_MAX) << none;
    EXPECT_EQ(bytes, 0u) << none;
  }
  EXPECT_EQ(mxf_spec_get_workspace(split, 1, nullptr, nullptr), MXF_SUCCESS);
  EXPECT_EQ(mxf_spec_get_workspace("rotate_quant_gemm:K=63", 1, nullptr, nullptr),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("invalid spec"), std::string::npos) << lastError();
  EXPECT_EQ(mxf_spec_get_workspace(split, -1, nullptr, nullptr), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("m=-1"), std::string::npos) << lastError();
  EXPECT_EQ(mxf_spec_get_workspace(nullptr, 1, nullptr, nullptr), MXF_ERROR_INVALID_ARGUMENT);
}

TEST(CApiIntrospection, MBucketsAndBucketForAgree) {
  const int *buckets = nullptr;
  size_t count = 0;
  ASSERT_EQ(mxf_spec_m_buckets(&buckets, &count), MXF_SUCCESS);
  ASSERT_GT(count, 1u);
  for (size_t i = 1; i < count; ++i)
    EXPECT_LT(buckets[i - 1], buckets[i]);
  int bucket = 0;
  for (int m = 1; m <= buckets[count - 1]; ++m) {
    ASSERT_EQ(mxf_spec_bucket_for(m, &bucket), MXF_SUCCESS) << lastError();
    EXPECT_GE(bucket, m);
    size_t at = 0;
    while (at < count && buckets[at] != bucket)
      ++at;
    ASSERT_LT(at, count) << bucket << " is not a bucket";
    if (at > 0) {
      EXPECT_LT(buckets[at - 1], m) << "a smaller bucket holds m=" << m;
    }
  }
  for (int m : {0, -1, buckets[count - 1] + 1}) {
    EXPECT_EQ(mxf_spec_bucket_for(m, &bucket), MXF_ERROR_INVALID_ARGUMENT) << m;
    EXPECT_NE(lastError().find("m=" + std::to_string(m) + " is outside 1.." +
                               std::to_string(buckets[count - 1])),
              std::string::npos)
        << lastError();
  }
}

TEST(CApiIntrospection, SpecSelectionNamesTheLaunchArgument) {
  const char *name = "unset";
  ASSERT_EQ(mxf_spec_get_selection("rotate_quant:K=4096", &name), MXF_SUCCESS);
  EXPECT_EQ(name, nullptr);
  ASSERT_EQ(mxf_spec_get_selection("rotate_quant:K=4096,RS=64,select=flag", &name), MXF_SUCCESS);
  EXPECT_STREQ(name, "rotate");
  ASSERT_EQ(mxf_spec_get_selection("rotate_quant:K=4096,RS=64,select=mask,layers=8", &name),
            MXF_SUCCESS);
  EXPECT_STREQ(name, "layer");
  EXPECT_EQ(mxf_spec_get_selection("rotate_quant:K=4096,RS=64,select=maybe", &name),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("mxf_spec_get_selection: invalid spec"), std::string::npos)
      << lastError();
}

TEST(CApiIntrospection, OperandShapesAtMRowsIncludeTheShuffledPadding) {
  size_t count = 0;
  // Asking for the count only.
  ASSERT_EQ(mxf_spec_get_operands("rotate_quant:K=4096,RS=64", 5, nullptr, 0, &count),
            MXF_SUCCESS);
  EXPECT_EQ(count, 3u); // x, q, s

  mxf_operand_shape operands[8];
  ASSERT_EQ(mxf_spec_get_operands("rotate_quant:K=4096,RS=64,rot=learned,layout=a4w4_shuffle", 5,
                                  operands, 8, &count),
            MXF_SUCCESS)
      << lastError();
  ASSERT_EQ(count, 4u); // x, r, q, s
  EXPECT_STREQ(operands[0].name, "x");
  EXPECT_STREQ(operands[0].element, "bf16");
  EXPECT_EQ(operands[0].is_output, 0);
  EXPECT_STREQ(operands[0].row_stride_arg, "x_stride");
  ASSERT_EQ(operands[0].rank, 2u);
  EXPECT_EQ(operands[0].shape[0], 5);
  EXPECT_EQ(operands[0].shape[1], 4096);
  EXPECT_EQ(operands[0].bytes, 5u * 4096 * 2);

  EXPECT_STREQ(operands[1].name, "r");
  EXPECT_EQ(operands[1].row_stride_arg, nullptr);

  EXPECT_STREQ(operands[2].name, "q");
  EXPECT_EQ(operands[2].is_output, 1);
  EXPECT_EQ(operands[2].shape[0], 5);
  EXPECT_EQ(operands[2].shape[1], 2048); // fp4: two codes per byte

  // a4w4_shuffle: rows padded to 256, K/32 = 128 columns (already a multiple of 8).
  EXPECT_STREQ(operands[3].name, "s");
  EXPECT_EQ(operands[3].shape[0], 256);
  EXPECT_EQ(operands[3].shape[1], 128);
  EXPECT_EQ(operands[3].bytes, 256u * 128);

  // A capacity below the count writes only what fits, and says how many there are.
  mxf_operand_shape one[1];
  ASSERT_EQ(mxf_spec_get_operands("rotate_quant:K=64", 1, one, 1, &count), MXF_SUCCESS);
  EXPECT_EQ(count, 3u);
  EXPECT_STREQ(one[0].name, "x");

  EXPECT_EQ(mxf_spec_get_operands("rotate_quant:K=64", -1, operands, 8, &count),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("m=-1"), std::string::npos) << lastError();
  EXPECT_EQ(mxf_spec_get_operands("rotate_quant:K=64,RS=48", 1, operands, 8, &count),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("RS=48"), std::string::npos) << lastError();
  EXPECT_EQ(mxf_spec_get_operands("rotate_quant:K=64", 1, operands, 8, nullptr),
            MXF_ERROR_INVALID_ARGUMENT);
}

TEST(CApiIntrospection, TheKernelListingSaysWhatWasProducedAndWhetherItIsOnTheDevice) {
  ContextPtr context(emuContext());
  ASSERT_TRUE(context);
  size_t count = 99;
  ASSERT_EQ(mxf_context_kernel_count(context.get(), &count), MXF_SUCCESS);
  EXPECT_EQ(count, 0u);

  ASSERT_EQ(mxf_compile(context.get(), "rotate_quant:K=64,M=4"), MXF_SUCCESS) << lastError();
  const mxf_kernel *kernel = nullptr;
  ASSERT_EQ(mxf_find_kernel(context.get(), "rotate_quant:K=128,RS=32", 3, &kernel), MXF_SUCCESS)
      << lastError();
  ASSERT_EQ(mxf_context_kernel_count(context.get(), &count), MXF_SUCCESS);
  ASSERT_EQ(count, 2u);

  mxf_kernel_entry first, second;
  ASSERT_EQ(mxf_context_get_kernel(context.get(), 0, &first), MXF_SUCCESS);
  ASSERT_EQ(mxf_context_get_kernel(context.get(), 1, &second), MXF_SUCCESS);
  EXPECT_STREQ(first.spec, "rotate_quant:K=64,RS=0,rot=none,M=4,fmt=fp4,scale=even,round=rne,"
                           "inter=f32,layout=plain,arch=gfx950");
  EXPECT_STREQ(first.origin, "jit");
  EXPECT_STREQ(first.source, "");
  EXPECT_EQ(first.bucket, 4);
  EXPECT_EQ(first.produced, 1);
  EXPECT_EQ(first.on_device, 0); // compiled, never looked up for a launch
  EXPECT_GT(first.code_bytes, 0u);
  EXPECT_GT(first.vgprs, 0u);
  EXPECT_NE(std::string(first.name).find("mxf_rotate_quant_K64"), std::string::npos);

  EXPECT_EQ(second.bucket, 4); // m=3 dispatches to the smallest bucket >= 3
  EXPECT_EQ(second.on_device, 1);
  mxf_kernel_info info;
  ASSERT_EQ(mxf_kernel_get_info(kernel, &info), MXF_SUCCESS);
  EXPECT_STREQ(second.spec, info.spec);

  // Compiling the first again and launching it changes nothing but on_device.
  ASSERT_EQ(mxf_find_kernel(context.get(), "rotate_quant:K=64", 4, &kernel), MXF_SUCCESS);
  ASSERT_EQ(mxf_context_kernel_count(context.get(), &count), MXF_SUCCESS);
  EXPECT_EQ(count, 2u);
  ASSERT_EQ(mxf_context_get_kernel(context.get(), 0, &first), MXF_SUCCESS);
  EXPECT_EQ(first.on_device, 1);

  EXPECT_EQ(mxf_context_get_kernel(context.get(), 2, &first), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mxf_context_get_kernel: index 2 >= kernel count 2");
  EXPECT_EQ(mxf_context_get_kernel(nullptr, 0, &first), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(mxf_context_kernel_count(context.get(), nullptr), MXF_ERROR_INVALID_ARGUMENT);
}

TEST(CApiIntrospection, CacheInfoNamesTheDirectoryAndCountsEntries) {
  {
    ContextPtr off(emuContext());
    ASSERT_TRUE(off);
    mxf_cache_info info;
    ASSERT_EQ(mxf_context_get_cache(off.get(), &info), MXF_SUCCESS) << lastError();
    EXPECT_EQ(info.enabled, 0);
    EXPECT_STREQ(info.directory, "");
    EXPECT_EQ(info.requests, 0u);
  }
  char pattern[] = "/tmp/mxforge-capi-cacheinfo-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string directory = pattern;
  mxf_context_options options;
  mxf_context_options_init(&options);
  options.device = "emu";
  options.cache_mode = MXF_CACHE_DIRECTORY;
  options.cache_directory = directory.c_str();
  for (int round = 0; round < 2; ++round) {
    mxf_context *raw = nullptr;
    ASSERT_EQ(mxf_context_create(&options, &raw), MXF_SUCCESS) << lastError();
    ContextPtr context(raw);
    ASSERT_EQ(mxf_compile(context.get(), "rotate_quant:K=96"), MXF_SUCCESS) << lastError();
    mxf_cache_info info;
    ASSERT_EQ(mxf_context_get_cache(context.get(), &info), MXF_SUCCESS) << lastError();
    EXPECT_EQ(info.enabled, 1);
    EXPECT_EQ(std::string(info.directory), directory);
    EXPECT_STREQ(info.source, "mxf_context_options");
    EXPECT_EQ(info.entries, 1u);
    EXPECT_GT(info.total_bytes, 0u);
    EXPECT_EQ(info.requests, 1u);
    // The first context compiles and fills the cache, the second hits it.
    EXPECT_EQ(info.compiled, round == 0 ? 1u : 0u);
    EXPECT_EQ(info.cache_hits, round == 0 ? 0u : 1u);
    mxf_kernel_entry entry;
    ASSERT_EQ(mxf_context_get_kernel(context.get(), 0, &entry), MXF_SUCCESS);
    EXPECT_STREQ(entry.origin, round == 0 ? "jit" : "cache");
    EXPECT_EQ(std::string(entry.source), round == 0 ? std::string() : directory);
  }
  std::string command = "rm -rf '" + directory + "'";
  EXPECT_EQ(std::system(command.c_str()), 0);
}

TEST(CApiIntrospection, BundleKernelsAreListedWithTheirPathBeforeAndAfterUse) {
  char pattern[] = "/tmp/mxforge-capi-bundle-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string directory = pattern;
  const std::string specs = directory + "/specs.txt", bundle = directory + "/b.mxfb";
  {
    FILE *file = std::fopen(specs.c_str(), "w");
    ASSERT_NE(file, nullptr);
    std::fputs("rotate_quant:K=128,RS=64,M=4\nrotate_quant:K=128,RS=64,M=16\n", file);
    std::fclose(file);
  }
  const std::string command = std::string(MXFORGE_TOOL_PATH) + " bundle --no-cache --specs " +
                              specs + " -o " + bundle + " > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;

  ContextPtr context(emuContext(/*strict=*/true));
  ASSERT_TRUE(context);
  size_t loaded = 0, count = 0;
  ASSERT_EQ(mxf_load_bundle(context.get(), bundle.c_str(), &loaded), MXF_SUCCESS)
      << lastError();
  ASSERT_EQ(loaded, 2u);
  ASSERT_EQ(mxf_context_kernel_count(context.get(), &count), MXF_SUCCESS);
  ASSERT_EQ(count, 2u);
  mxf_kernel_entry entries[2];
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_EQ(mxf_context_get_kernel(context.get(), i, &entries[i]), MXF_SUCCESS);
    EXPECT_STREQ(entries[i].origin, "bundle");
    EXPECT_EQ(std::string(entries[i].source), bundle);
    EXPECT_EQ(entries[i].produced, 0);
    EXPECT_EQ(entries[i].on_device, 0);
    EXPECT_GT(entries[i].code_bytes, 0u);
  }
  const char *specBefore = entries[0].spec;
  // Use the M=4 kernel: the same row gains its flags; its strings stay put.
  const mxf_kernel *kernel = nullptr;
  ASSERT_EQ(mxf_find_kernel(context.get(), "rotate_quant:K=128,RS=64", 3, &kernel), MXF_SUCCESS)
      << lastError();
  ASSERT_EQ(mxf_context_kernel_count(context.get(), &count), MXF_SUCCESS);
  EXPECT_EQ(count, 2u);
  mxf_kernel_entry used;
  size_t bucket4 = entries[0].bucket == 4 ? 0 : 1;
  ASSERT_EQ(mxf_context_get_kernel(context.get(), bucket4, &used), MXF_SUCCESS);
  EXPECT_EQ(used.bucket, 4);
  EXPECT_EQ(used.produced, 1);
  EXPECT_EQ(used.on_device, 1);
  EXPECT_EQ(std::string(used.source), bundle);
  mxf_kernel_entry again;
  ASSERT_EQ(mxf_context_get_kernel(context.get(), 0, &again), MXF_SUCCESS);
  EXPECT_EQ(again.spec, specBefore); // the same string, not a copy
  EXPECT_STREQ(specBefore, entries[0].spec);

  mxf_cache_info info;
  ASSERT_EQ(mxf_context_get_cache(context.get(), &info), MXF_SUCCESS);
  EXPECT_EQ(info.enabled, 0); // strict: bundles only
  EXPECT_EQ(info.from_bundle, 1u);
  std::string remove = "rm -rf '" + directory + "'";
  EXPECT_EQ(std::system(remove.c_str()), 0);
}

} // namespace
} // namespace mxf
