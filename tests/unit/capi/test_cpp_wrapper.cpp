//===- test_cpp_wrapper.cpp - include/mxforge/mxforge.hpp -----------------===//

#include <mxforge/mxforge.hpp>

#include "tests/unit/test_seed.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace {

mxforge::ContextOptions emuOptions() {
  mxforge::ContextOptions options;
  options.device = "emu";
  options.cacheMode = MXF_CACHE_OFF;
  return options;
}

TEST(CppWrapper, ErrorsBecomeExceptionsWithStatusAndMessage) {
  mxforge::ContextOptions options = emuOptions();
  options.device = "tpu";
  try {
    mxforge::Context context(options);
    FAIL() << "a context on an unknown device";
  } catch (const mxforge::Error &error) {
    EXPECT_EQ(error.status(), MXF_ERROR_DEVICE);
    EXPECT_NE(std::string(error.what()).find("tpu"), std::string::npos) << error.what();
  }
  mxforge::Context context(emuOptions());
  try {
    context.compile("rotate_quant:K=33");
    FAIL() << "an invalid spec compiled";
  } catch (const mxforge::Error &error) {
    EXPECT_EQ(error.status(), MXF_ERROR_INVALID_ARGUMENT);
  }
  std::vector<mxf_status> statuses =
      context.compileAll({"rotate_quant:K=256,RS=32,rot=hadamard", "rotate_quant:K=33"});
  EXPECT_EQ(statuses, (std::vector<mxf_status>{MXF_SUCCESS, MXF_ERROR_INVALID_ARGUMENT}));
}

TEST(CppWrapper, RunsAKernelWithRaiiBuffers) {
  std::mt19937_64 rng(mxf::testing::testSeed("CppWrapper.RunsAKernelWithRaiiBuffers"));
  mxforge::Context context(emuOptions());
  EXPECT_NE(context.device().find("emu"), std::string::npos);
  const int m = 1 + int(rng() % 2);
  mxforge::Kernel kernel = context.findKernel("rotate_quant:K=512,RS=64,rot=hadamard", m);
  EXPECT_EQ(kernel.bucket(), m);
  std::vector<mxf_operand_info> operands = kernel.operands();
  ASSERT_EQ(operands.size(), 3u);
  std::vector<mxforge::DeviceBuffer> buffers;
  std::vector<std::vector<uint8_t>> host;
  std::vector<void *> pointers;
  for (const mxf_operand_info &operand : operands) {
    host.emplace_back(operand.bytes, uint8_t(0xA5));
    if (!operand.is_output)
      for (size_t i = 0; i < host.back().size(); i += 2)
        host.back()[i + 1] = uint8_t(0x3C + rng() % 8) ^ (rng() % 2 ? 0x80 : 0); // +-[1, 512)
    buffers.push_back(context.allocate(operand.bytes));
    buffers.back().copyFrom(host.back().data(), host.back().size());
    pointers.push_back(buffers.back().get());
  }
  context.launch(kernel, m, pointers);
  context.synchronize();
  for (size_t i = 1; i < 3; ++i)
    buffers[i].copyTo(host[i].data(), host[i].size());
  std::vector<uint8_t> q(host[1].size()), s(host[2].size());
  size_t qWritten = 0, sWritten = 0;
  mxforge::check(mxf_reference(kernel.spec().c_str(), m, host[0].data(), nullptr, q.data(),
                               q.size(), &qWritten, s.data(), s.size(), &sWritten));
  EXPECT_EQ(0, std::memcmp(host[1].data(), q.data(), qWritten));
  EXPECT_EQ(0, std::memcmp(host[2].data(), s.data(), sWritten));
  for (size_t b = qWritten; b < host[1].size(); ++b)
    ASSERT_EQ(host[1][b], 0xA5) << "q byte " << b << " past M was written";
  buffers[0].reset();
  buffers[0].reset(); // idempotent
}

} // namespace
