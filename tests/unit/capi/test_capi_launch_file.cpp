//===- test_capi_launch_file.cpp - mxf_launch_file on the emu device ------===//
//
// A kernel the context compiled, written out as a code object with a launch
// file (arguments by hand from docs/abi.md: x, q, s, m, x_stride, q_stride),
// launched through mxf_launch_file: its q and s equal mxf_reference's for the
// same fresh x (seed printed). Bad files are refused with a message.
//
//===----------------------------------------------------------------------===//

#include "capi_test_support.h"
#include "tests/support/scratch_directory.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

namespace mxf::testing {
namespace {

constexpr const char *kSpec = "rotate_quant:K=256,RS=64,M=16";
constexpr int kM = 3, kK = 256;

/// A .npy (format 1.0) of `bytes` with numpy dtype `descr`, shape [n].
void writeNpy(const std::string &path, const std::string &descr, size_t n, const void *bytes,
              size_t size) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(n) + ",), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t length = uint16_t(header.size());
  out.write(reinterpret_cast<const char *>(&length), 2);
  out << header;
  out.write(static_cast<const char *>(bytes), long(size));
}

/// The data bytes of a .npy this test's writer or mxforge wrote.
std::vector<uint8_t> npyData(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), {});
  if (file.size() < 10)
    return {};
  const size_t header = 10 + (file[8] | (file[9] << 8));
  return std::vector<uint8_t>(file.begin() + long(std::min(header, file.size())), file.end());
}

TEST(CapiLaunchFile, OurKernelFromALaunchFileMatchesTheReference) {
  ContextPtr context(emuContext());
  ASSERT_EQ(mxf_compile(context.get(), kSpec), MXF_SUCCESS) << lastError();
  const mxf_kernel *kernel = nullptr;
  ASSERT_EQ(mxf_find_kernel(context.get(), kSpec, kM, &kernel), MXF_SUCCESS) << lastError();
  const void *code = nullptr;
  size_t codeBytes = 0;
  ASSERT_EQ(mxf_kernel_code_object(kernel, &code, &codeBytes), MXF_SUCCESS) << lastError();
  const char *symbol = nullptr;
  ASSERT_EQ(mxf_kernel_symbol(kernel, &symbol), MXF_SUCCESS) << lastError();
  std::string name = symbol;
  if (name.size() > 3 && name.compare(name.size() - 3, 3, ".kd") == 0)
    name.resize(name.size() - 3);

  ScratchDirectory dir;
  ASSERT_TRUE(dir.ok());
  std::ofstream(dir.file("k.hsaco"), std::ios::binary)
      .write(static_cast<const char *>(code), long(codeBytes));
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", (unsigned long long)seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<uint16_t> x(kM * kK);
  for (uint16_t &v : x) {
    const float f = normal(rng);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    v = uint16_t(bits >> 16); // bf16 by truncation: any bf16 is a valid input
  }
  writeNpy(dir.file("x.npy"), "<u2", x.size(), x.data(), 2 * x.size());
  const size_t qBytes = kM * kK / 2, sBytes = kM * kK / 32;
  std::ofstream(dir.file("launch.json"))
      << R"({"code_object": "k.hsaco", "kernel": ")" << name
      << R"(", "grid": [)" << kK / 256 << R"(, 1, 1], "block": [256, 1, 1],
           "args": [{"buffer": "x", "in": "x.npy"},
                    {"buffer": "q", "out": "q.npy", "bytes": )"
      << qBytes << R"(}, {"buffer": "s", "out": "s.npy", "bytes": )" << sBytes
      << R"(}, {"i32": )" << kM << R"(}, {"i32": )" << kK << R"(}, {"i32": )" << kK / 2
      << "}]}";
  ASSERT_EQ(mxf_launch_file(context.get(), dir.file("launch.json").c_str()), MXF_SUCCESS)
      << lastError();

  std::vector<uint8_t> q(qBytes), s(sBytes);
  size_t qWritten = 0, sWritten = 0;
  ASSERT_EQ(mxf_reference(kSpec, kM, x.data(), nullptr, q.data(), q.size(), &qWritten, s.data(),
                          s.size(), &sWritten),
            MXF_SUCCESS)
      << lastError();
  EXPECT_EQ(npyData(dir.file("q.npy")), q);
  EXPECT_EQ(npyData(dir.file("s.npy")), s);

  // A file that disagrees with the code object: named, nothing written.
  std::ofstream(dir.file("bad.json"))
      << R"({"code_object": "k.hsaco", "grid": [1], "block": [256],
           "args": [{"buffer": "x", "in": "x.npy"}, {"buffer": "q2", "out": "q2.npy", "bytes": 8}]})";
  EXPECT_EQ(mxf_launch_file(context.get(), dir.file("bad.json").c_str()),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("takes 6 explicit arguments but the file gives 2"), std::string::npos)
      << lastError();
  EXPECT_FALSE(std::ifstream(dir.file("q2.npy")).good());
  EXPECT_EQ(mxf_launch_file(context.get(), nullptr), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(mxf_launch_file(nullptr, "x.json"), MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(mxf_launch_file(context.get(), dir.file("none.json").c_str()),
            MXF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("none.json"), std::string::npos) << lastError();
}

} // namespace
} // namespace mxf::testing
