//===- test_capi_checkpoint.cpp - mxf_quantize_checkpoint, without LLVM ---===//
//
// The checkpoint pipeline (weights/checkpoint/) through libmxforge_runtime.so:
// an AOT deployment quantizes a checkpoint with no LLVM or MLIR loaded.
// python/tests/test_checkpoint.py compares the bytes with the CLI's and with
// the emulated quant_weight kernel's; this checks the C surface.
//
//===----------------------------------------------------------------------===//

#include <mxforge/mxforge.h>

#include "tests/support/scratch_directory.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

using mxf::testing::ScratchDirectory;

std::string lastError() { return mxf_last_error(); }

/// A .safetensors file of one BF16 tensor `name` [n, k] of random values.
void writeCheckpoint(const std::string &path, const std::string &name, int n, int k,
                     uint32_t seed) {
  const size_t bytes = size_t(n) * size_t(k) * 2;
  std::string header = "{\"" + name + "\":{\"dtype\":\"BF16\",\"shape\":[" + std::to_string(n) +
                       "," + std::to_string(k) + "],\"data_offsets\":[0," +
                       std::to_string(bytes) + "]}}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::vector<uint8_t> file(8 + header.size() + bytes);
  for (int i = 0; i < 8; ++i)
    file[i] = uint8_t(uint64_t(header.size()) >> (8 * i));
  std::copy(header.begin(), header.end(), file.begin() + 8);
  std::mt19937 random(seed);
  for (size_t i = 0; i < bytes; i += 2) {
    file[8 + header.size() + i] = uint8_t(random());
    file[8 + header.size() + i + 1] = uint8_t(0x3C + random() % 8); // finite, |v| ~ 1e-2..1e1
  }
  FILE *out = std::fopen(path.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(std::fwrite(file.data(), 1, file.size(), out), file.size());
  std::fclose(out);
}

struct Collected {
  std::string summary, notes;
};

void collect(void *user, int stream, const char *text, size_t length) {
  auto *collected = static_cast<Collected *>(user);
  (stream ? collected->notes : collected->summary).append(text, length);
}

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

TEST(CApiCheckpoint, QuantizesACheckpointWithTheRuntimeLibrary) {
  ScratchDirectory dir("mxforge-capi-checkpoint");
  const uint32_t seed = std::random_device{}();
  std::printf("[seed] %u\n", seed);
  writeCheckpoint(dir.file("in.safetensors"), "m.q_proj.weight", 32, 64, seed);
  mxf_quantize_options options;
  mxf_quantize_options_init(&options);
  const std::string in = dir.file("in.safetensors"), out = dir.file("out.safetensors");
  options.in = in.c_str();
  options.out = out.c_str();
  options.spec = "quant_weight:RS=32,rot=hadamard,fmt=fp4";
  options.tensors = ".*_proj\\.weight";
  options.check = 1;
  Collected collected;
  options.text = collect;
  options.user = &collected;
  ASSERT_EQ(mxf_quantize_checkpoint(&options), MXF_SUCCESS) << lastError();
  EXPECT_NE(collected.summary.find("quantized 1 tensor"), std::string::npos) << collected.summary;
  EXPECT_NE(collected.summary.find("rel.err/src"), std::string::npos) << collected.summary;
  EXPECT_NE(collected.summary.find("m.q_proj.weight"), std::string::npos) << collected.summary;
  EXPECT_TRUE(exists(out));
  // Again without force: refused, naming the output; the file stays.
  ASSERT_EQ(mxf_quantize_checkpoint(&options), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("exists; pass --force"), std::string::npos) << lastError();
  // No text callback: the text is dropped, the work is done.
  options.text = nullptr;
  options.force = 1;
  EXPECT_EQ(mxf_quantize_checkpoint(&options), MXF_SUCCESS) << lastError();
}

/// A .npy of int32 [entries.size()].
void writeMask(const std::string &path, const std::vector<int32_t> &entries) {
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (" +
                       std::to_string(entries.size()) + ",), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += char(header.size() & 0xFF);
  file += char(header.size() >> 8);
  file += header;
  file.append(reinterpret_cast<const char *>(entries.data()), entries.size() * 4);
  FILE *out = std::fopen(path.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(std::fwrite(file.data(), 1, file.size(), out), file.size());
  std::fclose(out);
}

// C API 1.8's layer_mask, and the sized init that lets an older caller's
// shorter struct be initialized without a write past its end.
TEST(CApiCheckpoint, LayerMaskIsReadFromOptionsThatHaveIt) {
  ScratchDirectory dir("mxforge-capi-checkpoint");
  const uint32_t seed = std::random_device{}();
  std::printf("[seed] %u\n", seed);
  const std::string in = dir.file("in.safetensors"), out = dir.file("out.safetensors"),
                    mask = dir.file("mask.npy");
  writeCheckpoint(in, "m.layers.0.q_proj.weight", 32, 64, seed);
  writeMask(mask, {0});

  // The macro passes the caller's sizeof: the whole struct, this version.
  mxf_quantize_options options;
  std::memset(&options, 0xAB, sizeof options);
  mxf_quantize_options_init(&options);
  EXPECT_EQ(options.api_version, uint32_t(MXFORGE_API_VERSION));
  EXPECT_EQ(options.layer_mask, nullptr);
  options.in = in.c_str();
  options.out = out.c_str();
  options.spec = "quant_weight:RS=32,rot=hadamard";
  options.tensors = ".*_proj\\.weight";
  options.layer_mask = mask.c_str();
  Collected collected;
  options.text = collect;
  options.user = &collected;
  ASSERT_EQ(mxf_quantize_checkpoint(&options), MXF_SUCCESS) << lastError();
  EXPECT_NE(collected.summary.find("--layer-mask: 0 tensors with the rotation (layers none), 1 "
                                   "without"),
            std::string::npos)
      << collected.summary;

  // A 1.7 caller's struct ends before layer_mask: the old entry point
  // writes nothing past it and says 1.7, and the library reads no mask.
  const size_t oldSize = offsetof(mxf_quantize_options, layer_mask);
  std::vector<uint8_t> bytes(sizeof(mxf_quantize_options), 0xAB);
  auto *old = reinterpret_cast<mxf_quantize_options *>(bytes.data());
  (mxf_quantize_options_init)(old);
  EXPECT_EQ(old->api_version, uint32_t(MXFORGE_API_VERSION_MAJOR << 16 | 7));
  for (size_t i = oldSize; i < bytes.size(); ++i)
    ASSERT_EQ(bytes[i], 0xAB) << "byte " << i << " past a 1.7 struct was written";
  old->in = in.c_str();
  old->out = out.c_str();
  old->spec = "quant_weight:RS=32,rot=hadamard";
  old->tensors = ".*_proj\\.weight";
  old->force = 1;
  collected = {};
  old->text = collect;
  old->user = &collected;
  ASSERT_EQ(mxf_quantize_checkpoint(old), MXF_SUCCESS) << lastError();
  EXPECT_EQ(collected.summary.find("--layer-mask"), std::string::npos) << collected.summary;

  // The negative control: the same 1.8 options with a mask of another model.
  writeMask(mask, {0, 1});
  options.force = 1;
  ASSERT_EQ(mxf_quantize_checkpoint(&options), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("has 2 entries; the checkpoint's tensor names have layers 0..0 (1)"),
            std::string::npos)
      << lastError();
}

TEST(CApiCheckpoint, BadOptionsAreNamed) {
  ScratchDirectory dir("mxforge-capi-checkpoint");
  const std::string in = dir.file("missing.safetensors"), out = dir.file("out.safetensors");
  EXPECT_EQ(mxf_quantize_checkpoint(nullptr), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("options is NULL"), std::string::npos) << lastError();
  mxf_quantize_options options;
  mxf_quantize_options_init(&options);
  options.in = in.c_str();
  options.spec = "quant_weight:RS=0";
  options.tensors = ".*";
  EXPECT_EQ(mxf_quantize_checkpoint(&options), MXF_ERROR_INVALID_ARGUMENT); // out is NULL
  EXPECT_NE(lastError().find("out is NULL"), std::string::npos) << lastError();
  options.out = out.c_str();
  EXPECT_EQ(mxf_quantize_checkpoint(&options), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("missing.safetensors"), std::string::npos) << lastError();
  options.threads = 4096;
  EXPECT_EQ(mxf_quantize_checkpoint(&options), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("threads=4096"), std::string::npos) << lastError();
  options.threads = 0;
  options.api_version = uint32_t(MXFORGE_API_VERSION_MAJOR + 1) << 16;
  EXPECT_EQ(mxf_quantize_checkpoint(&options), MXF_ERROR_VERSION);
  EXPECT_FALSE(exists(out));
}

} // namespace
